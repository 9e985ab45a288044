import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { GRAPH_FILE_FORMAT, type HnswParameters, type Watermark } from './hnsw-partitions.js';
import { KnowledgeIndexNotReadyError } from './knowledge-index.port.js';

// CommonJS run by each worker (eval), like the WAL checkpointer's: a file of its own would need its own build and
// packaging step. The SQLite driver and usearch are required by the absolute paths this module resolved, so both
// threads use the same native modules. What a worker does is the inline `HnswPartition`'s work for its shard of every
// partition (int8 copy, search expansion by size, staged vectors searched exactly), plus reading the log itself.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { mkdirSync, readdirSync, renameSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const Database = require(workerData.driver);
const { Index, MetricKind, ScalarKind } = require(workerData.usearch);
const { file, dir, shard, shards, params, epoch, format, drainIdleMs, saveIdleMs } = workerData;
// Vectors per native call while inserting in the background: a search message waits at most one batch.
const BATCH = 32;
const BULK = 1024;
const FILE_PATTERN = /^([0-9a-f]{32})\\.(\\d+)-(\\d+)-(\\d+)\\.usearch$/;

const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
const graphs = new Map();
let applied = { adds: 0, removes: 0 };
let latest = applied;
let lastWriteAt = 0;
let lastChangeAt = 0;
let timer;
let closing = false;
let reportedCaughtUp = false;
const stats = { loadMs: 0, filesLoaded: 0, stagedAtOpen: 0, inserted: 0, saves: 0, lastSaveMs: 0, searches: 0, searchMs: [] };

const fileKey = (scope) =>
  createHash('sha256')
    .update([format, epoch, scope, params.connectivity, params.quantization, shard + '/' + shards].join('\\u0000'))
    .digest('hex')
    .slice(0, 32);
const quantization = params.quantization === 'i8' ? ScalarKind.I8 : params.quantization === 'f16' ? ScalarKind.F16 : ScalarKind.F32;
const newIndex = (dims) =>
  new Index({ dimensions: dims, metric: MetricKind.Cos, quantization, connectivity: params.connectivity,
    expansion_add: params.expansionAdd, expansion_search: params.expansionSearch, multi: false });
const expansion = (size) => Math.max(params.expansionSearch, Math.ceil((params.expansionSearchPerThousand * size) / 1000));
function norm(v) { let s = 0; for (let i = 0; i < v.length; i++) s += v[i] * v[i]; return Math.sqrt(s) || 1; }
function toInt8(v) {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = max > 0 ? 127 / max : 0;
  const out = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i] * scale);
  return out;
}

const heads = db.prepare("SELECT name, seq FROM sqlite_sequence WHERE name IN ('knowledge_vec_rows', 'knowledge_vec_removed')");
const partitionOf = db.prepare('SELECT dims FROM knowledge_vec_partitions WHERE scope = ?');
const addedSince = db.prepare('SELECT r.vec_rowid AS key, r.scope, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.vec_rowid > ? AND r.vec_rowid <= ? AND r.vec_rowid % ? = ?');
const removedSince = db.prepare('SELECT vec_rowid AS key, scope FROM knowledge_vec_removed WHERE seq > ? AND seq <= ? AND vec_rowid % ? = ?');
const rowsOf = db.prepare('SELECT r.vec_rowid AS key, c.vector FROM knowledge_vec_rows r JOIN knowledge_chunks c ON c.id = r.chunk WHERE r.scope = ? AND r.vec_rowid > ? AND r.vec_rowid <= ? AND r.vec_rowid % ? = ?');
const removedOf = db.prepare('SELECT vec_rowid AS key FROM knowledge_vec_removed WHERE scope = ? AND seq > ? AND seq <= ? AND vec_rowid % ? = ?');

