import { jest } from '@jest/globals';
import { cpSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { IndexedChunk, KnowledgeSource } from './knowledge-index.port.js';
import { HNSW_FOLDER, SQLITE_KNOWLEDGE_FILE, SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';
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

// The graphs on worker threads from the first vector (graphThreadsFrom 0): the same contract, read-your-writes included.
knowledgeIndexConformance('SQLite (file, graphs in worker threads)', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-threads-'));
    dirs.push(dir);
    const index = new SqliteKnowledgeIndex({ dataDir: dir, graphThreads: 2, graphThreadsFrom: 0 });
    files.set(index, dir);
    return index;
  },
  async reopen(index) {
    const dir = files.get(index as SqliteKnowledgeIndex)!;
    await index.close();
    return new SqliteKnowledgeIndex({ dataDir: dir, graphThreads: 2, graphThreadsFrom: 0 });
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
    old
      .prepare(
        `INSERT INTO knowledge_sources VALUES ('faq', 'FAQ', NULL, 'markdown', '["a1"]', 'h', 2, 'offline/test/3', '2026-11-23T10:00:00.000Z')`,
      )
      .run();
    const blob = (v: number[]): Buffer => Buffer.from(Float32Array.from(v).buffer);
    old
      .prepare('INSERT INTO knowledge_chunks VALUES (?, ?, ?, ?, ?, ?)')
      .run('faq:0', 'faq', 0, 'Refunds', 'Refunds within 30 days.', blob([1, 0, 0]));
    old
      .prepare('INSERT INTO knowledge_chunks VALUES (?, ?, ?, ?, ?, ?)')
      .run('faq:1', 'faq', 1, 'Delivery', 'Delivery takes three days.', blob([0, 1, 0]));
    old.close();

    const index = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      expect((await index.sourceChunks('faq')).map((c) => [c.chunkId, c.vector])).toEqual([
        ['faq:0', [1, 0, 0]],
        ['faq:1', [0, 1, 0]],
      ]);
      expect((await index.lexical({ text: 'delivery', agentId: 'a1', k: 5 })).map((h) => h.chunk.chunkId)).toEqual(['faq:1']);
      expect((await index.lexical({ text: 'delivery', agentId: 'a2', k: 5 })).map((h) => h.chunk.chunkId)).toEqual([]);
      expect(
        (await index.nearest({ vector: [1, 0.1, 0], embeddingModel: 'offline/test/3', agentId: 'a1', k: 1 })).map((h) => h.chunk.chunkId),
      ).toEqual(['faq:0']);
    } finally {
      await index.close();
    }
    // Opening it again does not rebuild (or duplicate) anything.
    const again = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      expect(
        (await again.nearest({ vector: [1, 0.1, 0], embeddingModel: 'offline/test/3', agentId: 'a1', k: 5 })).map((h) => h.chunk.chunkId),
      ).toEqual(['faq:0', 'faq:1']);
    } finally {
      await again.close();
    }
  });
});

describe('SqliteKnowledgeIndex migration from schema 4 (FTS5)', () => {
  it('adds a text row per stored chunk, drops the FTS5 table and keeps the vector rows and graph files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-v4-'));
    dirs.push(dir);
    const first = new SqliteKnowledgeIndex({ dataDir: dir });
    const source = {
      sourceId: 'faq',
      title: 'FAQ',
      format: 'text' as const,
      agentIds: ['a1'],
      contentHash: 'h',
      chunkCount: 2,
      embeddingModel: 'm/x/3',
      ingestedAt: '2026-11-28T00:00:00.000Z',
      workspaceId: 'ws-1',
    };
    await first.replaceSource(source, [
      { chunkId: 'faq:0', sourceId: 'faq', ordinal: 0, heading: 'Refunds', text: 'Refunds within 30 days.', vector: [1, 0, 0] },
      { chunkId: 'faq:1', sourceId: 'faq', ordinal: 1, heading: 'Delivery', text: 'Delivery takes three days.', vector: [0, 1, 0] },
    ]);
    await first.drainGraphs();
    await first.close();
    const graphs = readdirSync(join(dir, HNSW_FOLDER));
    // Back to what schema 4 had on the lexical side: an FTS5 table, no text rows.
    const db = new Database(join(dir, SQLITE_KNOWLEDGE_FILE));
    db.exec(
      `DROP TABLE knowledge_text_rows; DROP TABLE knowledge_text_removed; CREATE VIRTUAL TABLE knowledge_fts USING fts5(scope, body); PRAGMA user_version = 4;`,
    );
    db.close();

    const index = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      expect((await index.lexical({ text: 'deliveries', agentId: 'a1', workspaceId: 'ws-1', k: 5 })).map((h) => h.chunk.chunkId)).toEqual([
        'faq:1',
      ]);
      expect(await index.lexical({ text: 'delivery', agentId: 'a1', workspaceId: 'ws-2', k: 5 })).toEqual([]);
      expect(await index.lexical({ text: 'delivery', agentId: 'a2', k: 5 })).toEqual([]);
      expect(index.stagedVectors).toBe(0);
      expect(
        (await index.nearest({ vector: [1, 0.1, 0], embeddingModel: 'm/x/3', agentId: 'a1', k: 1 })).map((h) => h.chunk.chunkId),
      ).toEqual(['faq:0']);
    } finally {
      await index.close();
    }
    expect(readdirSync(join(dir, HNSW_FOLDER))).toEqual(graphs);
    const migrated = new Database(join(dir, SQLITE_KNOWLEDGE_FILE));
    expect(migrated.prepare(`SELECT name FROM sqlite_master WHERE name = 'knowledge_fts'`).all()).toEqual([]);
    expect(migrated.pragma('user_version', { simple: true })).toBe(5);
    migrated.close();
  });
});

