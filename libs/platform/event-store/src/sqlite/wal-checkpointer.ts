import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Options of WalCheckpointer (see there). */
export interface WalCheckpointerOptions {
  /** How often the worker looks for new commits and checkpoints them (default 100 ms: the shorter its passes, the fewer frames are left to finish). */
  intervalMs?: number;
  /** The worker connection's busy timeout (it only matters for the brief locks a checkpoint takes). */
  busyTimeoutMs?: number;
  /** A WAL of at least this many frames after a worker's pass is finished by the store's connection (default 4,000: 16 MB of 4 kB pages). */
  restartFrames?: number;
}

export const DEFAULT_WAL_CHECKPOINT_INTERVAL_MS = 100;
export const DEFAULT_WAL_RESTART_FRAMES = 4_000;

/** What the checkpoints of one store did so far (diagnostics, tests). */
export interface WalCheckpointStats {
  /** Checkpoints run (each after at least one commit). */
  runs: number;
  /** Pages copied into the database file over all runs. */
  pagesCopied: number;
  /** Runs that could not finish (another connection's checkpoint held the lock, or a write was in progress). */
  busy: number;
  /** The longest run, in ms of the worker's time (never the event loop's). */
  maxMs: number;
  /** Passes finished on the store's own thread so the WAL can start over, and the longest of them in ms (waiting for its turn on the loop included). */
  finishes: number;
  finishMaxMs: number;
}

/** A row of `PRAGMA wal_checkpoint`: busy (0/1), frames in the WAL, frames copied. */
export interface WalCheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

interface CheckpointReport extends WalCheckpointRow {
  kind: 'checkpointed';
  ms: number;
}

interface FailureReport {
  kind: 'failed';
  message: string;
}