function readHead() {
  const rows = heads.all();
  const seq = (name) => (rows.find((r) => r.name === name) || { seq: 0 }).seq;
  return { adds: seq('knowledge_vec_rows'), removes: seq('knowledge_vec_removed') };
}
function graphOf(scope) {
  let g = graphs.get(scope);
  if (g) return g;
  const row = partitionOf.get(scope);
  if (!row) return undefined;
  g = { scope, dims: row.dims, index: newIndex(row.dims), staged: new Map(), dirty: false, key: fileKey(scope) };
  graphs.set(scope, g);
  return g;
}
function stage(g, key, blob) {
  if (g.staged.has(key) || g.index.contains(BigInt(key))) return;
  const v = new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + g.dims * 4));
  g.staged.set(key, { v, n: norm(v) });
  g.dirty = true;
}
function remove(g, key) {
  if (g.staged.delete(key)) return;
  if (g.index.contains(BigInt(key))) { g.index.remove(BigInt(key)); g.dirty = true; }
}
function pending() { let n = 0; for (const g of graphs.values()) n += g.staged.size; return n; }
function savedFiles() {
  let names;
  try { names = readdirSync(dir); } catch { return []; }
  return names.flatMap((name) => {
    const m = FILE_PATTERN.exec(name);
    return m ? [{ name, key: m[1], format: Number(m[2]), at: { adds: Number(m[3]), removes: Number(m[4]) } }] : [];
  });
}

/** Loads this shard's newest file of every partition and stages the log after its watermark (or all of it). */
function open() {
  const started = performance.now();
  const files = savedFiles();
  db.transaction(() => {
    const head = readHead();
    for (const { scope } of db.prepare('SELECT scope FROM knowledge_vec_partitions').all()) {
      const g = graphOf(scope);
      let from = { adds: 0, removes: 0 };
      const saved = files
        .filter((f) => f.key === g.key && f.format === format && f.at.adds <= head.adds && f.at.removes <= head.removes)
        .sort((a, b) => b.at.adds - a.at.adds || b.at.removes - a.at.removes)[0];
      if (saved) {
        try {
          g.index.load(join(dir, saved.name));
          if (g.index.dimensions() === g.dims && g.index.size() > 0) { from = saved.at; stats.filesLoaded++; }
          else g.index = newIndex(g.dims);
        } catch { g.index = newIndex(g.dims); }
      }
      for (const r of rowsOf.iterate(scope, from.adds, head.adds, shards, shard)) stage(g, r.key, r.vector);
      for (const r of removedOf.iterate(scope, from.removes, head.removes, shards, shard)) remove(g, r.key);
    }
    applied = head;
  })();
  if (latest.adds < applied.adds || latest.removes < applied.removes) latest = applied;
  stats.stagedAtOpen = pending();
  stats.loadMs = performance.now() - started;
  lastChangeAt = performance.now();
}

/** Stages the rows and applies the removals of this shard up to head (written before the main thread sent it). */
function catchUp(head) {
  if (head.adds <= applied.adds && head.removes <= applied.removes) return;
  const to = { adds: Math.max(head.adds, applied.adds), removes: Math.max(head.removes, applied.removes) };
  db.transaction(() => {
    for (const r of addedSince.iterate(applied.adds, to.adds, shards, shard)) {
      const g = graphOf(r.scope);
      if (g) stage(g, r.key, r.vector);
    }
    for (const r of removedSince.iterate(applied.removes, to.removes, shards, shard)) {
      const g = graphs.get(r.scope);
      if (g) remove(g, r.key);
    }
  })();
  applied = to;
  lastChangeAt = performance.now();
  reportedCaughtUp = false;
}

function insert(g, n) {
  const entries = g.staged.entries();
  const batch = [];
  while (batch.length < n) { const next = entries.next(); if (next.done) break; batch.push(next.value); }
  const matrix = params.quantization === 'i8' ? new Int8Array(batch.length * g.dims) : new Float32Array(batch.length * g.dims);
  batch.forEach(([, s], i) => matrix.set(params.quantization === 'i8' ? toInt8(s.v) : s.v, i * g.dims));
  g.index.add(BigUint64Array.from(batch, ([key]) => BigInt(key)), matrix, 1);
  for (const [key] of batch) g.staged.delete(key);
  stats.inserted += batch.length;
}