describe('SqliteKnowledgeIndex shared by two processes', () => {
  it('searches vectors of a size the other one stored first, after both opened the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-shared-'));
    dirs.push(dir);
    const writer = new SqliteKnowledgeIndex({ dataDir: dir });
    const reader = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      const source = {
        sourceId: 's1',
        title: 'S1',
        format: 'text' as const,
        agentIds: [],
        contentHash: 'h',
        chunkCount: 1,
        embeddingModel: 'm/x/5',
        ingestedAt: '2026-11-26T00:00:00.000Z',
      };
      await writer.replaceSource(source, [
        { chunkId: 's1:0', sourceId: 's1', ordinal: 0, heading: 'S1', text: 'shared words', vector: [1, 0, 0, 0, 0] },
      ]);
      expect((await reader.nearest({ vector: [1, 0, 0, 0, 0], embeddingModel: 'm/x/5', k: 1 })).map((h) => h.chunk.chunkId)).toEqual([
        's1:0',
      ]);
      expect((await reader.lexical({ text: 'shared', k: 1 })).map((h) => h.chunk.chunkId)).toEqual(['s1:0']);
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});

describe('SqliteKnowledgeIndex HNSW graphs (ADR 0034)', () => {
  const DIMS = 16;
  /** A seeded vector: close vectors for close seeds would make ties; these are spread like real embeddings. */
  const vectorOf = (seed: number): number[] =>
    Array.from(
      { length: DIMS },
      (_, i) => Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453 - Math.floor(Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453) - 0.5,
    );
  const MODEL = `test/hnsw/${DIMS}`;
  const sourceOf = (sourceId: string, agentIds: string[], workspaceId?: string): KnowledgeSource => ({
    sourceId,
    title: sourceId,
    format: 'text',
    agentIds,
    contentHash: sourceId,
    chunkCount: 100,
    embeddingModel: MODEL,
    ingestedAt: '2026-11-28T00:00:00.000Z',
    ...(workspaceId !== undefined ? { workspaceId } : {}),
  });
  /** 100 chunks per source, seeds base … base + 99, each chunk's text naming its source. */
  const chunksOf = (sourceId: string, base: number): IndexedChunk[] =>
    Array.from({ length: 100 }, (_, i) => ({
      chunkId: `${sourceId}:${i}`,
      sourceId,
      ordinal: i,
      heading: sourceId,
      text: `common words ${sourceId.replace(/[^a-z0-9]/g, '')}`,
      vector: vectorOf(base + i),
    }));
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-knowledge-hnsw-'));
    dirs.push(dir);
    return dir;
  };
  const sourcesFound = async (
    index: SqliteKnowledgeIndex,
    seed: number,
    scope: { agentId?: string; workspaceId?: string },
  ): Promise<string[]> => {
    const near = await index.nearest({ vector: vectorOf(seed), embeddingModel: MODEL, k: 1000, ...scope });
    const text = await index.lexical({ text: 'common words', k: 1000, ...scope });
    return [...new Set([...near, ...text].map((h) => h.chunk.sourceId))].sort();
  };

  it('prepares its statements once: more ingests, searches, reads and deletes prepare none (native memory per statement that V8 does not see)', async () => {
    const index = new SqliteKnowledgeIndex({ dataDir: tempDir() });
    const prepare = jest.spyOn(Database.prototype, 'prepare');
    try {
      const round = async (n: number): Promise<void> => {
        const id = `src-${n}`;
        await index.replaceSource(sourceOf(id, n % 2 === 0 ? [] : ['a1']), chunksOf(id, n * 100));
        await index.nearest({ vector: vectorOf(n), embeddingModel: MODEL, k: 5, agentId: 'a1' });
        await index.lexical({ text: 'common words', k: 5, agentId: 'a1' });
        await index.sourceChunks(id);
        await index.getSource(id);
        await index.listSources();
        if (n % 3 === 0) await index.deleteSource(id);
      };
      for (let n = 0; n < 3; n++) await round(n);
      const warm = prepare.mock.calls.length;
      expect(warm).toBeGreaterThan(0);
      for (let n = 3; n < 30; n++) await round(n);
      // 27 more rounds of 100 chunks each prepared nothing new: a statement per chunk costs ~5 KB of native memory that V8 does not
      // see, so thousands pile up between collections and the RSS keeps their high-water mark.
      expect(prepare.mock.calls.length).toBe(warm);
    } finally {
      prepare.mockRestore();
      await index.close();
    }
  });

  it("never returns another workspace's or a non-permitted agent's chunk, before and after the graphs are built", async () => {
    const index = new SqliteKnowledgeIndex({ dataDir: tempDir() });
    try {
      await index.replaceSource(sourceOf('a-all', [], 'ws-a'), chunksOf('a-all', 0));
      await index.replaceSource(sourceOf('a-one', ['agent-1'], 'ws-a'), chunksOf('a-one', 100));
      await index.replaceSource(sourceOf('a-two', ['agent-2'], 'ws-a'), chunksOf('a-two', 200));
      await index.replaceSource(sourceOf('b-all', [], 'ws-b'), chunksOf('b-all', 300));
      await index.replaceSource(sourceOf('b-one', ['agent-1'], 'ws-b'), chunksOf('b-one', 400));
      await index.replaceSource(sourceOf('default-all', []), chunksOf('default-all', 500));
      const check = async (): Promise<void> => {
        // Query vectors taken from the forbidden sources themselves: their own chunks are the nearest there are.
        for (const seed of [0, 150, 250, 350, 450, 550]) {
          expect(await sourcesFound(index, seed, { workspaceId: 'ws-a', agentId: 'agent-1' })).toEqual(['a-all', 'a-one']);
          expect(await sourcesFound(index, seed, { workspaceId: 'ws-b', agentId: 'agent-1' })).toEqual(['b-all', 'b-one']);
          expect(await sourcesFound(index, seed, { workspaceId: 'ws-a' })).toEqual(['a-all', 'a-one', 'a-two']);
          expect(await sourcesFound(index, seed, { workspaceId: 'default', agentId: 'agent-2' })).toEqual(['default-all']);
          expect(await sourcesFound(index, seed, { agentId: 'agent-2' })).toEqual(['a-all', 'a-two', 'b-all', 'default-all']);
        }
      };
      expect(index.stagedVectors).toBeGreaterThan(0);
      await check();
      await index.drainGraphs();
      expect(index.stagedVectors).toBe(0);
      await check();
      // The graph finds a chunk of its own partition by its exact vector.
      expect(
        (await index.nearest({ vector: vectorOf(150), embeddingModel: MODEL, agentId: 'agent-1', workspaceId: 'ws-a', k: 1 }))[0]?.chunk
          .chunkId,
      ).toBe('a-one:50');
    } finally {
      await index.close();
    }
  });

  it('rebuilds the graphs from the vector rows when their files are deleted, and brings a stale file up to date from the log', async () => {
    const dir = tempDir();
    const first = new SqliteKnowledgeIndex({ dataDir: dir });
    await first.replaceSource(sourceOf('s1', []), chunksOf('s1', 0));
    await first.replaceSource(sourceOf('s2', []), chunksOf('s2', 100));
    await first.drainGraphs();
    await first.close();
    const saved = readdirSync(join(dir, HNSW_FOLDER));
    expect(saved).toHaveLength(1);
    const stale = join(dir, 'stale-copy');
    cpSync(join(dir, HNSW_FOLDER), stale, { recursive: true });

    // Deleted: rebuilt from the rows on open.
    rmSync(join(dir, HNSW_FOLDER), { recursive: true });
    const rebuilt = new SqliteKnowledgeIndex({ dataDir: dir });
    expect(rebuilt.stagedVectors).toBe(200);
    await rebuilt.drainGraphs();
    expect((await rebuilt.nearest({ vector: vectorOf(42), embeddingModel: MODEL, k: 1 }))[0]?.chunk.chunkId).toBe('s1:42');
    expect((await rebuilt.nearest({ vector: vectorOf(142), embeddingModel: MODEL, k: 1 }))[0]?.chunk.chunkId).toBe('s2:42');
    // Changed after the copy was saved: s1 deleted, s3 added.
    await rebuilt.deleteSource('s1');
    await rebuilt.replaceSource(sourceOf('s3', []), chunksOf('s3', 200));
    await rebuilt.close();

    // Stale: the older file is loaded (only the newer rows are staged), then the log's removals and rows are applied.
    rmSync(join(dir, HNSW_FOLDER), { recursive: true, force: true });
    cpSync(stale, join(dir, HNSW_FOLDER), { recursive: true });
    const caughtUp = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      expect(caughtUp.stagedVectors).toBe(100);
      await caughtUp.drainGraphs();
      expect(await sourcesFound(caughtUp, 42, {})).toEqual(['s2', 's3']);
      expect((await caughtUp.nearest({ vector: vectorOf(242), embeddingModel: MODEL, k: 1 }))[0]?.chunk.chunkId).toBe('s3:42');
      expect((await caughtUp.nearest({ vector: vectorOf(42), embeddingModel: MODEL, k: 300 })).map((h) => h.chunk.sourceId)).not.toContain(
        's1',
      );
    } finally {
      await caughtUp.close();
    }
  });

  it('does not load a graph file of an earlier format (unsharded graphs before worker threads): rebuilds from the rows and deletes it on close', async () => {
    const dir = tempDir();
    const first = new SqliteKnowledgeIndex({ dataDir: dir });
    await first.replaceSource(sourceOf('s1', []), chunksOf('s1', 0));
    await first.drainGraphs();
    await first.close();
    const [saved] = readdirSync(join(dir, HNSW_FOLDER));
    expect(saved).toMatch(/^[0-9a-f]{32}\.3-\d+-\d+\.usearch$/);
    // The same graph under a format-2 name: the key and watermark match, only the format is old.
    const older = saved!.replace(/\.3-/, '.2-');
    renameSync(join(dir, HNSW_FOLDER, saved!), join(dir, HNSW_FOLDER, older));
    const reopened = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      expect(reopened.stagedVectors).toBe(100);
      await reopened.drainGraphs();
      expect((await reopened.nearest({ vector: vectorOf(42), embeddingModel: MODEL, k: 1 }))[0]?.chunk.chunkId).toBe('s1:42');
    } finally {
      await reopened.close();
    }
    expect(readdirSync(join(dir, HNSW_FOLDER))).toEqual([saved]);
  });

  it("never returns a deleted or replaced source's chunks: not from this process's graph, another process's, nor a saved one", async () => {
    const dir = tempDir();
    const writer = new SqliteKnowledgeIndex({ dataDir: dir });
    const reader = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      await writer.replaceSource(sourceOf('gone', []), chunksOf('gone', 0));
      await writer.replaceSource(sourceOf('kept', []), chunksOf('kept', 100));
      await writer.replaceSource(sourceOf('changed', []), chunksOf('changed', 200));
      await writer.drainGraphs();
      await reader.drainGraphs();
      expect((await reader.nearest({ vector: vectorOf(7), embeddingModel: MODEL, k: 1 }))[0]?.chunk.chunkId).toBe('gone:7');

      await writer.deleteSource('gone');
      // Re-ingested with other vectors: the old ones must go too.
      await writer.replaceSource(sourceOf('changed', []), chunksOf('changed', 1000));
      for (const index of [writer, reader]) {
        const found = await index.nearest({ vector: vectorOf(7), embeddingModel: MODEL, k: 300 });
        expect(found.map((h) => h.chunk.sourceId)).not.toContain('gone');
        expect(found.filter((h) => h.chunk.sourceId === 'changed')).toHaveLength(100);
        expect((await index.nearest({ vector: vectorOf(207), embeddingModel: MODEL, k: 1 }))[0]?.score).toBeLessThan(0.999);
      }
      await writer.drainGraphs();
    } finally {
      await writer.close();
      await reader.close();
    }
    const reopened = new SqliteKnowledgeIndex({ dataDir: dir });
    try {
      expect(reopened.stagedVectors).toBe(0);
      expect((await reopened.nearest({ vector: vectorOf(7), embeddingModel: MODEL, k: 300 })).map((h) => h.chunk.sourceId)).not.toContain(
        'gone',
      );
    } finally {
      await reopened.close();
    }
  });
});