// CommonJS run by the worker (eval): a file of its own would need its own build and packaging step. The driver is
// required by the absolute path the store's own module resolved, so both threads use the same better-sqlite3.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
} catch (error) {
  parentPort.postMessage({ kind: 'failed', message: String(error && error.message || error) });
  process.exit(1);
}
const dataVersion = db.prepare('PRAGMA data_version').pluck();
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let seen = dataVersion.get();
let pending = true;
function run() {
  const version = dataVersion.get();
  if (version === seen && !pending) return;
  seen = version;
  const started = performance.now();
  try {
    const row = checkpoint.get();
    pending = row.busy !== 0 || row.checkpointed < row.log;
    parentPort.postMessage({ kind: 'checkpointed', busy: row.busy, log: row.log, checkpointed: row.checkpointed, ms: performance.now() - started });
  } catch (error) {
    if (error && error.code === 'SQLITE_BUSY') {
      pending = true;
      parentPort.postMessage({ kind: 'checkpointed', busy: 1, log: -1, checkpointed: -1, ms: performance.now() - started });
      return;
    }
    throw error;
  }
}
// The next pass waits a whole interval after this one ended (not a fixed rate): a pass slower than the interval, on a
// busy machine, would otherwise hold the checkpoint lock almost all the time, and the store's own finishing pass and
// backstop checkpoint would keep finding it taken.
let timer = setTimeout(function pass() {
  run();
  timer = setTimeout(pass, workerData.intervalMs);
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'close') {
    clearTimeout(timer);
    db.close();
    parentPort.close();
  }
});
`;

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * Moves SQLite's WAL checkpoints off the event loop.
 *
 * In WAL mode a commit only appends to the `-wal` file; a checkpoint copies those pages back into the database file
 * and fsyncs both. SQLite's default (`wal_autocheckpoint = 1000` pages) runs it inside whichever commit crossed the
 * threshold, so under load (~10k frames/s in `npm run bench:turn`'s load mode) an append holds the event loop for
 * the copy and two fsyncs several times a second: up to 20–30 ms on this project's reference machine, more on a
 * slower or busy disk.
 *
 * Here a worker thread owns a second connection to the same file and runs `PRAGMA wal_checkpoint(PASSIVE)`
 * `intervalMs` after its previous pass ended, when the file changed since then (its `PRAGMA data_version` moves with every commit of the
 * store's connection). PASSIVE never waits on readers or writers and never makes them wait beyond SQLite's brief
 * internal locks, so the store's connection keeps its own autocheckpoint only as a backstop (at twice
 * `restartFrames`), for a worker that falls far behind.
 *
 * The WAL only starts over (at the next commit) once a checkpoint copied every frame in it. A pass of the worker
 * copies the frames that existed when it began; under commits that never pause, new ones always arrive meanwhile,
 * so it would never finish and the WAL would grow without bound. So when a pass leaves the WAL at `restartFrames`
 * or more, the store finishes it on its own thread (`finish`): a PASSIVE checkpoint of the few frames committed
 * since the worker's pass began, with no commit of this process in between: those frames are copied on the loop (with
 * the checkpoint's fsyncs), not the whole WAL.
 *
 * A checkpoint is not a commit: it changes no other connection's `data_version`, so the store's tail cache stays valid.
 * If the worker cannot start or dies, `onStopped` is called with the reason and the store turns SQLite's own
 * autocheckpoint back on: the WAL never grows without bound.
 */
export class WalCheckpointer {
  readonly stats: WalCheckpointStats = { runs: 0, pagesCopied: 0, busy: 0, maxMs: 0, finishes: 0, finishMaxMs: 0 };
  /**
   * The store connection's own autocheckpoint while the worker runs, twice `restartFrames`. Only a backstop: the
   * worker's passes and the finishing pass restart the WAL long before it; if the worker falls far behind (a starved
   * thread, a stalled disk), SQLite checkpoints inline there, so the WAL stays bounded whatever the worker does.
   */
  readonly backstopFrames: number;
  private finishing = false;
  private readonly worker: Worker;
  private stopped = false;
  private readonly exited: Promise<void>;

  /**
   * Starts the worker on `file`. `finish` runs a PASSIVE checkpoint on the store's connection and resolves whether it
   * copied every frame (see the class comment). `onStopped` runs once if the worker stops other than through `close()` (it could
   * not open the file, or a checkpoint failed): the caller then lets SQLite checkpoint inline again.
   */
  constructor(file: string, options: WalCheckpointerOptions, finish: () => Promise<boolean>, onStopped: (reason: string) => void) {
    const restartFrames = options.restartFrames ?? DEFAULT_WAL_RESTART_FRAMES;
    this.backstopFrames = 2 * restartFrames;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file,
        driver,
        intervalMs: options.intervalMs ?? DEFAULT_WAL_CHECKPOINT_INTERVAL_MS,
        busyTimeoutMs: options.busyTimeoutMs ?? 5_000,
      },
      // A checkpointing thread needs little: SQLite's page cache lives outside the JS heap.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    // A store that is never closed must not keep its process alive.
    this.worker.unref();
    let reason = 'the checkpoint worker exited';
    this.worker.on('message', (message: CheckpointReport | FailureReport) => {
      if (message.kind === 'failed') {
        reason = `the checkpoint worker could not open ${file}: ${message.message}`;
        return;
      }
      if (message.busy !== 0) this.stats.busy++;
      else this.stats.runs++;
      if (message.checkpointed > 0) this.stats.pagesCopied += message.checkpointed;
      this.stats.maxMs = Math.max(this.stats.maxMs, message.ms);
      if (message.busy === 0 && message.log >= restartFrames && !this.finishing && !this.stopped) {
        this.finishing = true;
        const started = performance.now();
        void finish()
          .then((finished) => {
            if (!finished) return; // the worker's next pass held the checkpoint lock: the next report tries again
            this.stats.finishes++;
            this.stats.finishMaxMs = Math.max(this.stats.finishMaxMs, performance.now() - started);
          })
          .catch(() => undefined) // the store is closing; the next pass tries again otherwise
          .finally(() => (this.finishing = false));
      }
    });
    this.worker.on('error', (error) => {
      reason = `the checkpoint worker failed: ${error.message}`;
    });
    this.exited = new Promise<void>((resolve) => {
      this.worker.once('exit', () => {
        if (!this.stopped) {
          this.stopped = true;
          onStopped(reason);
        }
        resolve();
      });
    });
  }

  /** Stops the worker after its current checkpoint (if any) and closes its connection. */
  async close(): Promise<void> {
    if (this.stopped) return this.exited;
    this.stopped = true;
    this.worker.postMessage('close');
    // A worker stuck in a checkpoint (a hung disk) must not hold the store's close forever.
    const timer = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timer);
  }
}