function searchGraph(g, vector, k) {
  const found = [];
  if (g.index.size() > 0) {
    const query = params.quantization === 'i8' ? toInt8(vector) : vector;
    const m = g.index.search(query, Math.max(k, expansion(g.index.size())), 1);
    for (let i = 0; i < Math.min(k, m.keys.length); i++) found.push({ key: Number(m.keys[i]), distance: m.distances[i] });
  }
  if (g.staged.size === 0) return found;
  const qn = norm(vector);
  for (const [key, s] of g.staged) {
    let dot = 0;
    const o = s.v;
    for (let i = 0; i < vector.length; i++) dot += vector[i] * o[i];
    found.push({ key, distance: 1 - dot / (qn * s.n) });
  }
  return found.sort((a, b) => a.distance - b.distance).slice(0, k);
}

function save() {
  const started = performance.now();
  mkdirSync(dir, { recursive: true });
  let saved = 0;
  for (const g of graphs.values()) {
    if (!g.dirty || g.staged.size > 0) continue;
    const name = g.key + '.' + format + '-' + applied.adds + '-' + applied.removes + '.usearch';
    const tmp = join(dir, name + '.tmp-' + process.pid + '-' + shard);
    g.index.save(tmp);
    renameSync(tmp, join(dir, name));
    for (const other of readdirSync(dir)) if (other !== name && other.startsWith(g.key + '.')) rmSync(join(dir, other), { force: true });
    g.dirty = false;
    saved++;
  }
  if (saved > 0) { stats.saves++; stats.lastSaveMs = performance.now() - started; }
}

function schedule(ms) {
  if (timer || closing) return;
  timer = setTimeout(tick, ms);
}
/**
 * Background work, one step per timer turn (messages run in between): once no write was announced for drainIdleMs,
 * catch up and insert a batch; once everything is inserted and nothing changed for saveIdleMs, save the dirty graphs.
 */
function tick() {
  timer = undefined;
  if (closing) return;
  const now = performance.now();
  if (now - lastWriteAt < drainIdleMs) return schedule(drainIdleMs - (now - lastWriteAt));
  catchUp(latest);
  for (const g of graphs.values()) {
    if (g.staged.size === 0) continue;
    insert(g, BATCH);
    return schedule(0);
  }
  if (!reportedCaughtUp) {
    reportedCaughtUp = true;
    parentPort.postMessage({ kind: 'caught-up', at: applied });
  }
  if (![...graphs.values()].some((g) => g.dirty)) return;
  const quiet = performance.now() - lastChangeAt;
  if (quiet < saveIdleMs) return schedule(saveIdleMs - quiet);
  save();
  parentPort.postMessage({ kind: 'saved', at: applied });
}

function heard(head) {
  if (head.adds > latest.adds || head.removes > latest.removes) {
    latest = { adds: Math.max(head.adds, latest.adds), removes: Math.max(head.removes, latest.removes) };
    lastWriteAt = performance.now();
    reportedCaughtUp = false;
  }
  schedule(drainIdleMs);
}

open();
parentPort.postMessage({ kind: 'ready', stats, staged: pending() });
schedule(0);

