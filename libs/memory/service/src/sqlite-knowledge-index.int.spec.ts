import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_KNOWLEDGE_FILE, SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';
import { knowledgeIndexConformance } from './testing/knowledge-index.conformance.js';

const dirs: string[] = [];
const files = new WeakMap<SqliteKnowledgeIndex, string>();
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

knowledgeIndexConformance('SQLite (file)', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-'));
    dirs.push(dir);
    const index = new SqliteKnowledgeIndex({ dataDir: dir });
    files.set(index, dir);
    return index;
  },
  async reopen(index) {
    const dir = files.get(index as SqliteKnowledgeIndex)!;
    await index.close();
    return new SqliteKnowledgeIndex({ dataDir: dir });
  },
});

knowledgeIndexConformance('SQLite (in memory)', { create: async () => new SqliteKnowledgeIndex() });

describe('SqliteKnowledgeIndex migration', () => {
  it('opens a first-slice database (chunks with blobs, no search tables) and rebuilds both search sides from its chunks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-v1-'));
    dirs.push(dir);
    // The schema and rows as the index's first version wrote them.
    const old = new Database(join(dir, SQLITE_KNOWLEDGE_FILE));
    old.exec(`
      CREATE TABLE knowledge_sources (source_id TEXT PRIMARY KEY, title TEXT NOT NULL, url TEXT, format TEXT NOT NULL, agent_ids TEXT NOT NULL,
        content_hash TEXT NOT NULL, chunk_count INTEGER NOT NULL, embedding_model TEXT NOT NULL, ingested_at TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE knowledge_chunks (chunk_id TEXT PRIMARY KEY, source_id TEXT NOT NULL REFERENCES knowledge_sources(source_id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL, vector BLOB NOT NULL);
      CREATE INDEX knowledge_chunks_by_source ON knowledge_chunks(source_id, ordinal);`);
    old.prepare(`INSERT INTO knowledge_sources VALUES ('faq', 'FAQ', NULL, 'markdown', '["a1"]', 'h', 2, 'offline/test/3', '2026-11-23T10:00:00.000Z')`).run();
    const blob = (v: number[]): Buffer => Buffer.from(Float32Array.from(v).buffer);
    old.prepare('INSERT INTO knowledge_chunks VALUES (?, ?, ?, ?, ?, ?)').run('faq:0', 'faq', 0, 'Refunds', 'Refunds within 30 days.', blob([1, 0, 0]));
    old.prepare('INSERT INTO knowledge_chunks VALUES (?, ?, ?, ?, ?, ?)').run('faq:1', 'faq', 1, 'Delivery', 'Delivery takes three days.', blob([0, 1, 0]));
    old.close();

    const index = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      expect((await index.sourceChunks('faq')).map((c) => [c.chunkId, c.vector])).toEqual([
        ['faq:0', [1, 0, 0]],
        ['faq:1', [0, 1, 0]],
      ]);
      expect((await index.lexical({ text: 'delivery', agentId: 'a1', k: 5 })).map((h) => h.chunk.chunkId)).toEqual(['faq:1']);
      expect((await index.lexical({ text: 'delivery', agentId: 'a2', k: 5 })).map((h) => h.chunk.chunkId)).toEqual([]);
      expect((await index.nearest({ vector: [1, 0.1, 0], embeddingModel: 'offline/test/3', agentId: 'a1', k: 1 })).map((h) => h.chunk.chunkId)).toEqual(['faq:0']);
    } finally {
      await index.close();
    }
    // Opening it again does not rebuild (or duplicate) anything.
    const again = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      expect((await again.nearest({ vector: [1, 0.1, 0], embeddingModel: 'offline/test/3', agentId: 'a1', k: 5 })).map((h) => h.chunk.chunkId)).toEqual(['faq:0', 'faq:1']);
    } finally {
      await again.close();
    }
  });
});

describe('SqliteKnowledgeIndex shared by two processes', () => {
  it('searches vectors of a size the other one stored first, after both opened the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-shared-'));
    dirs.push(dir);
    const writer = new SqliteKnowledgeIndex({ dataDir: dir });
    const reader = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      const source = { sourceId: 's1', title: 'S1', format: 'text' as const, agentIds: [], contentHash: 'h', chunkCount: 1, embeddingModel: 'm/x/5', ingestedAt: '2026-11-26T00:00:00.000Z' };
      await writer.replaceSource(source, [{ chunkId: 's1:0', sourceId: 's1', ordinal: 0, heading: 'S1', text: 'shared words', vector: [1, 0, 0, 0, 0] }]);
      expect((await reader.nearest({ vector: [1, 0, 0, 0, 0], embeddingModel: 'm/x/5', k: 1 })).map((h) => h.chunk.chunkId)).toEqual(['s1:0']);
      expect((await reader.lexical({ text: 'shared', k: 1 })).map((h) => h.chunk.chunkId)).toEqual(['s1:0']);
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});
