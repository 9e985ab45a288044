import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { DEFAULT_HNSW, HnswPartition, removeStaleFiles, type HnswParameters, type Watermark } from './hnsw-partitions.js';
import { queryWords, type ChunkHit, type IndexedChunk, type KnowledgeIndex, type KnowledgeSource, type LexicalQuery, type NearestQuery } from './knowledge-index.port.js';

export const SQLITE_KNOWLEDGE_FILE = 'knowledge.sqlite';

/**
 * `PRAGMA user_version` of the current schema; 0/1 is the first slice's (chunks with blobs, no search tables), 2 the
 * one whose vec0 tables kept sqlite-vec's default chunk size, 3 adds `workspace_id` to sources, 4 replaces the vec0
 * tables by HNSW graphs (usearch) over vector rows partitioned by model, workspace and agent tag (ADR 0034).
 */
const SCHEMA_VERSION = 4;

/** Longest a background slice of graph insertion holds the event loop. */
const DRAIN_SLICE_MS = 10;
/** Graph insertion waits until no source was written for this long. */
const DRAIN_IDLE_MS = 100;

/** Folder, next to the database file, of the persisted HNSW graphs (one file per partition). */
export const HNSW_FOLDER = 'knowledge-hnsw';

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
-- A vector partition: one embedding model and size, one workspace, one agent tag ('*': the workspace's untagged
-- sources). Each is one HNSW graph in memory, so a search reads only what the agent may read in its workspace.
CREATE TABLE IF NOT EXISTS knowledge_vec_partitions (
  scope           TEXT PRIMARY KEY,
  embedding_model TEXT NOT NULL,
  dims            INTEGER NOT NULL,
  workspace_id    TEXT NOT NULL,
  agent           TEXT NOT NULL
) WITHOUT ROWID;
-- The log the graphs are built from: one row per chunk and partition; the row id (never reused) is the graph key,
-- and every removed row is appended to knowledge_vec_removed (trigger), so a graph saved at (last row, last
-- removal) is brought up to date by the rows and removals after them.
CREATE TABLE IF NOT EXISTS knowledge_vec_rows (
  vec_rowid INTEGER PRIMARY KEY AUTOINCREMENT,
  chunk     INTEGER NOT NULL REFERENCES knowledge_chunks(id) ON DELETE CASCADE,
  scope     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_vec_rows_by_chunk ON knowledge_vec_rows(chunk);
CREATE INDEX IF NOT EXISTS knowledge_vec_rows_by_scope ON knowledge_vec_rows(scope, vec_rowid);
-- 'graph_epoch': names this database's graph files, so a file left by another database (or by this one before a
-- migration rebuilt its rows) is never mistaken for one of its graphs.
CREATE TABLE IF NOT EXISTS knowledge_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS knowledge_vec_removed (
  seq       INTEGER PRIMARY KEY AUTOINCREMENT,
  vec_rowid INTEGER NOT NULL,
  scope     TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS knowledge_vec_rows_removed AFTER DELETE ON knowledge_vec_rows
BEGIN INSERT INTO knowledge_vec_removed (vec_rowid, scope) VALUES (old.vec_rowid, old.scope); END;
-- BM25 side: rowid = knowledge_chunks.id; 'scope' holds one token per agent tag (or the every-agent token) and
-- one for the workspace, so the agent and workspace filters are part of the full-text match itself.
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
const DEFAULT_WORKSPACE = 'default';
/** Vector partition key: the embedding model and size, the workspace and one agent tag. */
const vecScope = (embeddingModel: string, dims: number, workspace: string, agent: string): string => `${embeddingModel}\u001f${dims}\u001f${workspace}\u001f${agent}`;
const tokenOf = (prefix: string, id: string): string => `${prefix}${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
/** FTS token of an agent tag: hex, so any agent id is one token whatever the tokenizer does with it. */
const ftsScopeToken = (agent: string): string => (agent === EVERY_AGENT ? 'sall' : tokenOf('s', agent));
const ftsWorkspaceToken = (workspace: string): string => tokenOf('w', workspace);
const agentsOf = (source: KnowledgeSource): string[] => (source.agentIds.length > 0 ? source.agentIds : [EVERY_AGENT]);
const workspaceOf = (source: KnowledgeSource): string => source.workspaceId ?? DEFAULT_WORKSPACE;

interface PartitionRow {
  scope: string;
  embedding_model: string;
  dims: number;
  workspace_id: string;
  agent: string;
}
interface Partition extends PartitionRow {
  graph: HnswPartition;
}

/** Whether a hit's source may be read by the query's agent in the query's workspace (a check on what the partitions decided). */
const readable = (source: KnowledgeSource, scope: { agentId?: string; workspaceId?: string }): boolean =>
  (scope.workspaceId === undefined || workspaceOf(source) === scope.workspaceId) && (scope.agentId === undefined || source.agentIds.length === 0 || source.agentIds.includes(scope.agentId));

/**
 * The embedded knowledge index (ADR 0016, ADR 0034): its own SQLite database next to the event log. Vectors are
 * searched by HNSW graphs (usearch) in memory, one per partition — embedding model, workspace and agent tag — built
 * from the vector rows of this database and saved next to it on close; text by FTS5 (BM25) in the database.
 * Replacing a source is one transaction over chunks, vector rows and text, so a reader sees the old version or the
 * new one, never a mix; the graphs follow the vector rows' log (rows added, rows removed) before every search, also
 * when another process wrote them. A graph file that is missing, unreadable or of other parameters is rebuilt from
 * the rows; an older one is brought up to date from the log. A database of an earlier schema is migrated on open
 * and its search tables rebuilt from the stored chunks.
 */
export class SqliteKnowledgeIndex implements KnowledgeIndex {
  private readonly db: Database.Database;
  private readonly hnswDir: string | undefined;
  private readonly hnsw: HnswParameters;
  private readonly partitions = new Map<string, Partition>();
  /** The vector rows and removals the graphs have applied. */
  private applied: Watermark = { adds: 0, removes: 0 };
  private epoch = '';
  private draining: NodeJS.Timeout | undefined;
  private lastWrite = 0;

  constructor(options: { file?: string; dataDir?: string; hnsw?: Partial<HnswParameters> } = {}) {
    const file = options.file ?? (options.dataDir ? join(options.dataDir, SQLITE_KNOWLEDGE_FILE) : ':memory:');
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.hnswDir = file !== ':memory:' ? join(dirname(file), HNSW_FOLDER) : undefined;
    this.hnsw = { ...DEFAULT_HNSW, ...options.hnsw };
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.transaction(() => this.migrate())();
    this.db.transaction(() => this.openGraphs())();
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    const columns = this.db.prepare(`SELECT name FROM pragma_table_info('knowledge_chunks')`).all() as { name: string }[];
    const firstSlice = columns.length > 0 && !columns.some((c) => c.name === 'id');
    if (firstSlice) this.db.exec('ALTER TABLE knowledge_chunks RENAME TO knowledge_chunks_v1; DROP INDEX IF EXISTS knowledge_chunks_by_source;');
    if (version < SCHEMA_VERSION) {
      // Schema 2/3's vector rows (no scope) and vec0 tables: dropping a vec0 table needs its module.
      const vec0 = this.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'knowledge_vec_[0-9]*'`).all() as { name: string }[];
      if (vec0.length > 0) sqliteVec.load(this.db);
      for (const { name } of vec0) this.db.exec(`DROP TABLE ${name}`);
      this.db.exec('DROP TABLE IF EXISTS knowledge_vec_rows; DROP TABLE IF EXISTS knowledge_fts;');
    }
    this.db.exec(SCHEMA);
    const sourceColumns = this.db.prepare(`SELECT name FROM pragma_table_info('knowledge_sources')`).all() as { name: string }[];
    if (!sourceColumns.some((c) => c.name === 'workspace_id')) this.db.exec('ALTER TABLE knowledge_sources ADD COLUMN workspace_id TEXT');
    if (version >= SCHEMA_VERSION) return;
    if (firstSlice) {
      this.db.exec(
        `INSERT INTO knowledge_chunks (chunk_id, source_id, ordinal, heading, text, vector)
         SELECT chunk_id, source_id, ordinal, heading, text, vector FROM knowledge_chunks_v1 ORDER BY source_id, ordinal;
         DROP TABLE knowledge_chunks_v1;`,
      );
    }
    // Rebuild both search sides from the stored chunks.
    this.db.exec(`DELETE FROM knowledge_vec_partitions; DELETE FROM knowledge_vec_removed; DELETE FROM knowledge_meta WHERE key = 'graph_epoch';`);
    if (this.hnswDir) rmSync(this.hnswDir, { recursive: true, force: true });
    const chunksOf = this.db.prepare('SELECT * FROM knowledge_chunks WHERE source_id = ? ORDER BY ordinal');
    for (const row of this.db.prepare('SELECT * FROM knowledge_sources').all() as SourceRow[]) {
      const source = toSource(row);
      for (const chunk of chunksOf.all(source.sourceId) as ChunkRow[]) this.indexChunk(source, chunk.id, chunk.heading, chunk.text, fromBlob(chunk.vector));
    }
    this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }

  /** The log's head: the last vector row and the last removal ever written (AUTOINCREMENT: never reused). */
  private logHead(): Watermark {
    const rows = this.db.prepare(`SELECT name, seq FROM sqlite_sequence WHERE name IN ('knowledge_vec_rows', 'knowledge_vec_removed')`).all() as { name: string; seq: number }[];
    return { adds: rows.find((r) => r.name === 'knowledge_vec_rows')?.seq ?? 0, removes: rows.find((r) => r.name === 'knowledge_vec_removed')?.seq ?? 0 };
  }

  /** Every partition's graph, loaded from its file and brought up to date from the log, or rebuilt from the rows (inside a read transaction). */
  private openGraphs(): void {
    this.db.prepare(`INSERT OR IGNORE INTO knowledge_meta (key, value) VALUES ('graph_epoch', ?)`).run(randomUUID());
    this.epoch = (this.db.prepare(`SELECT value FROM knowledge_meta WHERE key = 'graph_epoch'`).get() as { value: string }).value;
    const head = this.logHead();
    const rowsOf = this.db.prepare('SELECT r.vec_rowid AS key, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.scope = ? AND r.vec_rowid > ? AND r.vec_rowid <= ? ORDER BY r.vec_rowid');
    const removedOf = this.db.prepare('SELECT vec_rowid AS key FROM knowledge_vec_removed WHERE scope = ? AND seq > ? AND seq <= ?');
    for (const row of this.db.prepare('SELECT * FROM knowledge_vec_partitions').all() as PartitionRow[]) {
      let graph = new HnswPartition(this.epoch, row.scope, row.dims, this.hnsw);
      const saved = this.hnswDir ? graph.load(this.hnswDir) : undefined;
      if (!saved || saved.adds > head.adds || saved.removes > head.removes) graph = new HnswPartition(this.epoch, row.scope, row.dims, this.hnsw);
      const from = saved && graph.size > 0 ? saved : { adds: 0, removes: 0 };
      this.stageRows(graph, rowsOf.all(row.scope, from.adds, head.adds) as { key: number; vector: Buffer }[]);
      for (const { key } of removedOf.all(row.scope, from.removes, head.removes) as { key: number }[]) graph.remove(key);
      this.partitions.set(row.scope, { ...row, graph });
    }
    this.applied = head;
    this.scheduleDrain();
  }

  private stageRows(graph: HnswPartition, rows: readonly { key: number; vector: Buffer }[]): void {
    for (const row of rows) graph.stage(row.key, new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + graph.dims * 4)));
  }

  /**
   * Inserts staged vectors into the graphs in slices of DRAIN_SLICE_MS, one per turn of the event loop, once no write
   * came for DRAIN_IDLE_MS: insertion yields to ingestion (staged vectors are searched exactly meanwhile). The timer
   * does not keep the process alive: what is left staged at exit is in the log for the next open.
   */
  private scheduleDrain(): void {
    if (this.draining || !this.db.open) return;
    const idleFor = performance.now() - this.lastWrite;
    this.draining = setTimeout(
      () => {
        this.draining = undefined;
        if (!this.db.open) return;
        if (performance.now() - this.lastWrite >= DRAIN_IDLE_MS) {
          const started = performance.now();
          for (const { graph } of this.partitions.values()) {
            if (graph.pending > 0) graph.drain(DRAIN_SLICE_MS - (performance.now() - started));
            if (performance.now() - started >= DRAIN_SLICE_MS) break;
          }
        }
        if ([...this.partitions.values()].some((p) => p.graph.pending > 0)) this.scheduleDrain();
      },
      Math.max(0, DRAIN_IDLE_MS - idleFor),
    );
    this.draining.unref();
  }

  /**
   * Inserts every staged vector into its graph now, blocking: for a caller that wants the graphs complete before it
   * measures or saves (the benchmark). Searches are exact on staged vectors without it.
   */
  drainGraphs(): void {
    this.catchUp();
    for (const { graph } of this.partitions.values()) graph.drain(Infinity);
  }

  /** Vectors written but not yet in a graph (searched exactly meanwhile). */
  get stagedVectors(): number {
    return [...this.partitions.values()].reduce((sum, p) => sum + p.graph.pending, 0);
  }

  /** Applies the vector rows and removals written since the graphs were last brought up to date, by this process or another. */
  private catchUp(): void {
    const head = this.logHead();
    if (head.adds === this.applied.adds && head.removes === this.applied.removes) return;
    this.db.transaction(() => {
      const added = this.db
        .prepare('SELECT r.vec_rowid AS key, r.scope, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.vec_rowid > ? AND r.vec_rowid <= ? ORDER BY r.vec_rowid')
        .all(this.applied.adds, head.adds) as { key: number; scope: string; vector: Buffer }[];
      const byScope = new Map<string, { key: number; vector: Buffer }[]>();
      for (const row of added) {
        const rows = byScope.get(row.scope);
        if (rows) rows.push(row);
        else byScope.set(row.scope, [row]);
      }
      for (const [scope, rows] of byScope) {
        const partition = this.partition(scope);
        if (partition) this.stageRows(partition.graph, rows);
      }
      for (const { key, scope } of this.db.prepare('SELECT vec_rowid AS key, scope FROM knowledge_vec_removed WHERE seq > ? AND seq <= ?').all(this.applied.removes, head.removes) as { key: number; scope: string }[]) {
        this.partitions.get(scope)?.graph.remove(key);
      }
    })();
    this.applied = head;
    this.scheduleDrain();
  }

  /** The partition of a scope, created (empty) the first time a vector row of it is seen. */
  private partition(scope: string): Partition | undefined {
    const known = this.partitions.get(scope);
    if (known) return known;
    const row = this.db.prepare('SELECT * FROM knowledge_vec_partitions WHERE scope = ?').get(scope) as PartitionRow | undefined;
    if (!row) return undefined;
    const partition = { ...row, graph: new HnswPartition(this.epoch, row.scope, row.dims, this.hnsw) };
    this.partitions.set(scope, partition);
    return partition;
  }

  /** Writes one stored chunk's search rows (inside the caller's transaction); the graphs pick the vector rows up from the log. */
  private indexChunk(source: KnowledgeSource, id: number, heading: string, text: string, vector: readonly number[]): void {
    const agents = agentsOf(source);
    const workspace = workspaceOf(source);
    this.db.prepare('INSERT INTO knowledge_fts (rowid, scope, body) VALUES (?, ?, ?)').run(id, [...agents.map(ftsScopeToken), ftsWorkspaceToken(workspace)].join(' '), `${heading}\n${text}`);
    // A zero vector (blank text offline) is similar to nothing: it is not worth a graph node.
    if (vector.length === 0 || isZero(vector)) return;
    const partition = this.db.prepare('INSERT OR IGNORE INTO knowledge_vec_partitions (scope, embedding_model, dims, workspace_id, agent) VALUES (?, ?, ?, ?, ?)');
    const row = this.db.prepare('INSERT INTO knowledge_vec_rows (chunk, scope) VALUES (?, ?)');
    for (const agent of agents) {
      const scope = vecScope(source.embeddingModel, vector.length, workspace, agent);
      partition.run(scope, source.embeddingModel, vector.length, workspace, agent);
      row.run(id, scope);
    }
  }

  /** Removes a source's chunks and their search rows (inside the caller's transaction); the trigger logs the vector rows' removal. */
  private clearChunks(sourceId: string): void {
    this.db.prepare('DELETE FROM knowledge_vec_rows WHERE chunk IN (SELECT id FROM knowledge_chunks WHERE source_id = ?)').run(sourceId);
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
    this.lastWrite = performance.now();
    this.catchUp();
  }

  async getSource(sourceId: string): Promise<KnowledgeSource | undefined> {
    const row = this.db.prepare('SELECT * FROM knowledge_sources WHERE source_id = ?').get(sourceId) as SourceRow | undefined;
    return row ? toSource(row) : undefined;
  }

  async listSources(): Promise<KnowledgeSource[]> {
    return (this.db.prepare('SELECT * FROM knowledge_sources ORDER BY ingested_at, source_id').all() as SourceRow[]).map(toSource);
  }

  async deleteSource(sourceId: string): Promise<boolean> {
    const deleted = this.db.transaction(() => {
      this.clearChunks(sourceId);
      return this.db.prepare('DELETE FROM knowledge_sources WHERE source_id = ?').run(sourceId).changes > 0;
    })();
    this.lastWrite = performance.now();
    this.catchUp();
    return deleted;
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
    if (dims === 0 || isZero(query.vector) || query.k < 1) return [];
    this.catchUp();
    // The partitions to search: this agent's and the untagged one, in the query's workspace (every workspace's when
    // none is given); without an agent, every tag's.
    const searched = [...this.partitions.values()].filter(
      (p) => p.embedding_model === query.embeddingModel && p.dims === dims && (query.workspaceId === undefined || p.workspace_id === query.workspaceId) && (query.agentId === undefined || p.agent === query.agentId || p.agent === EVERY_AGENT),
    );
    const vector = Float32Array.from(query.vector);
    const distances = new Map<number, number>();
    for (const { graph } of searched) for (const { key, distance } of graph.search(vector, query.k)) distances.set(key, distance);
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
    return this.hits([...best.values()], query.k, query);
  }

  async lexical(query: LexicalQuery): Promise<ChunkHit[]> {
    const words = queryWords(query.text);
    if (words.length === 0 || query.k < 1) return [];
    const scope = [
      ...(query.agentId !== undefined ? [`scope : ("${ftsScopeToken(query.agentId)}" OR "${ftsScopeToken(EVERY_AGENT)}")`] : []),
      ...(query.workspaceId !== undefined ? [`scope : "${ftsWorkspaceToken(query.workspaceId)}"`] : []),
    ];
    const match = [...scope, `body : (${words.map((w) => `"${w}"`).join(' OR ')})`].join(' AND ');
    // bm25() is lower-is-better; the scope column weighs nothing.
    const rows = this.db
      .prepare(`SELECT c.*, -bm25(knowledge_fts, 0.0, 1.0) AS score FROM knowledge_fts f JOIN knowledge_chunks c ON c.id = f.rowid WHERE knowledge_fts MATCH ? ORDER BY bm25(knowledge_fts, 0.0, 1.0) LIMIT ?`)
      .all(match, query.k) as (ChunkRow & { score: number })[];
    return this.hits(
      rows.map((row) => ({ row, score: row.score })),
      query.k,
      query,
    );
  }

  private hits(found: { row: ChunkRow; score: number }[], k: number, scope: { agentId?: string; workspaceId?: string }): ChunkHit[] {
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
        return source && readable(source, scope) ? [{ chunk: { chunkId: row.chunk_id, sourceId: row.source_id, ordinal: row.ordinal, heading: row.heading, text: row.text }, source, score }] : [];
      });
  }

  /** Saves the graphs changed since they were loaded (the next open loads them instead of rebuilding), then closes the database. */
  async close(): Promise<void> {
    if (this.db.open) {
      if (this.hnswDir) {
        this.catchUp();
        // A graph with staged vectors is not saved: its older file (or none) is brought up to date from the log on open.
        for (const { graph } of this.partitions.values()) if (graph.dirty && graph.pending === 0) graph.save(this.hnswDir, this.applied);
        removeStaleFiles(this.hnswDir, new Set([...this.partitions.values()].map((p) => p.graph.fileKey)));
      }
      if (this.draining) clearTimeout(this.draining);
      this.db.close();
    }
  }
}
