import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Cooperative time slices for synchronous work on the event loop (better-sqlite3 calls are synchronous).
 *
 * Without it, a burst of turns in one process chains store calls through resolved promises only: microtasks
 * never give the loop back, so an incoming request (`/healthz`, a customer's POST) waits until every turn in
 * the burst has run to its end — hundreds of milliseconds under 50 concurrent sessions. With it, each gated
 * call first asks `enter()`: while the loop's current slice (the gated work since the loop last turned) is
 * within `budgetMs`, the call runs at once; past it, the call and every later one wait in one FIFO queue and
 * resume in a later turn of the loop, after the pending I/O has been served. Calls therefore still run in the
 * order they were made (nothing overtakes a waiting call), and a resumed call hands the slice to the next
 * waiter (`leave()`), so a queue drains in slices of about `budgetMs` with I/O served between slices.
 *
 * Two lanes: work started inside `inBackground(fn)` (a conversation turn, the relay's rounds — nobody is waiting
 * on a socket for it) queues behind request work, so a customer's POST or a long-poll is not held behind 50
 * turns' store calls. Order is kept within a lane; across lanes calls were never ordered (they are independent
 * callers), and a background call runs at once only when nothing at all is waiting.
 *
 * One instance per thread (`eventLoopSlices`), shared by every store in it: the budget is the loop's.
 */
export class EventLoopSlices {
  private sliceStart = 0;
  /** The loop turned since the slice started (a marker immediate ran). */
  private turned = true;
  private markerQueued = false;
  private drainQueued = false;
  private readonly foreground: (() => void)[] = [];
  private readonly background: (() => void)[] = [];
  /** Calls that waited (diagnostics, tests). */
  waited = 0;

  /** `Infinity` turns slicing off (every call runs at once), e.g. to measure what it buys. */
  constructor(public budgetMs: number) {}

  /** Runs `fn` (and everything it starts) in the background lane. */
  inBackground<T>(fn: () => T): T {
    return lane.run('background', fn);
  }

  /**
   * `undefined` when the caller may run now; otherwise a promise that resolves when it is the caller's turn.
   * Every `enter()` must be followed by exactly one `leave()` once the synchronous work is done.
   */
  enter(): Promise<void> | undefined {
    const now = performance.now();
    if (this.turned) {
      this.turned = false;
      this.sliceStart = now;
    }
    this.queueMarker();
    const inBackground = lane.getStore() === 'background';
    const ahead = this.foreground.length + (inBackground ? this.background.length : 0);
    if (ahead === 0 && now - this.sliceStart < this.budgetMs) return undefined;
    this.waited++;
    return new Promise<void>((resolve) => {
      (inBackground ? this.background : this.foreground).push(resolve);
      this.queueDrain();
    });
  }

  /** After a gated call's synchronous part: the next waiter runs now if the slice has room, else next loop turn. */
  leave(): void {
    if (this.queued === 0) return;
    if (performance.now() - this.sliceStart < this.budgetMs) this.next();
    else this.queueDrain();
  }

  /** Waiting calls right now. */
  get queued(): number {
    return this.foreground.length + this.background.length;
  }

  private next(): void {
    (this.foreground.shift() ?? this.background.shift())?.();
  }

  private queueMarker(): void {
    if (this.markerQueued) return;
    this.markerQueued = true;
    setImmediate(() => {
      this.markerQueued = false;
      this.turned = true;
    });
  }

  private queueDrain(): void {
    if (this.drainQueued) return;
    this.drainQueued = true;
    setImmediate(() => {
      this.drainQueued = false;
      this.turned = false;
      this.sliceStart = performance.now();
      this.next();
    });
  }
}

/** Default slice: long enough that a quiet process never waits, short enough for a ≤ 50 ms `/healthz` p99. */
export const DEFAULT_SLICE_MS = 4;

const lane = new AsyncLocalStorage<'background'>();

export const eventLoopSlices = new EventLoopSlices(DEFAULT_SLICE_MS);

/** Runs `fn` and everything it starts in the background lane of the thread's slices (see EventLoopSlices). */
export const inBackground = <T>(fn: () => T): T => eventLoopSlices.inBackground(fn);