parentPort.on('message', (m) => {
  try {
    if (m.kind === 'head') return heard(m.head);
    if (m.kind === 'search') {
      const started = performance.now();
      heard(m.head);
      catchUp(m.head);
      const found = m.scopes.map((scope) => {
        const g = graphs.get(scope);
        const hits = g ? searchGraph(g, m.vector, m.width) : [];
        return { keys: hits.map((h) => h.key), distances: hits.map((h) => h.distance) };
      });
      // The last 1,000 searches' times in this thread (the bench compares them with the round trip).
      stats.searches++;
      stats.searchMs.push(performance.now() - started);
      if (stats.searchMs.length > 1000) stats.searchMs.shift();
      return parentPort.postMessage({ kind: 'answer', id: m.id, value: found });
    }
    if (m.kind === 'drain') {
      catchUp(m.head);
      for (const g of graphs.values()) while (g.staged.size > 0) insert(g, BULK);
      lastChangeAt = performance.now();
      schedule(saveIdleMs);
      return parentPort.postMessage({ kind: 'answer', id: m.id, value: null });
    }
    if (m.kind === 'stats') {
      const sizes = [...graphs.values()].reduce((n, g) => n + g.index.size(), 0);
      return parentPort.postMessage({ kind: 'answer', id: m.id, value: { ...stats, pending: pending(), inGraphs: sizes, applied } });
    }
    if (m.kind === 'close') {
      closing = true;
      clearTimeout(timer);
      // A graph with staged vectors is not saved: its older file (or none) is brought up to date from the log on open.
      save();
      const keys = [...graphs.values()].map((g) => g.key);
      db.close();
      parentPort.postMessage({ kind: 'answer', id: m.id, value: keys });
      parentPort.close();
    }
  } catch (error) {
    parentPort.postMessage({ kind: 'answer', id: m.id, error: String((error && error.message) || error) });
  }
});
`;

const resolve = createRequire(import.meta.url).resolve;
const DRIVER = resolve('better-sqlite3');
const USEARCH = resolve('usearch');

/** What a graph worker reports of its shard (tests, the bench). */
export interface GraphShardStats {
  /** Time to load its files and stage the log at start (the worker's time, not the event loop's). */
  loadMs: number;
  /** Partition files loaded at start (the others were rebuilt from the log). */
  filesLoaded: number;
  /** Vectors staged at start: the log after the loaded files' watermarks (all of it for a rebuilt partition). */
  stagedAtOpen: number;
  inserted: number;
  /** Background and close saves that wrote at least one file, and the last one's time. */
  saves: number;
  lastSaveMs: number;
  /** Searches answered, and the time of each of the last 1,000 in the worker (catching up included, the round trip not). */
  searches: number;
  searchMs: number[];
  /** Vectors staged now (searched exactly until inserted) and in the graphs. */
  pending: number;
  inGraphs: number;
  applied: Watermark;
}

export interface GraphWorkersOptions {
  /** The database file (never `:memory:`: a worker opens its own read-only connection to it). */
  file: string;
  /** The folder of the graph files. */
  dir: string;
  threads: number;
  params: HnswParameters;
  epoch: string;
  /** A worker inserts once no write was announced for this long (ingest keeps the cores), and saves once nothing changed for saveIdleMs. */
  drainIdleMs: number;
  saveIdleMs: number;
  /** Called once every worker has loaded its files and staged the log (it can answer). */
  onReady: () => void;
}

interface Request {
  message: { kind: string; id: number } & Record<string, unknown>;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

type WorkerReport =
  | { kind: 'ready'; stats: GraphShardStats; staged: number }
  | { kind: 'caught-up' | 'saved'; at: Watermark }
  | { kind: 'answer'; id: number; value?: unknown; error?: string };

/**
 * A crashed worker starts again after RESTART_DELAY_MS, doubled for every crash before it reported ready again (up to
 * RESTART_DELAY_MAX_MS), so a worker that fails at once (a file it cannot open) does not spin.
 */
const RESTART_DELAY_MS = 500;
const RESTART_DELAY_MAX_MS = 30_000;

/**
 * The HNSW graphs on worker threads (ADR 0034, amendment "Graphs in worker threads"): worker s owns shard s (vector row
 * id mod the worker count) of every partition. Each reads the vector rows and removals of its shard from the database
 * itself (a read-only connection: the main thread never copies a vector to it), inserts them in the background, saves
 * its shard files and loads them at start. A search is sent to every worker with the log's head, so each first
 * applies what was written before the search (read-your-writes); the main thread merges the shards' candidates.
 */
export class GraphWorkers {
  private readonly workers: (Worker | undefined)[];
  private readonly ready: boolean[];
  private readonly requests: Map<number, Request>[];
  private nextId = 1;
  private closing = false;
  private readonly exited: Promise<void>[] = [];
  private readonly logger = new Logger(GraphWorkers.name);
  /** Worker restarts after a crash (tests, logs). */
  restarts = 0;
  private readyAnnounced = false;
  /** Crashes of each worker since it last reported ready (the restart delay doubles with each). */
  private readonly crashes: number[];
  private lastHead: Watermark = { adds: 0, removes: 0 };

  constructor(private readonly options: GraphWorkersOptions) {
    this.workers = Array.from({ length: options.threads }, () => undefined);
    this.ready = Array.from({ length: options.threads }, () => false);
    this.requests = Array.from({ length: options.threads }, () => new Map<number, Request>());
    this.crashes = Array.from({ length: options.threads }, () => 0);
    for (let shard = 0; shard < options.threads; shard++) this.start(shard);
  }

  get threads(): number {
    return this.options.threads;
  }

  /** Every worker has loaded its shard and staged the log at least once (it may be restarting since). */
  get allReady(): boolean {
    return this.ready.every(Boolean);
  }

  /** Shards that can answer now. */
  get readyCount(): number {
    return this.ready.filter(Boolean).length;
  }

  private start(shard: number): void {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: this.options.file,
        dir: this.options.dir,
        shard,
        shards: this.options.threads,
        params: this.options.params,
        epoch: this.options.epoch,
        format: GRAPH_FILE_FORMAT,
        drainIdleMs: this.options.drainIdleMs,
        saveIdleMs: this.options.saveIdleMs,
        driver: DRIVER,
        usearch: USEARCH,
      },
    });
    // An index that is never closed must not keep its process alive: what is not saved is in the log.
    worker.unref();
    this.workers[shard] = worker;
    worker.on('message', (report: WorkerReport) => this.received(shard, report));
    let failure = 'exited';
    worker.on('error', (error) => {
      failure = error.message;
    });
    this.exited[shard] = new Promise<void>((resolve) => {
      worker.once('exit', (code) => {
        resolve();
        if (this.workers[shard] !== worker) return;
        this.workers[shard] = undefined;
        this.ready[shard] = false;
        if (this.closing) {
          for (const request of this.requests[shard]?.values() ?? []) request.reject(new Error('graph worker closed'));
          return;
        }
        // A crash: start it again (it loads its files and stages the log like any start); what was asked of it is asked again.
        this.restarts++;
        const crashes = (this.crashes[shard] ?? 0) + 1;
        this.crashes[shard] = crashes;
        const delay = Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MS * 2 ** (crashes - 1));
        this.logger.error(
          `graph worker ${shard} of ${this.options.threads} stopped (${failure}, exit code ${code}): restarting it in ${delay} ms`,
        );
        const restart = setTimeout(() => {
          if (this.closing) return;
          this.start(shard);
          const head = this.lastHead;
          this.workers[shard]?.postMessage({ kind: 'head', head });
          if ((this.requests[shard]?.size ?? 0) > 0) this.workers[shard]?.ref();
          for (const request of this.requests[shard]?.values() ?? []) this.workers[shard]?.postMessage(request.message);
        }, delay);
        // Kept alive only for a caller awaiting an answer.
        if ((this.requests[shard]?.size ?? 0) === 0) restart.unref();
      });
    });
  }

  private received(shard: number, report: WorkerReport): void {
    if (report.kind === 'ready') {
      this.ready[shard] = true;
      this.crashes[shard] = 0;
      if (!this.readyAnnounced && this.allReady) {
        this.readyAnnounced = true;
        this.options.onReady();
      }
      return;
    }
    if (report.kind !== 'answer') return;
    const request = this.requests[shard]?.get(report.id);
    if (!request) return;
    this.forget(shard, report.id);
    clearTimeout(request.timer);
    if (report.error !== undefined) request.reject(new Error(`graph worker ${shard}: ${report.error}`));
    else request.resolve(report.value);
  }

  /** Sends a message to one worker and waits for its answer, at most `waitMs` (then KnowledgeIndexNotReadyError). */
  private ask<T>(shard: number, message: Record<string, unknown> & { kind: string }, waitMs = Infinity): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const request: Request = { message: { ...message, id }, resolve: resolve as (value: unknown) => void, reject };
      if (Number.isFinite(waitMs))
        request.timer = setTimeout(() => {
          this.forget(shard, id);
          reject(
            new KnowledgeIndexNotReadyError(
              `vector graphs: worker ${shard} of ${this.options.threads} did not answer within ${waitMs} ms (${this.ready[shard] ? 'busy' : 'loading its graphs'})`,
            ),
          );
        }, waitMs);
      this.requests[shard]?.set(id, request);
      // A worker is unref'd (it must not keep an idle process alive) but a caller awaiting its answer must: ref'd while asked.
      this.workers[shard]?.ref();
      this.workers[shard]?.postMessage(request.message);
    });
  }

  private forget(shard: number, id: number): void {
    this.requests[shard]?.delete(id);
    // Closing: kept alive until it exits (close awaits that).
    if (this.requests[shard]?.size === 0 && !this.closing) this.workers[shard]?.unref();
  }

  /** Tells every worker the log's head after a write: they stage it once writes pause (a search carries the head too). */
  announce(head: Watermark): void {
    this.lastHead = head;
    for (const worker of this.workers) worker?.postMessage({ kind: 'head', head });
  }

  /**
   * Each partition's top `width` candidates (by the graph's distance), merged over the shards: every worker applies the
   * log up to `head` first, then searches its shard of each scope. Fails with KnowledgeIndexNotReadyError after `waitMs`.
   */
  async search(head: Watermark, scopes: readonly string[], vector: Float32Array, width: number, waitMs: number): Promise<number[][]> {
    this.lastHead = head;
    const answers = await Promise.all(
      this.workers.map((_, shard) =>
        this.ask<{ keys: number[]; distances: number[] }[]>(shard, { kind: 'search', head, scopes, vector, width }, waitMs),
      ),
    );
    return scopes.map((_, i) => {
      const merged: { key: number; distance: number }[] = [];
      for (const answer of answers) {
        const found = answer[i];
        if (found) found.keys.forEach((key, j) => merged.push({ key, distance: found.distances[j] ?? 2 }));
      }
      return merged
        .sort((a, b) => a.distance - b.distance)
        .slice(0, width)
        .map((m) => m.key);
    });
  }

  /** Every worker inserts everything up to `head` now (blocking itself, not the event loop). */
  async drain(head: Watermark): Promise<void> {
    await Promise.all(this.workers.map((_, shard) => this.ask(shard, { kind: 'drain', head })));
  }

  async stats(): Promise<GraphShardStats[]> {
    return Promise.all(this.workers.map((_, shard) => this.ask<GraphShardStats>(shard, { kind: 'stats' })));
  }

  /** Ends a worker as a crash would (tests): it is restarted. */
  async crash(shard: number): Promise<void> {
    await this.workers[shard]?.terminate();
  }

  /** Each worker saves its fully inserted changed graphs and stops; answers the file keys of every graph they held. */
  async close(): Promise<Set<string>> {
    // Set first: a worker that exits now (after its close, or a crash meanwhile) is not restarted.
    this.closing = true;
    const keys = await Promise.all(this.workers.map((_, shard) => this.ask<string[]>(shard, { kind: 'close' }).catch(() => [])));
    await Promise.all(this.exited);
    return new Set(keys.flat());
  }
}
