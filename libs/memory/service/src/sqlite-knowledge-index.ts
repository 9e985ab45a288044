import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { queryWords, type ChunkHit, type IndexedChunk, type KnowledgeIndex, type KnowledgeSource, type LexicalQuery, type NearestQuery } from './knowledge-index.port.js';

export const SQLITE_KNOWLEDGE_FILE = 'knowledge.sqlite';

/**
 * `PRAGMA user_version` of the current schema; 0/1 is the first slice's (chunks with blobs, no search tables), 2 the
 * one whose vec0 tables kept sqlite-vec's default chunk size, 3 adds `workspace_id` to sources.
 */
const SCHEMA_VERSION = 3;

/**
 * Vectors per vec0 chunk. vec0 allocates a whole chunk (vectors × dimensions × 4 bytes) when a partition gets its
 * first row: at the default 1024, 6.3 MB per agent tag at 1536 dimensions, so a source tagged with many agents wrote
 * hundreds of megabytes. At 8, a partition starts at about 50 kB; a KNN over 2,000 rows of one partition
 * takes about 1.2× as long (docs/reliability.md, "Resource limits").
 */
const VEC_CHUNK_SIZE = 8;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS knowledge_sources (
  source_id       TEXT PRIMARY KEY,
  title           TEXT NOT NULL,
  url             TEXT,
  format          TEXT NOT NULL,
  agent_ids       TEXT NOT NULL,
  content_hash    TEXT NOT NULL,
  chunk_count     INTEGER NOT NULL,
  embedding_model TEXT NOT NULL,
  ingested_at     TEXT NOT NULL,
  workspace_id    TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS knowledge_chunks (
  id        INTEGER PRIMARY KEY,
  chunk_id  TEXT NOT NULL UNIQUE,
  source_id TEXT NOT NULL REFERENCES knowledge_sources(source_id) ON DELETE CASCADE,
  ordinal   INTEGER NOT NULL,
  heading   TEXT NOT NULL,
  text      TEXT NOT NULL,
  vector    BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_chunks_by_source ON knowledge_chunks(source_id, ordinal);
-- One vec0 row per chunk and agent tag (or '*' for an untagged source), in the vec0 table of the vector's
-- dimensions (knowledge_vec_<dims>, created on first use). The vec0 rowid is allocated here.
CREATE TABLE IF NOT EXISTS knowledge_vec_rows (
  vec_rowid INTEGER PRIMARY KEY,
  chunk     INTEGER NOT NULL REFERENCES knowledge_chunks(id) ON DELETE CASCADE,
  dims      INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_vec_rows_by_chunk ON knowledge_vec_rows(chunk);
-- BM25 side: rowid = knowledge_chunks.id; 'scope' holds one token per agent tag (or the every-agent token),
-- so the agent filter is part of the full-text match itself.
CREATE VIRTUAL TABLE IF NOT EXISTS knowledge_fts USING fts5(scope, body, tokenize = 'porter unicode61 remove_diacritics 2');
`;

interface SourceRow {
  source_id: string;
  title: string;
  url: string | null;
  format: KnowledgeSource['format'];
  agent_ids: string;
  content_hash: string;
  chunk_count: number;
  embedding_model: string;
  ingested_at: string;
  workspace_id: string | null;
}
interface ChunkRow {
  id: number;
  chunk_id: string;
  source_id: string;
  ordinal: number;
  heading: string;
  text: string;
  vector: Buffer;
}

const toSource = (row: SourceRow): KnowledgeSource => ({
  sourceId: row.source_id,
  title: row.title,
  ...(row.url !== null ? { url: row.url } : {}),
  format: row.format,
  agentIds: JSON.parse(row.agent_ids) as string[],
  contentHash: row.content_hash,
  chunkCount: row.chunk_count,
  embeddingModel: row.embedding_model,
  ingestedAt: row.ingested_at,
  ...(row.workspace_id !== null ? { workspaceId: row.workspace_id } : {}),
});

// Vectors as float32 blobs: what vec0 takes, a quarter of the JSON size, exact enough for cosine ranking.
const toBlob = (vector: readonly number[]): Buffer => Buffer.from(Float32Array.from(vector).buffer);
const fromBlob = (blob: Buffer): number[] => Array.from(new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));
const isZero = (vector: readonly number[]): boolean => vector.every((x) => x === 0);

const EVERY_AGENT = '*';
/** vec0 partition key: the embedding model and one agent tag, so a KNN scans only what that agent may read. */
const vecScope = (embeddingModel: string, agent: string): string => `${embeddingModel}\u001f${agent}`;
/** FTS token of an agent tag: hex, so any agent id is one token whatever the tokenizer does with it. */
const ftsScopeToken = (agent: string): string => (agent === EVERY_AGENT ? 'sall' : `s${createHash('sha256').update(agent).digest('hex').slice(0, 24)}`);
const agentsOf = (source: KnowledgeSource): string[] => (source.agentIds.length > 0 ? source.agentIds : [EVERY_AGENT]);
const vecTable = (dims: number): string => `knowledge_vec_${dims}`;

/**
 * The embedded knowledge index (ADR 0016): its own SQLite database next to the event log. Vectors are searched
 * by sqlite-vec's `vec0` (exact KNN in C, partitioned by embedding model and agent tag) and text by FTS5 (BM25),
 * both in this database: replacing a source is one transaction over chunks, vectors and text, so a reader sees
 * the old version or the new one, never a mix. A database of the first slice (chunks only) is migrated on open
 * and its search tables rebuilt from the stored chunks.
 */
export class SqliteKnowledgeIndex implements KnowledgeIndex {
  private readonly db: Database.Database;
  private readonly vecTables = new Set<number>();

  constructor(options: { file?: string; dataDir?: string } = {}) {
    const file = options.file ?? (options.dataDir ? join(options.dataDir, SQLITE_KNOWLEDGE_FILE) : ':memory:');
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    sqliteVec.load(this.db);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.transaction(() => this.migrate())();
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    const columns = this.db.prepare(`SELECT name FROM pragma_table_info('knowledge_chunks')`).all() as { name: string }[];
    const firstSlice = columns.length > 0 && !columns.some((c) => c.name === 'id');
    if (firstSlice) this.db.exec('ALTER TABLE knowledge_chunks RENAME TO knowledge_chunks_v1; DROP INDEX IF EXISTS knowledge_chunks_by_source;');
    this.db.exec(SCHEMA);
    const sourceColumns = this.db.prepare(`SELECT name FROM pragma_table_info('knowledge_sources')`).all() as { name: string }[];
    if (!sourceColumns.some((c) => c.name === 'workspace_id')) this.db.exec('ALTER TABLE knowledge_sources ADD COLUMN workspace_id TEXT');
    for (const { name } of this.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'knowledge_vec_[0-9]*'`).all() as { name: string }[]) {
      this.vecTables.add(Number(name.slice('knowledge_vec_'.length)));
    }
    if (version >= SCHEMA_VERSION) return;
    if (firstSlice) {
      this.db.exec(
        `INSERT INTO knowledge_chunks (chunk_id, source_id, ordinal, heading, text, vector)
         SELECT chunk_id, source_id, ordinal, heading, text, vector FROM knowledge_chunks_v1 ORDER BY source_id, ordinal;
         DROP TABLE knowledge_chunks_v1;`,
      );
    }
    // Rebuild both search sides from the stored chunks; vec0 tables are made anew (their chunk size is fixed at creation).
    this.db.exec('DELETE FROM knowledge_fts; DELETE FROM knowledge_vec_rows;');
    for (const dims of this.vecTables) this.db.exec(`DROP TABLE ${vecTable(dims)}`);
    this.vecTables.clear();
    const chunksOf = this.db.prepare('SELECT * FROM knowledge_chunks WHERE source_id = ? ORDER BY ordinal');
    for (const row of this.db.prepare('SELECT * FROM knowledge_sources').all() as SourceRow[]) {
      const source = toSource(row);
      for (const chunk of chunksOf.all(source.sourceId) as ChunkRow[]) this.indexChunk(source, chunk.id, chunk.heading, chunk.text, fromBlob(chunk.vector));
    }
    this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }

  /** Whether vectors of this size were ever stored — also by another process on the same file since this one opened it. */
  private hasVecTable(dims: number): boolean {
    if (!this.vecTables.has(dims) && this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(vecTable(dims))) this.vecTables.add(dims);
    return this.vecTables.has(dims);
  }

  private ensureVecTable(dims: number): void {
    if (this.vecTables.has(dims)) return;
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vecTable(dims)} USING vec0(scope TEXT PARTITION KEY, embedding float[${dims}] distance_metric=cosine, chunk_size=${VEC_CHUNK_SIZE})`);
    this.vecTables.add(dims);
  }

  /** Writes one stored chunk's search rows (inside the caller's transaction). */
  private indexChunk(source: KnowledgeSource, id: number, heading: string, text: string, vector: readonly number[]): void {
    const agents = agentsOf(source);
    this.db.prepare('INSERT INTO knowledge_fts (rowid, scope, body) VALUES (?, ?, ?)').run(id, agents.map(ftsScopeToken).join(' '), `${heading}\n${text}`);
    // A zero vector (blank text offline) is similar to nothing: it is not worth a KNN row.
    if (vector.length === 0 || isZero(vector)) return;
    this.ensureVecTable(vector.length);
    const row = this.db.prepare('INSERT INTO knowledge_vec_rows (chunk, dims) VALUES (?, ?)');
    const vec = this.db.prepare(`INSERT INTO ${vecTable(vector.length)} (rowid, scope, embedding) VALUES (?, ?, ?)`);
    const blob = toBlob(vector);
    for (const agent of agents) {
      const vecRowid = BigInt(row.run(id, vector.length).lastInsertRowid);
      vec.run(vecRowid, vecScope(source.embeddingModel, agent), blob);
    }
  }

  /** Removes a source's chunks and their search rows (inside the caller's transaction). */
  private clearChunks(sourceId: string): void {
    const rows = this.db
      .prepare('SELECT r.vec_rowid, r.dims FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE c.source_id = ?')
      .all(sourceId) as { vec_rowid: number; dims: number }[];
    for (const { vec_rowid, dims } of rows) this.db.prepare(`DELETE FROM ${vecTable(dims)} WHERE rowid = ?`).run(BigInt(vec_rowid));
    this.db.prepare('DELETE FROM knowledge_fts WHERE rowid IN (SELECT id FROM knowledge_chunks WHERE source_id = ?)').run(sourceId);
    this.db.prepare('DELETE FROM knowledge_chunks WHERE source_id = ?').run(sourceId);
  }

  async replaceSource(source: KnowledgeSource, chunks: readonly IndexedChunk[]): Promise<void> {
    const upsert = this.db.prepare(
      `INSERT INTO knowledge_sources (source_id, title, url, format, agent_ids, content_hash, chunk_count, embedding_model, ingested_at, workspace_id)
       VALUES (@source_id, @title, @url, @format, @agent_ids, @content_hash, @chunk_count, @embedding_model, @ingested_at, @workspace_id)
       ON CONFLICT(source_id) DO UPDATE SET title = excluded.title, url = excluded.url, format = excluded.format,
         agent_ids = excluded.agent_ids, content_hash = excluded.content_hash, chunk_count = excluded.chunk_count,
         embedding_model = excluded.embedding_model, ingested_at = excluded.ingested_at, workspace_id = excluded.workspace_id`,
    );
    const insert = this.db.prepare('INSERT INTO knowledge_chunks (chunk_id, source_id, ordinal, heading, text, vector) VALUES (?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      upsert.run({
        source_id: source.sourceId,
        title: source.title,
        url: source.url ?? null,
        format: source.format,
        agent_ids: JSON.stringify(source.agentIds),
        content_hash: source.contentHash,
        chunk_count: chunks.length,
        embedding_model: source.embeddingModel,
        ingested_at: source.ingestedAt,
        workspace_id: source.workspaceId ?? null,
      });
      this.clearChunks(source.sourceId);
      for (const chunk of chunks) {
        if (chunk.sourceId !== source.sourceId) throw new RangeError(`chunk ${chunk.chunkId} belongs to source ${chunk.sourceId}, not ${source.sourceId}`);
        const id = Number(insert.run(chunk.chunkId, source.sourceId, chunk.ordinal, chunk.heading, chunk.text, toBlob(chunk.vector)).lastInsertRowid);
        this.indexChunk(source, id, chunk.heading, chunk.text, chunk.vector);
      }
    })();
  }

  async getSource(sourceId: string): Promise<KnowledgeSource | undefined> {
    const row = this.db.prepare('SELECT * FROM knowledge_sources WHERE source_id = ?').get(sourceId) as SourceRow | undefined;
    return row ? toSource(row) : undefined;
  }

  async listSources(): Promise<KnowledgeSource[]> {
    return (this.db.prepare('SELECT * FROM knowledge_sources ORDER BY ingested_at, source_id').all() as SourceRow[]).map(toSource);
  }

  async deleteSource(sourceId: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.clearChunks(sourceId);
      return this.db.prepare('DELETE FROM knowledge_sources WHERE source_id = ?').run(sourceId).changes > 0;
    })();
  }

  async sourceChunks(sourceId: string): Promise<IndexedChunk[]> {
    return (this.db.prepare('SELECT * FROM knowledge_chunks WHERE source_id = ? ORDER BY ordinal').all(sourceId) as ChunkRow[]).map((row) => ({
      chunkId: row.chunk_id,
      sourceId: row.source_id,
      ordinal: row.ordinal,
      heading: row.heading,
      text: row.text,
      vector: fromBlob(row.vector),
    }));
  }

  async nearest(query: NearestQuery): Promise<ChunkHit[]> {
    const dims = query.vector.length;
    if (dims === 0 || isZero(query.vector) || !this.hasVecTable(dims) || query.k < 1) return [];
    // The partitions to scan: this agent's and the every-agent one; without an agent, every tag's.
    const agents =
      query.agentId !== undefined
        ? [query.agentId, EVERY_AGENT]
        : [EVERY_AGENT, ...new Set((this.db.prepare('SELECT agent_ids FROM knowledge_sources WHERE embedding_model = ?').all(query.embeddingModel) as { agent_ids: string }[]).flatMap((r) => JSON.parse(r.agent_ids) as string[]))];
    const knn = this.db.prepare(`SELECT rowid, distance FROM ${vecTable(dims)} WHERE embedding MATCH ? AND k = ? AND scope = ?`);
    const blob = toBlob(query.vector);
    const distances = new Map<number, number>();
    for (const agent of agents) {
      for (const { rowid, distance } of knn.all(blob, query.k, vecScope(query.embeddingModel, agent)) as { rowid: number; distance: number }[]) distances.set(rowid, distance);
    }
    if (distances.size === 0) return [];
    const rowids = [...distances.keys()];
    const rows = this.db
      .prepare(`SELECT r.vec_rowid, c.* FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.vec_rowid IN (${rowids.map(() => '?').join(',')})`)
      .all(...rowids) as (ChunkRow & { vec_rowid: number })[];
    // A chunk tagged to several agents has a row per tag: keep it once.
    const best = new Map<string, { row: ChunkRow; score: number }>();
    for (const row of rows) {
      const score = 1 - (distances.get(row.vec_rowid) ?? 2);
      if ((best.get(row.chunk_id)?.score ?? -Infinity) < score) best.set(row.chunk_id, { row, score });
    }
    return this.hits([...best.values()], query.k);
  }

  async lexical(query: LexicalQuery): Promise<ChunkHit[]> {
    const words = queryWords(query.text);
    if (words.length === 0 || query.k < 1) return [];
    const body = `body : (${words.map((w) => `"${w}"`).join(' OR ')})`;
    const match = query.agentId !== undefined ? `scope : ("${ftsScopeToken(query.agentId)}" OR "${ftsScopeToken(EVERY_AGENT)}") AND ${body}` : body;
    // bm25() is lower-is-better; the scope column weighs nothing.
    const rows = this.db
      .prepare(`SELECT c.*, -bm25(knowledge_fts, 0.0, 1.0) AS score FROM knowledge_fts f JOIN knowledge_chunks c ON c.id = f.rowid WHERE knowledge_fts MATCH ? ORDER BY bm25(knowledge_fts, 0.0, 1.0) LIMIT ?`)
      .all(match, query.k) as (ChunkRow & { score: number })[];
    return this.hits(rows.map((row) => ({ row, score: row.score })), query.k);
  }

  private hits(found: { row: ChunkRow; score: number }[], k: number): ChunkHit[] {
    const read = this.db.prepare('SELECT * FROM knowledge_sources WHERE source_id = ?');
    const sources = new Map<string, KnowledgeSource | undefined>();
    const sourceOf = (id: string): KnowledgeSource | undefined => {
      if (!sources.has(id)) {
        const row = read.get(id) as SourceRow | undefined;
        sources.set(id, row ? toSource(row) : undefined);
      }
      return sources.get(id);
    };
    return found
      .sort((a, b) => b.score - a.score || a.row.chunk_id.localeCompare(b.row.chunk_id))
      .slice(0, k)
      .flatMap(({ row, score }) => {
        const source = sourceOf(row.source_id);
        return source ? [{ chunk: { chunkId: row.chunk_id, sourceId: row.source_id, ordinal: row.ordinal, heading: row.heading, text: row.text }, source, score }] : [];
      });
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
