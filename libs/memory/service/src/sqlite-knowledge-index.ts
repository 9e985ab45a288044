import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { Logger } from '@nestjs/common';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { Bm25Index, type Bm25State } from './bm25-partitions.js';
import { Bm25SnapshotError, parseBm25Snapshot, writeBm25Snapshot } from './bm25-snapshot.js';
import { GraphWorkers, type GraphShardStats } from './hnsw-graph-workers.js';
import { DEFAULT_HNSW, HnswPartition, removeStaleFiles, saveFailure, type HnswParameters, type Watermark } from './hnsw-partitions.js';
import { stepsToEnd } from './steps.js';
import {
  KnowledgeIndexNotReadyError,
  queryWords,
  type ChunkHit,
  type IndexedChunk,
  type KnowledgeIndex,
  type KnowledgeIndexReadiness,
  type KnowledgeSource,
  type LexicalQuery,
  type NearestQuery,
} from './knowledge-index.port.js';

export const SQLITE_KNOWLEDGE_FILE = 'knowledge.sqlite';

/**
 * `PRAGMA user_version` of the current schema; 0/1 is the first slice's (chunks with blobs, no search tables), 2 the
 * one whose vec0 tables kept sqlite-vec's default chunk size, 3 adds `workspace_id` to sources, 4 replaces the vec0
 * tables by HNSW graphs (usearch) over vector rows partitioned by model, workspace and agent tag (ADR 0034), 5 replaces the FTS5 table by the text rows an in-memory BM25 index follows (ADR 0034, "Lexical side").
 */
const SCHEMA_VERSION = 5;

/** Longest a background slice of graph insertion holds the event loop. */
const DRAIN_SLICE_MS = 10;
/** Graph insertion waits until no source was written for this long. */
const DRAIN_IDLE_MS = 100;
/**
 * The lexical side opens in the background in slices of DRAIN_SLICE_MS too (ADR 0034, amendment "Lexical side opened
 * in the background"): text rows read per query while it catches up (a few ms of tokenizing), removals per query.
 */
const OPEN_PAGE_ROWS = 32;
const OPEN_REMOVED_PAGE = 512;
/** A lexical search waits at most this long for the lexical side to open: the turn's recall budget (TENET_RECALL_BUDGET_MS default). */
const LEXICAL_WAIT_MS = 5_000;

/**
 * The graphs move to worker threads once the database holds this many vector rows (ADR 0034, amendment "Graphs in
 * worker threads"): below it, the inline graphs are as fast (a shard under 25,600 vectors searches at the same minimum
 * expansion as the whole graph, so splitting saves nothing) and a worker would cost its ~17 MB of RSS for nothing.
 */
export const DEFAULT_GRAPH_THREADS_FROM = 50_000;
/** Graph workers by default: one per core, at most two (the measured machine's cores; each holds a shard of every graph). */
export const defaultGraphThreads = (): number => Math.min(2, availableParallelism());
/** A graph worker saves its changed, fully inserted graphs once nothing changed for this long. */
const GRAPH_SAVE_IDLE_MS = 2_000;
/**
 * A graph worker waits for writes to pause (DRAIN_IDLE_MS) before it inserts, so a bulk ingest keeps the cores; writes
 * that never pause (a long import, a steady feed) make it insert anyway once its oldest staged vector has waited this
 * long, or its staged vectors (searched exactly) would grow without end and never be saved.
 */
const GRAPH_INSERT_DEFER_MAX_MS = 60_000;
/** The same for saving: writes that never pause keep a worker from saving what it has inserted at most this long. */
const GRAPH_SAVE_DEFER_MAX_MS = 300_000;

/** Ends the lexical side's background open when the index closes. */
class OpenStopped extends Error {}

/**
 * Background work in slices: `due` once DRAIN_SLICE_MS went since the slice began; `next` hands the event loop back
 * (setImmediate: pending I/O — a `/healthz` request — runs first) and begins the next slice, or throws OpenStopped.
 */
class Slices {
  private began = performance.now();
  constructor(
    private readonly stopped: () => boolean,
    private readonly sliceMs = DRAIN_SLICE_MS,
  ) {}

  get due(): boolean {
    return performance.now() - this.began >= this.sliceMs;
  }

  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.stopped()) throw new OpenStopped();
    this.began = performance.now();
  }

  /** Runs a generator to its end, a slice at a time (it yields every small step). */
  async run<T>(steps: Generator<void, T>): Promise<T> {
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      if (this.due) await this.next();
    }
  }
}

/** Where the lexical side's background open stands: what `readiness` says until it is done. */
interface TextOpening {
  phase: 'reading the BM25 snapshot' | 'rebuilding from the text rows' | 'applying the text rows written since the snapshot';
  /** The text row the rows are applied up to (the log's head when this pass began). */
  target: number;
}

/** Folder, next to the database file, of the persisted HNSW graphs (one file per partition). */
export const HNSW_FOLDER = 'knowledge-hnsw';
/** The BM25 index's snapshot is the database file's name with this suffix (`bm25-snapshot.ts`). */
export const BM25_SNAPSHOT_SUFFIX = '.bm25';

/**
 * A background snapshot of the BM25 index is written once at least TEXT_SAVE_MIN_CHANGES text rows and removals were
 * applied since the last one, and either no text changed for TEXT_SAVE_IDLE_MS or the changes reach TEXT_SAVE_SHARE
 * of the documents held. What a kill -9 leaves to replay on open is then under 5,000 rows once writes pause (~1 s of
 * tokenizing), and under a quarter of the index during a long bulk ingest, whose saves (a pass over the whole index
 * each) stay geometric — about 5× the final index written in all — instead of one every 5,000 rows (ADR 0034,
 * amendment "BM25 snapshot").
 */
const TEXT_SAVE_MIN_CHANGES = 5_000;
const TEXT_SAVE_SHARE = 0.25;
const TEXT_SAVE_IDLE_MS = 2_000;
const TEXT_SAVE_RETRY_MS = 60_000;

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
-- BM25 side: one row per chunk, in the lexical partition of its workspace and agent tags (a JSON array: workspace,
-- then the sorted tags, none for every agent). Like the vector rows, the rows and their removals are the log the
-- in-memory index follows; the row id (never reused) is the document number, so postings are appended in order.
CREATE TABLE IF NOT EXISTS knowledge_text_rows (
  text_rowid INTEGER PRIMARY KEY AUTOINCREMENT,
  chunk      INTEGER NOT NULL UNIQUE REFERENCES knowledge_chunks(id) ON DELETE CASCADE,
  scope      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS knowledge_text_removed (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  text_rowid INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS knowledge_text_rows_removed AFTER DELETE ON knowledge_text_rows
BEGIN INSERT INTO knowledge_text_removed (text_rowid) VALUES (old.text_rowid); END;
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

/** What a hit shows of a chunk row (its vector is read only where it is scored). */
type HitRow = Omit<ChunkRow, 'vector'>;
const CHUNK_COLUMNS = 'c.id, c.chunk_id, c.source_id, c.ordinal, c.heading, c.text';

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
/** Cosine similarity of a query (with its norm) and a stored vector blob (f32, the record), in one pass. */
function cosine(query: Float32Array, queryNorm: number, blob: Buffer): number {
  const length = Math.min(query.length, Math.floor(blob.byteLength / 4));
  // A view when the blob is 4-byte aligned (it is from better-sqlite3), a copy otherwise.
  const stored =
    blob.byteOffset % 4 === 0
      ? new Float32Array(blob.buffer, blob.byteOffset, length)
      : new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + length * 4));
  let dot = 0;
  let sum = 0;
  for (let i = 0; i < stored.length; i++) {
    const x = stored[i] ?? 0;
    dot += (query[i] ?? 0) * x;
    sum += x * x;
  }
  return dot / ((queryNorm || 1) * (Math.sqrt(sum) || 1));
}

