import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { IndexedChunk, KnowledgeIndex, KnowledgeSource } from './knowledge-index.port.js';

export const SQLITE_KNOWLEDGE_FILE = 'knowledge.sqlite';

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
  ingested_at     TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS knowledge_chunks (
  chunk_id  TEXT PRIMARY KEY,
  source_id TEXT NOT NULL REFERENCES knowledge_sources(source_id) ON DELETE CASCADE,
  ordinal   INTEGER NOT NULL,
  heading   TEXT NOT NULL,
  text      TEXT NOT NULL,
  vector    BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_chunks_by_source ON knowledge_chunks(source_id, ordinal);
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
}
interface ChunkRow {
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
});

// Vectors as float32 blobs: a quarter of the JSON size, exact enough for cosine ranking.
const toBlob = (vector: readonly number[]): Buffer => Buffer.from(Float32Array.from(vector).buffer);
const fromBlob = (blob: Buffer): number[] => Array.from(new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));

/**
 * The embedded knowledge index: its own SQLite database next to the event log (see ADR 0016). Replacement is
 * one transaction, so a reader sees the old chunks or the new ones, never a mix.
 */
export class SqliteKnowledgeIndex implements KnowledgeIndex {
  private readonly db: Database.Database;

  constructor(options: { file?: string; dataDir?: string } = {}) {
    const file = options.file ?? (options.dataDir ? join(options.dataDir, SQLITE_KNOWLEDGE_FILE) : ':memory:');
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
  }

  async replaceSource(source: KnowledgeSource, chunks: readonly IndexedChunk[]): Promise<void> {
    const upsert = this.db.prepare(
      `INSERT INTO knowledge_sources (source_id, title, url, format, agent_ids, content_hash, chunk_count, embedding_model, ingested_at)
       VALUES (@source_id, @title, @url, @format, @agent_ids, @content_hash, @chunk_count, @embedding_model, @ingested_at)
       ON CONFLICT(source_id) DO UPDATE SET title = excluded.title, url = excluded.url, format = excluded.format,
         agent_ids = excluded.agent_ids, content_hash = excluded.content_hash, chunk_count = excluded.chunk_count,
         embedding_model = excluded.embedding_model, ingested_at = excluded.ingested_at`,
    );
    const clear = this.db.prepare('DELETE FROM knowledge_chunks WHERE source_id = ?');
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
      });
      clear.run(source.sourceId);
      for (const chunk of chunks) {
        if (chunk.sourceId !== source.sourceId) throw new RangeError(`chunk ${chunk.chunkId} belongs to source ${chunk.sourceId}, not ${source.sourceId}`);
        insert.run(chunk.chunkId, source.sourceId, chunk.ordinal, chunk.heading, chunk.text, toBlob(chunk.vector));
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
    return this.db.prepare('DELETE FROM knowledge_sources WHERE source_id = ?').run(sourceId).changes > 0;
  }

  async candidateChunks(agentId?: string): Promise<Array<IndexedChunk & { source: KnowledgeSource }>> {
    const sources = new Map((await this.listSources()).map((s) => [s.sourceId, s]));
    const rows = this.db.prepare('SELECT * FROM knowledge_chunks ORDER BY source_id, ordinal').all() as ChunkRow[];
    return rows.flatMap((row) => {
      const source = sources.get(row.source_id);
      if (!source || (agentId !== undefined && source.agentIds.length > 0 && !source.agentIds.includes(agentId))) return [];
      return [{ chunkId: row.chunk_id, sourceId: row.source_id, ordinal: row.ordinal, heading: row.heading, text: row.text, vector: fromBlob(row.vector), source }];
    });
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
