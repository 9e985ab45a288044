/**
 * A graph worker thread (`GraphWorkers` starts one per shard; ADR 0034, amendment "Graphs in worker threads"): it owns
 * shard `shard` of `shards` (vector row id mod `shards`) of every partition, as the same `HnswPartition`s the event
 * loop uses inline. It reads its shard of the vector log through its own read-only connection, inserts once writes
 * pause, saves its shard files once idle and on close, loads them at start, and answers searches after applying the
 * log up to the head each one carries (read-your-writes).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { GraphShardStats, GraphWorkerData, WorkerReport, WorkerRequest } from './hnsw-graph-workers.js';
import { HnswPartition, saveFailure, type Watermark } from './hnsw-partitions.js';

/** Time spent inserting before messages (a search) are heard again: a search waits at most about this long. */
const INSERT_SLICE_MS = 10;
/** After a failed save (a full disk), the next background attempt waits this long; close always tries. */
const SAVE_RETRY_MS = 30_000;

const port = parentPort;
if (!port) throw new Error('hnsw-graph-worker runs in a worker thread (GraphWorkers)');
const { file, dir, shard, shards, params, epoch, drainIdleMs, saveIdleMs, insertDeferMaxMs, saveDeferMaxMs } =
  workerData as GraphWorkerData;

const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
const graphs = new Map<string, HnswPartition>();
let applied: Watermark = { adds: 0, removes: 0 };
let latest = applied;
let lastWriteAt = 0;
/** Since when announced writes have kept this worker from inserting (undefined: it has caught up since). */
let deferredSince: number | undefined;
let lastChangeAt = 0;
/** Since when the graphs have changes no save has written (undefined: none since the last save or the open). */
let unsavedSince: number | undefined;
/** The next background step (a timer, or an immediate while inserting): when it is due, and how to cancel it (on close). */
let pendingStep: { at: number; cancel: () => void } | undefined;
let closing = false;
let reportedCaughtUp = false;
let saveFailedAt = -Infinity;
const stats: Omit<GraphShardStats, 'pending' | 'inGraphs' | 'applied'> = {
  loadMs: 0,
  filesLoaded: 0,
  stagedAtOpen: 0,
  inserted: 0,
  saves: 0,
  lastSaveMs: 0,
  saveFailures: 0,
  searches: 0,
  searchMs: [],
};

const heads = db.prepare<[], { name: string; seq: number }>(
  "SELECT name, seq FROM sqlite_sequence WHERE name IN ('knowledge_vec_rows', 'knowledge_vec_removed')",
);
const partitions = db.prepare<[], { scope: string; dims: number }>('SELECT scope, dims FROM knowledge_vec_partitions');
const partitionOf = db.prepare<[string], { dims: number }>('SELECT dims FROM knowledge_vec_partitions WHERE scope = ?');
const addedSince = db.prepare<[number, number, number, number], { key: number; scope: string; vector: Buffer }>(
  'SELECT r.vec_rowid AS key, r.scope, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.vec_rowid > ? AND r.vec_rowid <= ? AND r.vec_rowid % ? = ?',
);
const removedSince = db.prepare<[number, number, number, number], { key: number; scope: string }>(
  'SELECT vec_rowid AS key, scope FROM knowledge_vec_removed WHERE seq > ? AND seq <= ? AND vec_rowid % ? = ?',
);
const rowsOf = db.prepare<[string, number, number, number, number], { key: number; vector: Buffer }>(
  'SELECT r.vec_rowid AS key, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.scope = ? AND r.vec_rowid > ? AND r.vec_rowid <= ? AND r.vec_rowid % ? = ?',
);
const removedOf = db.prepare<[string, number, number, number, number], { key: number }>(
  'SELECT vec_rowid AS key FROM knowledge_vec_removed WHERE scope = ? AND seq > ? AND seq <= ? AND vec_rowid % ? = ?',
);

/** The part of every partition this worker holds. */
const SHARD = { index: shard, of: shards };

function readHead(): Watermark {
  const rows = heads.all();
  const seq = (name: string): number => rows.find((r) => r.name === name)?.seq ?? 0;
  return { adds: seq('knowledge_vec_rows'), removes: seq('knowledge_vec_removed') };
}