const fromBlob = (blob: Buffer): number[] => Array.from(new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));
const isZero = (vector: readonly number[]): boolean => vector.every((x) => x === 0);

const EVERY_AGENT = '*';
const DEFAULT_WORKSPACE = 'default';
/** Vector partition key: the embedding model and size, the workspace and one agent tag. */
const vecScope = (embeddingModel: string, dims: number, workspace: string, agent: string): string =>
  `${embeddingModel}\u001f${dims}\u001f${workspace}\u001f${agent}`;
/** Lexical partition key: the workspace and the source's agent tags (sorted; none: every agent), so each chunk is in one. */
const textScope = (source: KnowledgeSource): string => JSON.stringify([workspaceOf(source), ...[...new Set(source.agentIds)].sort()]);
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
  (scope.workspaceId === undefined || workspaceOf(source) === scope.workspaceId) &&
  (scope.agentId === undefined || source.agentIds.length === 0 || source.agentIds.includes(scope.agentId));

/**
 * The embedded knowledge index (ADR 0016, ADR 0034): its own SQLite database next to the event log. Vectors are
 * searched by HNSW graphs (usearch) in memory, one per partition — embedding model, workspace and agent tag — built
 * from the vector rows of this database and saved next to it on close; text by a BM25 inverted index in memory (one
 * per workspace and set of agent tags, MaxScore top k), saved as a snapshot next to the database (on close, and in the
 * background once enough changed) and loaded on open.
 * Replacing a source is one transaction over chunks, vector rows and text rows, so a reader sees the old version or
 * the new one, never a mix; the graphs and the BM25 index follow their rows' logs (rows added, rows removed) before
 * every search, also when another process wrote them. A graph file or BM25 snapshot that is missing, unreadable or of
 * other parameters is rebuilt from the rows; an older one is brought up to date from the log. A database of an earlier schema is migrated on open
 * and its search tables rebuilt from the stored chunks.
 */
export class SqliteKnowledgeIndex implements KnowledgeIndex {
  private readonly db: Database.Database;
  private readonly hnswDir: string | undefined;
  private readonly hnsw: HnswParameters;
  private readonly partitions = new Map<string, Partition>();
  /** The vector rows and removals the graphs have applied. */
  private applied: Watermark = { adds: 0, removes: 0 };
  /** The lexical side: BM25 postings per workspace and agent tags, loaded from its snapshot or rebuilt from the text rows on open. */
  private text = new Bm25Index();
  /** The text rows and removals the BM25 index has applied. */
  private textApplied: Watermark = { adds: 0, removes: 0 };
  /** The BM25 snapshot file (none for an in-memory database), the watermark of the last one loaded or written, and a save under way. */
  private readonly textFile: string | undefined;
  private textSaved: Watermark | undefined;
  private textSaving: Promise<void> | undefined;
  private textSaveTimer: NodeJS.Timeout | undefined;
  /** When text rows or removals were last applied (performance.now()). */
  private textChangedAt = 0;
  /** When a background save last failed (performance.now()): the next waits TEXT_SAVE_RETRY_MS, not the next change. */
  private textSaveFailedAt = -Infinity;
  private textSnapshot: { loaded: boolean; loadMs: number; saveMs?: number; bytes?: number } = { loaded: false, loadMs: 0 };
  private readonly logger = new Logger(SqliteKnowledgeIndex.name);
  /** The heads query (`logHead`), prepared once: every search runs it, twice with the lexical leg. */
  private headsQuery: Database.Statement<[], { name: string; seq: number }> | undefined;
  /** Parsed lexical partition keys: [workspace, ...agent tags]. */
  private readonly textScopes = new Map<string, string[]>();
  private readonly statements = new Map<string, Database.Statement>();
  private epoch = '';
  private draining: NodeJS.Timeout | undefined;
  private lastWrite = 0;
  /** Set while the lexical side opens in the background; undefined once it answers as usual. */
  private textOpening: TextOpening | undefined;
  /** Settles when the background open ends: done, stopped by close, or failed (then `textOpenFailed` says why). */
  private readonly textOpened: Promise<void>;
  private textOpenFailed: string | undefined;
  private closing = false;
  /** Finishes a save's capture under way at once (before the index changes). */
  private textCapturing: (() => void) | undefined;
  private readonly lexicalWaitMs: number;
  private readonly lexicalOpenSliceMs: number;
  /** The database file (undefined: in memory, graphs always inline). */
  private readonly file: string | undefined;
  private readonly graphThreads: number;
  private readonly graphThreadsFrom: number;
  private readonly graphSaveIdleMs: number;
  private readonly graphInsertDeferMaxMs: number;
  private readonly graphSaveDeferMaxMs: number;
  /** The graph workers, once the vector rows reached graphThreadsFrom (starting, or answering once `threaded`). */
  private workers: GraphWorkers | undefined;
  /** Searches go to the workers (the inline graphs are dropped); before they are ready a search waits for them, bounded. */
  private threaded = false;
  /** The vector partitions' rows, for the threaded path (the inline one keeps them with its graphs), and the head they were read at. */
  private readonly partitionRows = new Map<string, PartitionRow>();
  private partitionRowsAt = -1;

