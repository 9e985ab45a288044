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
 * Three lanes: work started inside `inBackground(fn)` (a conversation turn, the relay's rounds — nobody is waiting
 * on a socket for it) queues behind request work, so a customer's POST or a long-poll is not held behind 50
 * turns' store calls. Request work is budgeted against request work only: a request's call runs at once while the
 * requests' own store work in this slice is under `budgetMs`, however much background work the slice already ran
 * (otherwise each of a POST's five store calls waited one full turn of a busy loop: ~60 % of its latency under
 * 50 sessions). A burst of requests is still sliced, by its own size. Work started inside `atIdle(fn)` (start-up housekeeping that grows with the log, such as
 * re-arming every live session's timers) queues behind both and, more, runs only once the other lanes have made
 * no store call for `idleQuietMs` (or after waiting `idleMaxWaitMs`, so it is slowed, never starved, by
 * sustained load): a turn in flight between two of its store calls is not made to wait behind it, and the first
 * turn after a restart costs what it costs on an empty log. Order is kept within a lane; across lanes calls were never ordered (they are independent
 * callers), and a lower-lane call runs at once only when nothing in its lane or above is waiting.
 *
 * One instance per thread (`eventLoopSlices`), shared by every store in it: the budget is the loop's.
 */
export class EventLoopSlices {
  private sliceStart = 0;
  /** Time the request lane's calls spent in the current slice (see `leave`). */
  private foregroundUsed = 0;
  /** The loop turned since the slice started (a marker immediate ran). */
  private turned = true;
  private markerQueued = false;
  private drainQueued = false;
  private readonly foreground: (() => void)[] = [];
  private readonly background: (() => void)[] = [];
  private readonly idle: { resume: () => void; since: number }[] = [];
  /** When a request or background call last entered. */
  private lastBusy = -Infinity;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Calls that waited (diagnostics, tests). */
  waited = 0;
  /** Idle-lane calls run only after the other lanes made no call for this long... */
  idleQuietMs = 20;
  /** ...or once the oldest waiting idle call has waited this long. */
  idleMaxWaitMs = 250;

  /** `Infinity` turns slicing off (every call runs at once), e.g. to measure what it buys. */
  constructor(public budgetMs: number) {}

  /** Runs `fn` (and everything it starts) in the background lane. */
  inBackground<T>(fn: () => T): T {
    return lane.run('background', fn);
  }

  /** Runs `fn` (and everything it starts) in the idle lane: its calls wait while any request or background call waits. */
  atIdle<T>(fn: () => T): T {
    return lane.run('idle', fn);
  }

  /**
   * `undefined` when the caller may run now; otherwise a promise that resolves when it is the caller's turn.
   * Every `enter()` must be followed by exactly one `leave()` once the synchronous work is done.
   */
  enter(): Promise<void> | undefined {
    const now = performance.now();
    if (this.turned) this.startSlice(now);
    this.queueMarker();
    const current = lane.getStore();
    if (current !== 'idle') this.lastBusy = now;
    if (current === undefined) {
      // Request work: only request work ahead of it, or its own budget used up, makes it wait.
      if (this.foreground.length === 0 && this.foregroundUsed < this.budgetMs) return undefined;
    } else {
      const ahead = this.foreground.length + this.background.length + (current === 'idle' ? this.idle.length : 0);
      if (ahead === 0 && now - this.sliceStart < this.budgetMs && (current !== 'idle' || this.idleMayRun(now))) return undefined;
    }
    this.waited++;
    return new Promise<void>((resolve) => {
      if (current === 'idle') this.idle.push({ resume: resolve, since: now });
      else (current === 'background' ? this.background : this.foreground).push(resolve);
      this.queueDrain();
    });
  }

  /**
   * After a gated call's synchronous part (`spentMs`: how long it ran): the next waiter runs now if the slice has
   * room, else next loop turn.
   */
  leave(spentMs = 0): void {
    if (lane.getStore() === undefined) this.foregroundUsed += spentMs;
    if (this.queued === 0) return;
    this.next();
  }

  /** Waiting calls right now. */
  get queued(): number {
    return this.foreground.length + this.background.length + this.idle.length;
  }

  private next(): void {
    // A request waits only for its lane's budget (see `enter`): it runs whenever the lane has room.
    if (this.foreground.length > 0 && this.foregroundUsed < this.budgetMs) return this.foreground.shift()?.();
    if (performance.now() - this.sliceStart >= this.budgetMs) return this.queueDrain();
    const call = this.foreground.shift() ?? this.background.shift();
    if (call) return call();
    if (this.idle.length === 0) return;
    const now = performance.now();
    if (this.idleMayRun(now)) this.idle.shift()?.resume();
    else this.queueIdleCheck(now);
  }

  /** The other lanes have been quiet long enough, or the oldest idle call waited long enough (or slicing is off). */
  private idleMayRun(now: number): boolean {
    const oldest = this.idle[0];
    return (
      this.budgetMs === Infinity ||
      now - this.lastBusy >= this.idleQuietMs ||
      (oldest !== undefined && now - oldest.since >= this.idleMaxWaitMs)
    );
  }

  private queueIdleCheck(now: number): void {
    if (this.idleTimer !== undefined) return;
    const oldest = this.idle[0];
    const wait = Math.min(
      this.idleQuietMs - (now - this.lastBusy),
      oldest === undefined ? Infinity : this.idleMaxWaitMs - (now - oldest.since),
    );
    this.idleTimer = setTimeout(
      () => {
        this.idleTimer = undefined;
        if (this.foreground.length + this.background.length > 0) return; // their drain comes back here
        this.startSlice(performance.now());
        this.next();
      },
      Math.max(1, Math.ceil(wait)),
    );
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
      this.startSlice(performance.now());
      this.next();
    });
  }

  private startSlice(now: number): void {
    this.turned = false;
    this.sliceStart = now;
    this.foregroundUsed = 0;
  }
}

/** Default slice: long enough that a quiet process never waits, short enough for a ≤ 50 ms `/healthz` p99. */
export const DEFAULT_SLICE_MS = 4;

const lane = new AsyncLocalStorage<'background' | 'idle'>();

export type SliceLane = 'foreground' | 'background' | 'idle';

/** Runs `fn` (and everything it starts) in `which` lane, whatever lane the caller is in. */
export const inLane = <T>(which: SliceLane, fn: () => T): T => (which === 'foreground' ? lane.exit(fn) : lane.run(which, fn));

/** The lane the caller runs in (`foreground` for request work): for diagnostics and tests. */
export const currentLane = (): SliceLane => lane.getStore() ?? 'foreground';

export const eventLoopSlices = new EventLoopSlices(DEFAULT_SLICE_MS);

/** Runs `fn` and everything it starts in the background lane of the thread's slices (see EventLoopSlices). */
export const inBackground = <T>(fn: () => T): T => eventLoopSlices.inBackground(fn);

/**
 * Waits for the caller's turn in the loop's slices, as a store call would, without doing store work: background
 * work that reads nothing (the relay publishing events an append handed it) still queues behind request work.
 */
export async function sliceTurn(): Promise<void> {
  const turn = eventLoopSlices.enter();
  if (turn) await turn;
  eventLoopSlices.leave(0);
}

/** Runs `fn` and everything it starts in the idle lane of the thread's slices: behind requests and turns. */
export const atIdle = <T>(fn: () => T): T => eventLoopSlices.atIdle(fn);