function graphOf(scope: string): HnswPartition | undefined {
  let graph = graphs.get(scope);
  if (graph) return graph;
  const row = partitionOf.get(scope);
  if (!row) return undefined;
  graph = new HnswPartition(epoch, scope, row.dims, params, SHARD);
  graphs.set(scope, graph);
  return graph;
}

const pending = (): number => [...graphs.values()].reduce((sum, graph) => sum + graph.pending, 0);

/** Loads this shard's newest file of every partition and stages the log after its watermark (or all of it). */
function open(): void {
  const started = performance.now();
  db.transaction(() => {
    const head = readHead();
    for (const { scope, dims } of partitions.all()) {
      const { graph, from } = HnswPartition.open({ epoch, scope, dims, params, shard: SHARD }, dir, head);
      if (graph.size > 0) stats.filesLoaded++;
      graphs.set(scope, graph);
      for (const row of rowsOf.iterate(scope, from.adds, head.adds, shards, shard)) graph.stageBlob(row.key, row.vector);
      for (const row of removedOf.iterate(scope, from.removes, head.removes, shards, shard)) graph.remove(row.key);
    }
    applied = head;
  })();
  if (latest.adds < applied.adds || latest.removes < applied.removes) latest = applied;
  stats.stagedAtOpen = pending();
  stats.loadMs = performance.now() - started;
  lastChangeAt = performance.now();
  if (stats.stagedAtOpen > 0) unsavedSince = lastChangeAt;
}

/** Stages the rows and applies the removals of this shard up to head (written before the main thread sent it). */
function catchUp(head: Watermark): void {
  if (head.adds <= applied.adds && head.removes <= applied.removes) return;
  const to = { adds: Math.max(head.adds, applied.adds), removes: Math.max(head.removes, applied.removes) };
  db.transaction(() => {
    for (const row of addedSince.iterate(applied.adds, to.adds, shards, shard)) graphOf(row.scope)?.stageBlob(row.key, row.vector);
    for (const row of removedSince.iterate(applied.removes, to.removes, shards, shard)) graphs.get(row.scope)?.remove(row.key);
  })();
  applied = to;
  lastChangeAt = performance.now();
  unsavedSince ??= lastChangeAt;
  reportedCaughtUp = false;
}

/** Inserts staged vectors of every graph (one thread: the other shards' workers have the other cores); counts them. */
function insert(budgetMs: number, bulk: boolean): void {
  const started = performance.now();
  for (const graph of graphs.values()) {
    if (graph.pending === 0) continue;
    const before = graph.pending;
    stats.inserted += before - graph.drain(budgetMs - (performance.now() - started), bulk);
    if (performance.now() - started >= budgetMs) return;
  }
}

/**
 * Saves every changed graph whose staged vectors are all inserted (one that is not is brought up to date from the log
 * on open). A graph that cannot be written (a full disk) stays changed and is reported: its older file, or the log,
 * rebuilds it on open, so a failed save costs time at the next start, never an answer.
 */
function save(): void {
  const started = performance.now();
  let saved = 0;
  let failure: string | undefined;
  for (const graph of graphs.values()) {
    if (!graph.dirty || graph.pending > 0) continue;
    try {
      graph.save(dir, applied);
      saved++;
    } catch (error) {
      failure = saveFailure(error, dir);
    }
  }
  if (saved > 0) {
    stats.saves++;
    stats.lastSaveMs = performance.now() - started;
  }
  if (failure === undefined) {
    unsavedSince = undefined;
    if (saved > 0) report({ kind: 'saved', at: applied });
    return;
  }
  stats.saveFailures++;
  stats.lastSaveError = failure;
  saveFailedAt = performance.now();
  report({ kind: 'save-failed', error: failure, retryMs: SAVE_RETRY_MS });
}

/** Runs the next step in `ms`, or sooner if one is due sooner already (a far save must not hold back a near insert). */
function schedule(ms: number): void {
  if (closing) return;
  const at = performance.now() + Math.max(0, ms);
  if (pendingStep && pendingStep.at <= at) return;
  pendingStep?.cancel();
  if (ms <= 0) {
    // setImmediate, not a 0 ms timer (1 ms): messages are still heard between two slices.
    const immediate = setImmediate(step);
    pendingStep = { at, cancel: () => clearImmediate(immediate) };
  } else {
    const timer = setTimeout(step, ms);
    pendingStep = { at, cancel: () => clearTimeout(timer) };
  }
}