  /**
   * Opens the database and the graphs, and starts opening the lexical side in the background (`whenLexicalReady`,
   * `readiness`): the constructor does not load the BM25 snapshot or rebuild the index from the text rows.
   * `lexicalWaitMs`: how long a lexical search waits for that before it fails with KnowledgeIndexNotReadyError (and how
   * long a vector search waits for the graph workers).
   * `graphThreads`: graph worker threads (default `defaultGraphThreads()`; 0: the graphs stay on the main thread);
   * `graphThreadsFrom`: the vector rows from which they start (DEFAULT_GRAPH_THREADS_FROM). A database in memory keeps
   * its graphs inline (a worker cannot open it). `graphSaveIdleMs`: a worker saves its changed graphs once nothing
   * changed for this long (GRAPH_SAVE_IDLE_MS); `graphInsertDeferMaxMs`: it inserts while writes go on once they have
   * kept it from inserting for this long (GRAPH_INSERT_DEFER_MAX_MS), and saves what it has inserted once changes have
   * waited `graphSaveDeferMaxMs` for a save (GRAPH_SAVE_DEFER_MAX_MS). `lexicalOpenSliceMs`: how long the lexical
   * side's background open works before it hands the event loop back (DRAIN_SLICE_MS; 0: after every page of rows).
   */
  constructor(
    options: {
      file?: string;
      dataDir?: string;
      hnsw?: Partial<HnswParameters>;
      lexicalWaitMs?: number;
      graphThreads?: number;
      graphThreadsFrom?: number;
      graphSaveIdleMs?: number;
      graphInsertDeferMaxMs?: number;
      graphSaveDeferMaxMs?: number;
      lexicalOpenSliceMs?: number;
    } = {},
  ) {
    const file = options.file ?? (options.dataDir ? join(options.dataDir, SQLITE_KNOWLEDGE_FILE) : ':memory:');
    this.file = file !== ':memory:' ? file : undefined;
    this.graphThreads = this.file ? (options.graphThreads ?? defaultGraphThreads()) : 0;
    if (!Number.isInteger(this.graphThreads) || this.graphThreads < 0)
      throw new RangeError(`graphThreads must be a whole number ≥ 0, got ${options.graphThreads}`);
    this.graphThreadsFrom = options.graphThreadsFrom ?? DEFAULT_GRAPH_THREADS_FROM;
    this.graphSaveIdleMs = options.graphSaveIdleMs ?? GRAPH_SAVE_IDLE_MS;
    this.graphInsertDeferMaxMs = options.graphInsertDeferMaxMs ?? GRAPH_INSERT_DEFER_MAX_MS;
    this.graphSaveDeferMaxMs = options.graphSaveDeferMaxMs ?? GRAPH_SAVE_DEFER_MAX_MS;
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.hnswDir = file !== ':memory:' ? join(dirname(file), HNSW_FOLDER) : undefined;
    this.textFile = file !== ':memory:' ? `${file}${BM25_SNAPSHOT_SUFFIX}` : undefined;
    this.hnsw = { ...DEFAULT_HNSW, ...options.hnsw };
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.transaction(() => this.migrate())();
    this.lexicalWaitMs = options.lexicalWaitMs ?? LEXICAL_WAIT_MS;
    this.lexicalOpenSliceMs = options.lexicalOpenSliceMs ?? DRAIN_SLICE_MS;
    this.db.transaction(() => this.openGraphs())();
    // After the open's transaction: the workers read the committed graph epoch and rows.
    if (this.threaded) this.startWorkers();
    if (this.logHead().text.adds === 0) {
      // No text row was ever written: nothing to load or rebuild (a new knowledge base).
      this.textOpened = Promise.resolve();
      return;
    }
    this.textOpening = { phase: 'reading the BM25 snapshot', target: 0 };
    this.textOpened = this.openText().catch((error: unknown) => {
      if (error instanceof OpenStopped) return;
      this.textOpenFailed = error instanceof Error ? error.message : String(error);
      this.logger.error(`lexical side of the knowledge index not opened: ${this.textOpenFailed}`);
    });
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    const columns = this.db.prepare(`SELECT name FROM pragma_table_info('knowledge_chunks')`).all() as { name: string }[];
    const firstSlice = columns.length > 0 && !columns.some((c) => c.name === 'id');
    if (firstSlice)
      this.db.exec('ALTER TABLE knowledge_chunks RENAME TO knowledge_chunks_v1; DROP INDEX IF EXISTS knowledge_chunks_by_source;');
    if (version < 4) {
      // Schema 2/3's vector rows (no scope) and vec0 tables: dropping a vec0 table needs its module.
      const vec0 = this.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'knowledge_vec_[0-9]*'`).all() as {
        name: string;
      }[];
      if (vec0.length > 0) sqliteVec.load(this.db);
      for (const { name } of vec0) this.db.exec(`DROP TABLE ${name}`);
      this.db.exec('DROP TABLE IF EXISTS knowledge_vec_rows;');
    }
    if (version < SCHEMA_VERSION) this.db.exec('DROP TABLE IF EXISTS knowledge_fts;');
    this.db.exec(SCHEMA);
    const sourceColumns = this.db.prepare(`SELECT name FROM pragma_table_info('knowledge_sources')`).all() as { name: string }[];
    if (!sourceColumns.some((c) => c.name === 'workspace_id')) this.db.exec('ALTER TABLE knowledge_sources ADD COLUMN workspace_id TEXT');
    if (version >= SCHEMA_VERSION) return;
    if (version === 4) {
      // Only the lexical side changed: a text row per stored chunk; the vector rows and graphs stay.
      const addText = this.db.prepare(
        'INSERT INTO knowledge_text_rows (chunk, scope) SELECT id, ? FROM knowledge_chunks WHERE source_id = ? ORDER BY ordinal',
      );
      for (const row of this.db.prepare('SELECT * FROM knowledge_sources').all() as SourceRow[])
        addText.run(textScope(toSource(row)), row.source_id);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return;
    }
    if (firstSlice) {
      this.db.exec(
        `INSERT INTO knowledge_chunks (chunk_id, source_id, ordinal, heading, text, vector)
         SELECT chunk_id, source_id, ordinal, heading, text, vector FROM knowledge_chunks_v1 ORDER BY source_id, ordinal;
         DROP TABLE knowledge_chunks_v1;`,
      );
    }
    // Rebuild both search sides from the stored chunks.
    this.db.exec(
      `DELETE FROM knowledge_vec_partitions; DELETE FROM knowledge_vec_removed; DELETE FROM knowledge_meta WHERE key = 'graph_epoch';`,
    );
    if (this.hnswDir) rmSync(this.hnswDir, { recursive: true, force: true });
    const chunksOf = this.db.prepare('SELECT * FROM knowledge_chunks WHERE source_id = ? ORDER BY ordinal');
    for (const row of this.db.prepare('SELECT * FROM knowledge_sources').all() as SourceRow[]) {
      const source = toSource(row);
      for (const chunk of chunksOf.all(source.sourceId) as ChunkRow[]) this.indexChunk(source, chunk.id, fromBlob(chunk.vector));
    }
    this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }

  /** The logs' heads: the last vector and text rows and removals ever written (AUTOINCREMENT: never reused). */
  private logHead(): { vectors: Watermark; text: Watermark } {
    this.headsQuery ??= this.db.prepare<[], { name: string; seq: number }>(
      `SELECT name, seq FROM sqlite_sequence WHERE name GLOB 'knowledge_*'`,
    );
    const rows = this.headsQuery.all();
    const seq = (name: string): number => rows.find((r) => r.name === name)?.seq ?? 0;
    return {
      vectors: { adds: seq('knowledge_vec_rows'), removes: seq('knowledge_vec_removed') },
      text: { adds: seq('knowledge_text_rows'), removes: seq('knowledge_text_removed') },
    };
  }

  /** Applies the text rows and removals between two watermarks to the BM25 index (inside a read transaction). */
  private applyText(from: Watermark, to: Watermark): void {
    if (to.adds > from.adds) {
      const rows = this.statement(
        `SELECT t.text_rowid AS doc, t.scope, c.heading, c.text FROM knowledge_text_rows t JOIN knowledge_chunks c ON c.id = t.chunk WHERE t.text_rowid > ? AND t.text_rowid <= ? ORDER BY t.text_rowid`,
      ).iterate(from.adds, to.adds) as IterableIterator<{ doc: number; scope: string; heading: string; text: string }>;
      for (const row of rows) this.text.add(row.doc, row.scope, `${row.heading}\n${row.text}`);
    }
    if (to.removes > from.removes) {
      for (const { doc } of this.statement('SELECT text_rowid AS doc FROM knowledge_text_removed WHERE seq > ? AND seq <= ?').all(
        from.removes,
        to.removes,
      ) as { doc: number }[])
        this.text.remove(doc);
    }
  }

  /** Every partition's graph, loaded from its file and brought up to date from the log, or rebuilt from the rows (inside a read transaction). */
  private openGraphs(): void {
    this.db.prepare(`INSERT OR IGNORE INTO knowledge_meta (key, value) VALUES ('graph_epoch', ?)`).run(randomUUID());
    this.epoch = (this.db.prepare(`SELECT value FROM knowledge_meta WHERE key = 'graph_epoch'`).get() as { value: string }).value;
    const { vectors: head } = this.logHead();
    if (
      this.graphThreads > 0 &&
      (this.db.prepare('SELECT count(*) AS n FROM knowledge_vec_rows').get() as { n: number }).n >= this.graphThreadsFrom
    ) {
      // Threaded from the start: the workers load the graph files and stage the log themselves, off the event loop.
      this.threaded = true;
      this.applied = head;
      return;
    }
    const rowsOf = this.db.prepare(
      'SELECT r.vec_rowid AS key, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.scope = ? AND r.vec_rowid > ? AND r.vec_rowid <= ? ORDER BY r.vec_rowid',
    );
    const removedOf = this.db.prepare('SELECT vec_rowid AS key FROM knowledge_vec_removed WHERE scope = ? AND seq > ? AND seq <= ?');
    for (const row of this.db.prepare('SELECT * FROM knowledge_vec_partitions').all() as PartitionRow[]) {
      const { graph, from } = HnswPartition.open(
        { epoch: this.epoch, scope: row.scope, dims: row.dims, params: this.hnsw },
        this.hnswDir,
        head,
      );
      this.stageRows(graph, rowsOf.all(row.scope, from.adds, head.adds) as { key: number; vector: Buffer }[]);
      for (const { key } of removedOf.all(row.scope, from.removes, head.removes) as { key: number }[]) graph.remove(key);
      this.partitions.set(row.scope, { ...row, graph });
    }
    this.applied = head;
    this.scheduleDrain();
  }

  /**
   * Opens the lexical side in the background, a slice of DRAIN_SLICE_MS at a time: the BM25 snapshot read and
   * restored, or the index rebuilt from the text rows, then the rows and removals written since (also those written
   * while it ran, by this process or another) applied in pages until it has caught up with the log. Searches and
   * saves leave the BM25 index alone until then.
   */
  private async openText(): Promise<void> {
    const slices = new Slices(() => this.closing || !this.db.open, this.lexicalOpenSliceMs);
    const loaded = await this.loadTextSnapshot(slices);
    if (loaded) this.textApplied = loaded;
    else {
      // Rows removed before now are not read, so their removals need not be applied: the rebuild starts at the last one.
      this.text = new Bm25Index();
      this.textApplied = { adds: 0, removes: this.logHead().text.removes };
      this.textOpening = { phase: 'rebuilding from the text rows', target: 0 };
    }
    for (;;) {
      const head = this.logHead().text;
      if (head.adds === this.textApplied.adds && head.removes === this.textApplied.removes) break;
      if (this.textOpening && loaded) this.textOpening.phase = 'applying the text rows written since the snapshot';
      if (this.textOpening) this.textOpening.target = head.adds;
      await this.applyTextInSlices(head, slices);
    }
    this.textOpening = undefined;
    this.textChangedAt = performance.now();
    this.scheduleTextSave();
  }

  /**
   * Applies the text rows and removals up to `to` in pages, one read each: a row is added if it is there when its page
   * is read, a removal of a document not held does nothing, so a row removed before its page is skipped and one removed
   * after is taken out when the loop reaches its removal. Rows are numbered in commit order, so none can appear
   * later below a page already read.
   */
  private async applyTextInSlices(to: Watermark, slices: Slices): Promise<void> {
    const page = this.statement(
      `SELECT t.text_rowid AS doc, t.scope, c.heading, c.text FROM knowledge_text_rows t JOIN knowledge_chunks c ON c.id = t.chunk WHERE t.text_rowid > ? AND t.text_rowid <= ? ORDER BY t.text_rowid LIMIT ${OPEN_PAGE_ROWS}`,
    );
    while (this.textApplied.adds < to.adds) {
      const rows = page.all(this.textApplied.adds, to.adds) as { doc: number; scope: string; heading: string; text: string }[];
      for (const row of rows) this.text.add(row.doc, row.scope, `${row.heading}\n${row.text}`);
      const last = rows.at(-1);
      this.textApplied = { ...this.textApplied, adds: rows.length < OPEN_PAGE_ROWS || !last ? to.adds : last.doc };
      if (slices.due) await slices.next();
    }
    const removed = this.statement(
      `SELECT seq, text_rowid AS doc FROM knowledge_text_removed WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ${OPEN_REMOVED_PAGE}`,
    );
    while (this.textApplied.removes < to.removes) {
      const rows = removed.all(this.textApplied.removes, to.removes) as { seq: number; doc: number }[];
      for (const { doc } of rows) this.text.remove(doc);
      const last = rows.at(-1);
      this.textApplied = { ...this.textApplied, removes: rows.length < OPEN_REMOVED_PAGE || !last ? to.removes : last.seq };
      if (slices.due) await slices.next();
    }
  }

  /**
   * Loads the BM25 snapshot if it is this database's (graph epoch), not ahead of the log, and holds exactly the
   * documents the rows say it should at its watermark (their count and id sum): answers that watermark, to apply the
   * log from. The file is read asynchronously, checked and restored in slices. Anything else — no file, another
   * format, damaged, another database's, a database put back to an older copy — is logged (no content) and answers
   * undefined: the index is rebuilt from the rows.
   */
  private async loadTextSnapshot(slices: Slices): Promise<Watermark | undefined> {
    const started = performance.now();
    if (!this.textFile) return undefined;
    let bytes: Buffer;
    try {
      bytes = await readFile(this.textFile);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.logger.warn(
          `BM25 snapshot ${this.textFile} unreadable (${(error as NodeJS.ErrnoException).code}): rebuilding from the text rows`,
        );
      return undefined;
    }
    await slices.next();
    try {
      const { state, meta } = await slices.run(parseBm25Snapshot(bytes));
      if (meta.epoch !== this.epoch) throw new Bm25SnapshotError('written for another database (graph epoch)');
      const { adds, removes } = meta.watermark;
      // The documents held at the watermark are the rows up to it still here, and those of them removed after it
      // (one read transaction: a write between the two would count a row twice or not at all).
      const held = this.db.transaction(() => {
        const head = this.logHead().text;
        if (adds > head.adds || removes > head.removes)
          throw new Bm25SnapshotError(`ahead of the log (${adds}/${removes} applied, the log ends at ${head.adds}/${head.removes})`);
        const kept = this.statement(
          'SELECT count(*) AS n, coalesce(sum(text_rowid), 0) AS sum FROM knowledge_text_rows WHERE text_rowid <= ?',
        ).get(adds) as { n: number; sum: number } | undefined;
        const removedSince = this.statement(
          'SELECT count(*) AS n, coalesce(sum(text_rowid), 0) AS sum FROM knowledge_text_removed WHERE seq > ? AND text_rowid <= ?',
        ).get(removes, adds) as { n: number; sum: number } | undefined;
        return { n: (kept?.n ?? 0) + (removedSince?.n ?? 0), sum: (kept?.sum ?? 0) + (removedSince?.sum ?? 0) };
      })();
      if (held.n !== meta.docs || held.sum !== meta.docIdSum)
        throw new Bm25SnapshotError(`holds other documents than the text rows up to its watermark (${meta.docs} vs ${held.n})`);
      if (slices.due) await slices.next();
      this.text = await slices.run(Bm25Index.restoring(state));
      this.textSaved = meta.watermark;
      this.textSnapshot = { loaded: true, loadMs: performance.now() - started };
      return meta.watermark;
    } catch (error) {
      if (error instanceof OpenStopped) throw error;
      const reason = error instanceof Bm25SnapshotError || error instanceof RangeError ? error.message : String((error as Error).name);
      this.logger.warn(`BM25 snapshot ${this.textFile} not loaded (${reason}): rebuilding from the text rows`);
      // Gone, so it cannot match later: a database put back to an older copy reaches its watermark again with other rows.
      try {
        rmSync(this.textFile, { force: true });
      } catch {
        // Not removable (a directory, permissions): the checks above turn it down again next time.
      }
      return undefined;
    }
  }

  /** Resolves once the lexical side answers as usual (at once when it does); rejects when its open failed or the index closed first. */
  async whenLexicalReady(): Promise<void> {
    await this.textOpened;
    if (this.textOpening) throw new KnowledgeIndexNotReadyError(this.textOpenFailed ?? 'closed while opening');
  }

  /**
   * Not ready while the lexical side opens in the background (what it is doing and how far it got), then while the
   * graph workers a threaded index searches have not loaded their shards.
   */
  readiness(): KnowledgeIndexReadiness {
    const lexical = this.lexicalReadiness();
    return lexical.ready ? this.graphReadiness() : lexical;
  }

  private lexicalReadiness(): KnowledgeIndexReadiness {
    const opening = this.textOpening;
    if (!opening) return { ready: true };
    if (this.textOpenFailed) return { ready: false, reason: `lexical side failed to open: ${this.textOpenFailed}` };
    const progress =
      opening.target > 0 ? ` (text row ${this.textApplied.adds.toLocaleString('en')} of ${opening.target.toLocaleString('en')})` : '';
    return { ready: false, reason: `lexical side opening: ${opening.phase}${progress}` };
  }

  /** Not ready while searches go to graph workers that have not loaded their shards yet (opened above the threshold, or restarting). */
  private graphReadiness(): KnowledgeIndexReadiness {
    const workers = this.workers;
    if (!this.threaded || !workers || workers.readyCount === workers.threads) return { ready: true };
    return {
      ready: false,
      reason: `vector graphs opening in worker threads: loading the graph files and the vector rows after them (${workers.readyCount} of ${workers.threads} shards ready)`,
    };
  }

  /** Schedules a background BM25 snapshot once enough has changed since the last (TEXT_SAVE_MIN_CHANGES, TEXT_SAVE_IDLE_MS, TEXT_SAVE_SHARE). */
  private scheduleTextSave(): void {
    if (!this.textFile || this.textSaveTimer || this.textSaving || this.textOpening || !this.db.open) return;
    if (performance.now() - this.textSaveFailedAt < TEXT_SAVE_RETRY_MS) return;
    const saved = this.textSaved ?? { adds: 0, removes: 0 };
    const changed = this.textApplied.adds - saved.adds + (this.textApplied.removes - saved.removes);
    if (changed < TEXT_SAVE_MIN_CHANGES) return;
    const grown = changed >= TEXT_SAVE_SHARE * this.text.size;
    this.textSaveTimer = setTimeout(
      () => {
        this.textSaveTimer = undefined;
        if (!this.db.open) return;
        if (grown || performance.now() - this.textChangedAt >= TEXT_SAVE_IDLE_MS) void this.saveText();
        else this.scheduleTextSave();
      },
      grown ? 0 : Math.max(0, TEXT_SAVE_IDLE_MS - (performance.now() - this.textChangedAt)),
    );
    // Not a reason to stay alive: what is not saved at exit is in the log.
    this.textSaveTimer.unref();
  }

  /**
   * Writes the BM25 snapshot if the index moved since the last one loaded or written; one save at a time. The index
   * is captured (a pass over its documents, in slices, finished at once if the index is about to change) and written
   * in chunks between turns of the event loop while it goes on changing. A failure is logged, not thrown: the log is
   * still there to rebuild from.
   */
  private async saveText(): Promise<void> {
    while (this.textSaving) await this.textSaving;
    const file = this.textFile;
    const at = this.textApplied;
    // Never a snapshot of a half-opened index: it would be loaded next time as whole.
    if (!file || this.textOpening || (this.textSaved?.adds === at.adds && this.textSaved.removes === at.removes)) return;
    const started = performance.now();
    const saving = this.captureText()
      .then((state) => writeBm25Snapshot(file, state, { epoch: this.epoch, watermark: at }))
      .then((bytes) => {
        this.textSaved = at;
        this.textSnapshot = { ...this.textSnapshot, saveMs: performance.now() - started, bytes };
      })
      .catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        this.textSaveFailedAt = performance.now();
        this.logger.warn(`BM25 snapshot ${file} not written (${code ?? (error as Error).message}): the next open replays more of the log`);
      })
      .finally(() => {
        this.textSaving = undefined;
        // What changed while this one was written may call for the next.
        this.scheduleTextSave();
      });
    this.textSaving = saving;
    await saving;
  }

  /**
   * The BM25 index captured for a save, a slice at a time; a change to the index meanwhile (`catchUp`) first
   * finishes the capture at once, so what is captured is the index at the save's watermark.
   */
  private async captureText(): Promise<Bm25State<'parts'>> {
    const steps = this.text.capturing();
    let captured: Bm25State<'parts'> | undefined;
    // Called before each change to the index while the capture is under way: once, since a finished generator answers
    // undefined (a second call used to clear the capture and leave the loop below spinning forever).
    const finish = (): void => {
      if (this.textCapturing === finish) this.textCapturing = undefined;
      captured ??= stepsToEnd(steps);
    };
    this.textCapturing = finish;
    try {
      let began = performance.now();
      while (!captured) {
        const step = steps.next();
        if (step.done) captured = step.value;
        else if (performance.now() - began >= DRAIN_SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          began = performance.now();
        }
      }
      return captured;
    } finally {
      if (this.textCapturing === finish) this.textCapturing = undefined;
    }
  }

  /** The BM25 snapshot as this index last used it: loaded on open or not (and how long that took), the last save's time and size. */
  get lexicalSnapshot(): { loaded: boolean; loadMs: number; saveMs?: number; bytes?: number } {
    return { ...this.textSnapshot };
  }

  private stageRows(graph: HnswPartition, rows: readonly { key: number; vector: Buffer }[]): void {
    for (const row of rows) graph.stageBlob(row.key, row.vector);
  }

  /**
   * Inserts staged vectors into the graphs in slices of DRAIN_SLICE_MS, one per turn of the event loop, once no write
   * came for DRAIN_IDLE_MS and the lexical side is open: insertion yields to ingestion and to the lexical side's open
   * (staged vectors are searched exactly meanwhile). The timer
   * does not keep the process alive: what is left staged at exit is in the log for the next open.
   */
  private scheduleDrain(): void {
    // Once graph workers exist the inline graphs only answer until they are ready: no more insertion on the event loop.
    if (this.draining || !this.db.open || this.workers) return;
    const idleFor = performance.now() - this.lastWrite;
    this.draining = setTimeout(
      () => {
        this.draining = undefined;
        if (!this.db.open || this.workers) return;
        // The lexical side's open goes first (unless it failed): readiness waits for it, while staged vectors are searched exactly.
        const lexicalFirst = this.textOpening !== undefined && this.textOpenFailed === undefined;
        if (performance.now() - this.lastWrite >= DRAIN_IDLE_MS && !lexicalFirst) {
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
   * Inserts every staged vector into its graph now, blocking (on this thread): for a caller that wants the
   * graphs complete before it measures or saves (the benchmark). Searches are exact on staged vectors without it.
   */
  async drainGraphs(): Promise<void> {
    this.catchUp();
    if (this.workers) {
      // Once the workers exist they take over (the inline graphs are dropped when they are ready): inserting into the
      // inline graphs too would do the work twice, on the event loop.
      await this.workers.drain(this.applied);
      return;
    }
    for (const { graph } of this.partitions.values()) graph.drain(Infinity, true);
  }

  /** Vectors written but not yet in an inline graph (searched exactly meanwhile); see graphWorkerStats for the workers'. */
  get stagedVectors(): number {
    return [...this.partitions.values()].reduce((sum, p) => sum + p.graph.pending, 0);
  }

  /** Applies the vector rows and removals written since the graphs were last brought up to date, by this process or another. */
  private catchUp(): void {
    const { vectors: head, text } = this.logHead();
    // While the lexical side opens, its background pass applies the text rows (openText).
    if (!this.textOpening && (text.adds !== this.textApplied.adds || text.removes !== this.textApplied.removes)) {
      this.textCapturing?.();
      this.db.transaction(() => this.applyText(this.textApplied, text))();
      this.textApplied = text;
      this.textChangedAt = performance.now();
      this.scheduleTextSave();
    }
    if (head.adds === this.applied.adds && head.removes === this.applied.removes) return;
    this.workers?.announce(head);
    if (this.threaded) {
      this.applied = head;
      return;
    }
    this.db.transaction(() => {
      const added = this.statement(
        'SELECT r.vec_rowid AS key, r.scope, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.vec_rowid > ? AND r.vec_rowid <= ? ORDER BY r.vec_rowid',
      ).all(this.applied.adds, head.adds) as { key: number; scope: string; vector: Buffer }[];
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
      for (const { key, scope } of this.statement(
        'SELECT vec_rowid AS key, scope FROM knowledge_vec_removed WHERE seq > ? AND seq <= ?',
      ).all(this.applied.removes, head.removes) as { key: number; scope: string }[]) {
        this.partitions.get(scope)?.graph.remove(key);
      }
    })();
    this.applied = head;
    this.scheduleDrain();
    if (!this.workers && this.graphThreads > 0 && this.inlineVectors >= this.graphThreadsFrom) this.startWorkers();
  }

  /** Vectors in the inline graphs and staged for them. */
  private get inlineVectors(): number {
    let n = 0;
    for (const { graph } of this.partitions.values()) n += graph.size + graph.pending;
    return n;
  }

  /**
   * Starts the graph workers. Opened below the threshold, the inline graphs keep answering until every worker has
   * loaded its shard and staged the log; then searches go to the workers and the inline graphs are dropped.
   */
  private startWorkers(): void {
    if (!this.file || !this.hnswDir) return;
    this.logger.log(`knowledge index: vector graphs move to ${this.graphThreads} worker threads (${this.applied.adds} vector rows)`);
    this.workers = new GraphWorkers({
      file: this.file,
      dir: this.hnswDir,
      threads: this.graphThreads,
      params: this.hnsw,
      epoch: this.epoch,
      drainIdleMs: DRAIN_IDLE_MS,
      saveIdleMs: this.graphSaveIdleMs,
      insertDeferMaxMs: this.graphInsertDeferMaxMs,
      saveDeferMaxMs: this.graphSaveDeferMaxMs,
      onReady: () => {
        if (this.threaded || !this.db.open) return;
        this.threaded = true;
        this.partitions.clear();
        if (this.draining) clearTimeout(this.draining);
        this.draining = undefined;
      },
    });
  }

  /** Whether searches go to the graph workers (`threaded`), how many there are and how many can answer now. */
  get graphMode(): { threaded: boolean; workers: number; ready: number; restarts: number } {
    return {
      threaded: this.threaded,
      workers: this.workers?.threads ?? 0,
      ready: this.workers?.readyCount ?? 0,
      restarts: this.workers?.restarts ?? 0,
    };
  }

  /** What each graph worker reports of its shard (empty when the graphs are inline). */
  async graphWorkerStats(): Promise<GraphShardStats[]> {
    return this.workers ? this.workers.stats() : [];
  }

  /** Ends graph worker `shard` as a crash would (tests): it is restarted and searches wait for it, bounded. */
  async crashGraphWorker(shard: number): Promise<void> {
    await this.workers?.crash(shard);
  }

  /** The vector partitions' rows (threaded path): read again when vector rows were added since. */
  private partitionRowsNow(): Iterable<PartitionRow> {
    if (this.partitionRowsAt !== this.applied.adds) {
      for (const row of this.statement('SELECT * FROM knowledge_vec_partitions').all() as PartitionRow[])
        this.partitionRows.set(row.scope, row);
      this.partitionRowsAt = this.applied.adds;
    }
    return this.partitionRows.values();
  }

  /** The partition of a scope, created (empty) the first time a vector row of it is seen. */
  private partition(scope: string): Partition | undefined {
    const known = this.partitions.get(scope);
    if (known) return known;
    const row = this.statement('SELECT * FROM knowledge_vec_partitions WHERE scope = ?').get(scope) as PartitionRow | undefined;
    if (!row) return undefined;
    const partition = { ...row, graph: new HnswPartition(this.epoch, row.scope, row.dims, this.hnsw) };
    this.partitions.set(scope, partition);
    return partition;
  }

  /** Writes one stored chunk's search rows (inside the caller's transaction); the graphs pick the vector rows up from the log. */
  private indexChunk(source: KnowledgeSource, id: number, vector: readonly number[]): void {
    const agents = agentsOf(source);
    const workspace = workspaceOf(source);
    this.statement('INSERT INTO knowledge_text_rows (chunk, scope) VALUES (?, ?)').run(id, textScope(source));
    // A zero vector (blank text offline) is similar to nothing: it is not worth a graph node.
    if (vector.length === 0 || isZero(vector)) return;
    const partition = this.statement(
      'INSERT OR IGNORE INTO knowledge_vec_partitions (scope, embedding_model, dims, workspace_id, agent) VALUES (?, ?, ?, ?, ?)',
    );
    const row = this.statement('INSERT INTO knowledge_vec_rows (chunk, scope) VALUES (?, ?)');
    for (const agent of agents) {
      const scope = vecScope(source.embeddingModel, vector.length, workspace, agent);
      partition.run(scope, source.embeddingModel, vector.length, workspace, agent);
      row.run(id, scope);
    }
  }

  /** Removes a source's chunks and their search rows (inside the caller's transaction); the trigger logs the vector rows' removal. */
  private clearChunks(sourceId: string): void {
    this.statement('DELETE FROM knowledge_vec_rows WHERE chunk IN (SELECT id FROM knowledge_chunks WHERE source_id = ?)').run(sourceId);
    this.statement('DELETE FROM knowledge_text_rows WHERE chunk IN (SELECT id FROM knowledge_chunks WHERE source_id = ?)').run(sourceId);
    this.statement('DELETE FROM knowledge_chunks WHERE source_id = ?').run(sourceId);
  }

  async replaceSource(source: KnowledgeSource, chunks: readonly IndexedChunk[]): Promise<void> {
    const upsert = this.statement(
      `INSERT INTO knowledge_sources (source_id, title, url, format, agent_ids, content_hash, chunk_count, embedding_model, ingested_at, workspace_id)
       VALUES (@source_id, @title, @url, @format, @agent_ids, @content_hash, @chunk_count, @embedding_model, @ingested_at, @workspace_id)
       ON CONFLICT(source_id) DO UPDATE SET title = excluded.title, url = excluded.url, format = excluded.format,
         agent_ids = excluded.agent_ids, content_hash = excluded.content_hash, chunk_count = excluded.chunk_count,
         embedding_model = excluded.embedding_model, ingested_at = excluded.ingested_at, workspace_id = excluded.workspace_id`,
    );
    const insert = this.statement(
      'INSERT INTO knowledge_chunks (chunk_id, source_id, ordinal, heading, text, vector) VALUES (?, ?, ?, ?, ?, ?)',
    );
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
        if (chunk.sourceId !== source.sourceId)
          throw new RangeError(`chunk ${chunk.chunkId} belongs to source ${chunk.sourceId}, not ${source.sourceId}`);
        const id = Number(
          insert.run(chunk.chunkId, source.sourceId, chunk.ordinal, chunk.heading, chunk.text, toBlob(chunk.vector)).lastInsertRowid,
        );
        this.indexChunk(source, id, chunk.vector);
      }
    })();
    this.lastWrite = performance.now();
    this.catchUp();
  }

  async getSource(sourceId: string): Promise<KnowledgeSource | undefined> {
    const row = this.statement('SELECT * FROM knowledge_sources WHERE source_id = ?').get(sourceId) as SourceRow | undefined;
    return row ? toSource(row) : undefined;
  }

  async listSources(): Promise<KnowledgeSource[]> {
    return (this.statement('SELECT * FROM knowledge_sources ORDER BY ingested_at, source_id').all() as SourceRow[]).map(toSource);
  }

  async deleteSource(sourceId: string): Promise<boolean> {
    const deleted = this.db.transaction(() => {
      this.clearChunks(sourceId);
      return this.statement('DELETE FROM knowledge_sources WHERE source_id = ?').run(sourceId).changes > 0;
    })();
    this.lastWrite = performance.now();
    this.catchUp();
    return deleted;
  }

  async sourceChunks(sourceId: string): Promise<IndexedChunk[]> {
    return (this.statement('SELECT * FROM knowledge_chunks WHERE source_id = ? ORDER BY ordinal').all(sourceId) as ChunkRow[]).map(
      (row) => ({
        chunkId: row.chunk_id,
        sourceId: row.source_id,
        ordinal: row.ordinal,
        heading: row.heading,
        text: row.text,
        vector: fromBlob(row.vector),
      }),
    );
  }

  async nearest(query: NearestQuery): Promise<ChunkHit[]> {
    const dims = query.vector.length;
    if (dims === 0 || isZero(query.vector) || query.k < 1) return [];
    this.catchUp();
    // The partitions to search: this agent's and the untagged one, in the query's workspace (every workspace's when
    // none is given); without an agent, every tag's.
    const searchable = (p: PartitionRow): boolean =>
      p.embedding_model === query.embeddingModel &&
      p.dims === dims &&
      (query.workspaceId === undefined || p.workspace_id === query.workspaceId) &&
      (query.agentId === undefined || p.agent === query.agentId || p.agent === EVERY_AGENT);
    const vector = Float32Array.from(query.vector);
    // Each graph's top max(k, rerank) candidates (ranked on its quantized vectors), re-scored below with the stored
    // f32 vectors: the score of a hit is its exact cosine whatever the graph's quantization.
    const candidates = new Set<number>();
    const width = Math.max(query.k, this.hnsw.rerank);
    if (this.threaded && this.workers) {
      // Posted before the caller's lexical side runs (KnowledgeService.search starts this side first): the workers search
      // their shards while the event loop ranks BM25.
      const scopes = [...this.partitionRowsNow()].filter(searchable).map((p) => p.scope);
      if (scopes.length === 0) return [];
      for (const keys of await this.workers.search(this.applied, scopes, vector, width, this.lexicalWaitMs))
        for (const key of keys) candidates.add(key);
    } else
      for (const { graph } of [...this.partitions.values()].filter(searchable))
        for (const { key } of graph.search(vector, width)) candidates.add(key);
    if (candidates.size === 0 || !this.db.open) return [];
    // The candidates' ids and f32 vectors only (one statement, prepared once): the chunk rows' other columns are read
    // for the top k alone.
    const rows = this.statement(
      'SELECT r.vec_rowid, c.id, c.chunk_id, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.vec_rowid IN (SELECT value FROM json_each(?))',
    ).all(JSON.stringify([...candidates])) as { vec_rowid: number; id: number; chunk_id: string; vector: Buffer }[];
    let squares = 0;
    for (const x of vector) squares += x * x;
    const queryNorm = Math.sqrt(squares);
    // A chunk tagged to several agents has a row per tag: keep it once.
    const best = new Map<string, { id: number; chunkId: string; score: number }>();
    for (const row of rows) {
      if (best.has(row.chunk_id)) continue;
      best.set(row.chunk_id, { id: row.id, chunkId: row.chunk_id, score: cosine(vector, queryNorm, row.vector) });
    }
    const top = [...best.values()].sort((a, b) => b.score - a.score || a.chunkId.localeCompare(b.chunkId)).slice(0, query.k);
    const scores = new Map(top.map((t) => [t.id, t.score]));
    return this.hits(
      this.chunkRows(top.map((t) => t.id)).map((row) => ({ row, score: scores.get(row.id) ?? 0 })),
      query.k,
      query,
    );
  }

  async lexical(query: LexicalQuery): Promise<ChunkHit[]> {
    if (queryWords(query.text).length === 0 || query.k < 1) return [];
    if (this.textOpening) await this.lexicalReadyWithin(this.lexicalWaitMs);
    this.catchUp();
    // The partitions to search: the query's workspace (every workspace's when none is given), tagged to its agent or untagged.
    const searched = (scope: string): boolean => {
      let parsed = this.textScopes.get(scope);
      if (!parsed) {
        parsed = JSON.parse(scope) as string[];
        this.textScopes.set(scope, parsed);
      }
      const [workspace, ...agents] = parsed;
      return (
        (query.workspaceId === undefined || workspace === query.workspaceId) &&
        (query.agentId === undefined || agents.length === 0 || agents.includes(query.agentId))
      );
    };
    const found = this.text.search(query.text, query.k, searched);
    if (found.length === 0) return [];
    const scores = new Map(found.map((f) => [f.doc, f.score]));
    const rows = this.statement(
      `SELECT t.text_rowid, ${CHUNK_COLUMNS} FROM knowledge_text_rows t JOIN knowledge_chunks c ON c.id = t.chunk WHERE t.text_rowid IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify([...scores.keys()])) as (HitRow & { text_rowid: number })[];
    return this.hits(
      rows.map((row) => ({ row, score: scores.get(row.text_rowid) ?? 0 })),
      query.k,
      query,
    );
  }

