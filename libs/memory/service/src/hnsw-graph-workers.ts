import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import type { HnswParameters, Watermark } from './hnsw-partitions.js';
import { KnowledgeIndexNotReadyError } from './knowledge-index.port.js';

// The worker's module next to this one: JavaScript in the compiled tree (scripts/build.mjs compiles every file of the lib);
// TypeScript when run from source (npm start, Jest). From source the worker loads it with Node's own type stripping (the
// worker and `hnsw-partitions.ts` are erasable TypeScript) and a resolve hook that finds `x.ts` for an import of `x.js`:
// the swc loader the process uses cost ~90 MB more per thread (its own compiler instance and hooks thread).
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER = new URL(FROM_SOURCE ? './hnsw-graph-worker.ts' : './hnsw-graph-worker.js', import.meta.url);
const TS_SIBLINGS_HOOK = `data:text/javascript,${encodeURIComponent(
  [
    "import { registerHooks } from 'node:module';",
    'registerHooks({ resolve(specifier, context, next) {',
    '  try { return next(specifier, context); } catch (error) {',
    "    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/^\\.\\.?\\//.test(specifier) || !specifier.endsWith('.js')) throw error;",
    "    return next(specifier.slice(0, -3) + '.ts', context);",
    '  }',
    '} });',
  ].join('\n'),
)}`;
const WORKER_EXEC_ARGV = !FROM_SOURCE
  ? undefined
  : process.features.typescript
    ? ['--import', TS_SIBLINGS_HOOK]
    : ['--import', '@swc-node/register/esm-register'];

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
  /** Saves that could not write a graph (a full disk), and the last one's error code or message. */
  saveFailures: number;
  lastSaveError?: string;
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
  /** Writes that never pause keep a worker from inserting at most this long (then it inserts between them). */
  insertDeferMaxMs: number;
  /** And from saving what it has inserted at most this long. */
  saveDeferMaxMs: number;
  /** Called once every worker has loaded its files and staged the log (it can answer). */
  onReady: () => void;
}

interface Request {
  message: WorkerRequest;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** What a worker is started with (`hnsw-graph-worker.ts`): the options it needs, and which shard of how many it holds. */
export type GraphWorkerData = Omit<GraphWorkersOptions, 'threads' | 'onReady'> & { shard: number; shards: number };

/** What a worker is asked (each answered by an `answer` report with its id); a `head` message is told, not asked. */
export type WorkerRequest = { id: number } & (
  | { kind: 'search'; head: Watermark; scopes: readonly string[]; vector: Float32Array; width: number }
  | { kind: 'drain'; head: Watermark }
  | { kind: 'stats' }
  | { kind: 'close' }
);

/** A request before it is given its id. */
type Asked = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

export type WorkerReport =
  | { kind: 'ready' }
  | { kind: 'caught-up'; at: Watermark }
  | { kind: 'saved'; at: Watermark }
  | { kind: 'save-failed'; error: string; retryMs: number }
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
  /** Each shard's last save error while its saves fail (logged once per error). */
  private readonly saveErrors: (string | undefined)[] = [];

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
    // Posted by structured clone: the callback stays here.
    const { threads, onReady: _onReady, ...options } = this.options;
    const workerData: GraphWorkerData = { ...options, shard, shards: threads };
    const worker = new Worker(WORKER, { workerData, ...(WORKER_EXEC_ARGV ? { execArgv: WORKER_EXEC_ARGV } : {}) });
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
    if (report.kind === 'save-failed' || report.kind === 'saved') return this.saveReported(shard, report);
    if (report.kind !== 'answer') return;
    const request = this.requests[shard]?.get(report.id);
    if (!request) return;
    this.forget(shard, report.id);
    clearTimeout(request.timer);
    if (report.error !== undefined) request.reject(new Error(`graph worker ${shard}: ${report.error}`));
    else request.resolve(report.value);
  }

  /**
   * A failed save (a full disk) is logged when a shard starts failing or fails differently, and its recovery once it
   * saves again: not every retry.
   */
  private saveReported(shard: number, report: Extract<WorkerReport, { kind: 'save-failed' | 'saved' }>): void {
    const previous = this.saveErrors[shard];
    if (report.kind === 'saved') {
      if (previous !== undefined) this.logger.log(`graph worker ${shard} of ${this.options.threads} saved its graphs again`);
      this.saveErrors[shard] = undefined;
      return;
    }
    if (previous !== report.error)
      this.logger.warn(
        `graph worker ${shard} of ${this.options.threads} could not save its graphs (${report.error}): it keeps answering and ` +
          `tries again every ${report.retryMs / 1000} s and on close; until then the next open replays more of the log`,
      );
    this.saveErrors[shard] = report.error;
  }

  /** Sends a message to one worker and waits for its answer, at most `waitMs` (then KnowledgeIndexNotReadyError). */
  private ask<T>(shard: number, message: Asked, waitMs = Infinity): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const request: Request = { message: { ...message, id } as WorkerRequest, resolve: resolve as (value: unknown) => void, reject };
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