/**
 * Background work, one step at a time (messages run in between): once no write was announced for drainIdleMs (or
 * writes have deferred insertion for insertDeferMaxMs), catch up and insert for a slice; once everything is inserted
 * and nothing changed for saveIdleMs, save the changed graphs.
 */
function step(): void {
  pendingStep = undefined;
  if (closing) return;
  const now = performance.now();
  const idleIn = drainIdleMs - (now - lastWriteAt);
  const deferredIn = deferredSince === undefined ? Infinity : insertDeferMaxMs - (now - deferredSince);
  if (idleIn > 0 && deferredIn > 0) return schedule(Math.min(idleIn, deferredIn));
  catchUp(latest);
  if (pending() > 0) {
    insert(INSERT_SLICE_MS, false);
    return schedule(0);
  }
  deferredSince = undefined;
  if (!reportedCaughtUp) {
    reportedCaughtUp = true;
    report({ kind: 'caught-up', at: applied });
  }
  if (![...graphs.values()].some((graph) => graph.dirty)) return;
  // Once nothing changed for saveIdleMs; or, when writes go on, once changes have waited saveDeferMaxMs for a save.
  const quietIn = saveIdleMs - (performance.now() - lastChangeAt);
  const overdueIn = unsavedSince === undefined ? Infinity : saveDeferMaxMs - (performance.now() - unsavedSince);
  if (quietIn > 0 && overdueIn > 0) return schedule(Math.min(quietIn, overdueIn));
  const sinceFailure = performance.now() - saveFailedAt;
  if (sinceFailure < SAVE_RETRY_MS) return schedule(SAVE_RETRY_MS - sinceFailure);
  save();
  // Still changed: the save failed; try again later.
  if ([...graphs.values()].some((graph) => graph.dirty && graph.pending === 0)) schedule(SAVE_RETRY_MS);
}

/** A write was announced up to `head`: insertion waits until writes pause. */
function heard(head: Watermark): void {
  if (head.adds > latest.adds || head.removes > latest.removes) {
    latest = { adds: Math.max(head.adds, latest.adds), removes: Math.max(head.removes, latest.removes) };
    lastWriteAt = performance.now();
    deferredSince ??= lastWriteAt;
    reportedCaughtUp = false;
  }
  schedule(drainIdleMs);
}

function report(message: WorkerReport): void {
  port?.postMessage(message);
}

function answer(request: WorkerRequest): unknown {
  switch (request.kind) {
    case 'search': {
      const started = performance.now();
      heard(request.head);
      catchUp(request.head);
      const found = request.scopes.map((scope) => {
        const hits = graphs.get(scope)?.search(request.vector, request.width) ?? [];
        return { keys: hits.map((hit) => hit.key), distances: hits.map((hit) => hit.distance) };
      });
      // The last 1,000 searches' times in this thread (the bench compares them with the round trip).
      stats.searches++;
      stats.searchMs.push(performance.now() - started);
      if (stats.searchMs.length > 1000) stats.searchMs.shift();
      return found;
    }
    case 'drain':
      catchUp(request.head);
      insert(Infinity, true);
      lastChangeAt = performance.now();
      schedule(saveIdleMs);
      return null;
    case 'stats': {
      const inGraphs = [...graphs.values()].reduce((sum, graph) => sum + graph.size, 0);
      return { ...stats, pending: pending(), inGraphs, applied } satisfies GraphShardStats;
    }
    case 'close': {
      closing = true;
      pendingStep?.cancel();
      // A graph with staged vectors is not saved: its older file (or none) is brought up to date from the log on open.
      save();
      db.close();
      return [...graphs.values()].map((graph) => graph.fileKey);
    }
  }
}

open();
report({ kind: 'ready' });
schedule(0);

port.on('message', (request: WorkerRequest | { kind: 'head'; head: Watermark }) => {
  if (request.kind === 'head') return heard(request.head);
  try {
    report({ kind: 'answer', id: request.id, value: answer(request) });
  } catch (error) {
    report({ kind: 'answer', id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
  if (request.kind === 'close') port.close();
});