  /**
   * Waits for the lexical side to open, at most `ms`: a search answers from the whole hybrid index or fails, never from
   * the vector side alone without saying so (ADR 0034, amendment "Lexical side opened in the background").
   */
  private async lexicalReadyWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), ms);
    });
    try {
      await Promise.race([this.textOpened, waited]);
    } finally {
      clearTimeout(timer);
    }
    const state = this.lexicalReadiness();
    if (!state.ready) throw new KnowledgeIndexNotReadyError(`${state.reason}; waited ${ms} ms`);
  }

  /** The chunk rows of these ids, without their vectors (what a hit shows). */
  private chunkRows(ids: readonly number[]): HitRow[] {
    if (ids.length === 0) return [];
    return this.statement(`SELECT ${CHUNK_COLUMNS} FROM knowledge_chunks c WHERE c.id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(ids),
    ) as HitRow[];
  }

  /** A statement prepared once per SQL text and kept (searches run the same few). */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private hits(found: { row: HitRow; score: number }[], k: number, scope: { agentId?: string; workspaceId?: string }): ChunkHit[] {
    const top = found.sort((a, b) => b.score - a.score || a.row.chunk_id.localeCompare(b.row.chunk_id)).slice(0, k);
    if (top.length === 0) return [];
    // The top k's sources in one statement: a search's 20 hits come from up to 20 sources, and one read per source was
    // ~3× the time of this one (the statement's own cost, not the rows').
    const sources = new Map<string, KnowledgeSource>();
    for (const row of this.statement('SELECT * FROM knowledge_sources WHERE source_id IN (SELECT value FROM json_each(?))').all(
      JSON.stringify([...new Set(top.map((t) => t.row.source_id))]),
    ) as SourceRow[])
      sources.set(row.source_id, toSource(row));
    return top.flatMap(({ row, score }) => {
      const source = sources.get(row.source_id);
      return source && readable(source, scope)
        ? [
            {
              chunk: { chunkId: row.chunk_id, sourceId: row.source_id, ordinal: row.ordinal, heading: row.heading, text: row.text },
              source,
              score,
            },
          ]
        : [];
    });
  }

  /**
   * Saves the graphs changed since they were loaded and the BM25 index if it changed since its last snapshot (the next
   * open loads them instead of rebuilding), then closes the database.
   */
  async close(): Promise<void> {
    // A background open of the lexical side stops at its next slice; its half-built index is not saved.
    this.closing = true;
    await this.textOpened;
    if (this.textSaveTimer) clearTimeout(this.textSaveTimer);
    this.textSaveTimer = undefined;
    if (this.db.open && this.textFile && !this.textOpening) {
      this.catchUp();
      await this.saveText();
      if (this.textSaveTimer) clearTimeout(this.textSaveTimer);
      this.textSaveTimer = undefined;
    }
    if (this.db.open) {
      if (this.hnswDir) {
        this.catchUp();
        // A graph with staged vectors is not saved: its older file (or none) is brought up to date from the log on open;
        // so is one that cannot be written (a full disk), and the close goes on.
        for (const { graph } of this.partitions.values())
          if (graph.dirty && graph.pending === 0)
            try {
              graph.save(this.hnswDir, this.applied);
            } catch (error) {
              const scope = graph.scope.split('\u001f').join(' / ');
              this.logger.warn(
                `vector graph ${scope} not saved (${saveFailure(error, this.hnswDir)}): the next open rebuilds it from the log`,
              );
            }
        // The workers save their shards the same way and stop; files of neither (another shape, an old format, the
        // inline graphs after a move to the workers) are deleted.
        const workerKeys = this.workers ? await this.workers.close() : new Set<string>();
        removeStaleFiles(this.hnswDir, new Set([...[...this.partitions.values()].map((p) => p.graph.fileKey), ...workerKeys]));
      }
      if (this.draining) clearTimeout(this.draining);
      this.db.close();
    }
  }
}
