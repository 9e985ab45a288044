import { inBackground, sliceTurn } from '../event-loop-slices.js';
import type { EventStore, StoredEvent } from '../event-store.port.js';
import { soleLeadership, type RelayLeadership, type RelayWakeups } from './relay-leadership.js';

export type { RelayLeadership, RelayLeadershipListener, RelayWakeups } from './relay-leadership.js';
export { soleLeadership } from './relay-leadership.js';

/** Where published events go. A JetStream adapter sets the message id to `msgId` so a republish is dropped. */
export interface EventPublisher {
  publish(subject: string, data: unknown, options: { msgId: string; headers?: Record<string, string> }): Promise<void>;
}

/** The `traceparent`/`tracestate` an appender stored in `metadata.trace_context`, when it is one. */
function traceContextOf(metadata: Record<string, unknown> | undefined): Record<string, string> | undefined {
  const raw = metadata?.['trace_context'];
  if (typeof raw !== 'object' || raw === null) return undefined;
  const headers = Object.fromEntries(
    Object.entries(raw).filter((e): e is [string, string] => (e[0] === 'traceparent' || e[0] === 'tracestate') && typeof e[1] === 'string'),
  );
  return Object.keys(headers).length > 0 ? headers : undefined;
}

/** One message to publish for a stored event. */
export interface RouteTarget {
  subject: string;
  payload: unknown;
}

/**
 * What to publish for a stored event: one message, several (e.g. the same event under two major versions, each
 * with the event id as its message id — each lands in its own stream and deduplicates there), or `undefined` /
 * `[]` to keep it private (domain-only). It may be asynchronous (a lookup in the log); the relay resolves a
 * window's routes before it issues that window's publishes, so they still leave in log order.
 */
export type EventRoute = (
  event: StoredEvent,
) => RouteTarget | readonly RouteTarget[] | undefined | Promise<RouteTarget | readonly RouteTarget[] | undefined>;

export interface EventLogRelayOptions {
  store: EventStore;
  publisher: EventPublisher;
  route: EventRoute;
  /**
   * Name of the checkpoint holding "published up to this position". Relays of several processes may share a
   * log and a name as long as they share a `leadership`: only its holder publishes.
   */
  checkpointName?: string;
  /**
   * Who may publish when several processes run a relay on this log (same checkpoint). Default: this relay is
   * the only one (always the leader). A standby runs no rounds; on election it reloads the shared checkpoint.
   */
  leadership?: RelayLeadership;
  /**
   * Wake-ups between processes: `kick()` on a standby (after its own append) is forwarded to the leader,
   * which runs a round at once. Without it, the leader finds a standby's appends at its next poll.
   */
  wakeups?: RelayWakeups;
  /** Events read from the log per round trip. Default 256. */
  batchSize?: number;
  /**
   * Publishes awaited together. Default 32. With more than one, a failed publish can be followed by later
   * ones that already landed (their first delivery came first); the retry publishes again only what failed —
   * what was acknowledged is not sent twice — and moves the checkpoint over both. `1` publishes strictly one
   * after another.
   */
  maxInFlight?: number;
  /**
   * How long the stored checkpoint may lag the published position. 0 (default) writes it after every
   * acknowledged window; a few hundred milliseconds turns one write per event under light load into one per
   * interval. A crash then republishes at most that interval's events, which the broker deduplicates by id.
   */
  checkpointEveryMs?: number;
  /** Leader only: catch-up interval for appends it was not told about (lost wake-ups). 0 disables. Default 1000. */
  pollIntervalMs?: number;
  /** Backoff after a failed round: doubles from `initialDelayMs` up to `maxDelayMs`. Defaults 100 and 30 000. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Told about every failure before the relay backs off and tries again (logging, metrics). */
  onError?: (error: unknown, failure: { event?: StoredEvent; attempt: number; retryInMs: number }) => void;
}

class PublishFailure extends Error {
  constructor(
    readonly event: StoredEvent,
    cause: unknown,
    /** Later events of the same window that failed too (each is reported). */
    readonly others: { event: StoredEvent; cause: unknown }[] = [],
  ) {
    super(`publishing event ${event.id} (position ${event.position}) failed`, { cause });
    this.name = 'PublishFailure';
  }
}

/**
 * The transactional outbox without a second table: the event log IS the outbox. The relay reads the log in
 * global order after its checkpoint, publishes what `route` selects, and moves the checkpoint only over a
 * prefix of events that were all acknowledged. A crash anywhere therefore republishes (at-least-once, with the
 * event id as the dedup key) and never skips; a failure is retried with capped exponential backoff, forever,
 * from the first unacknowledged event.
 *
 * Several processes on one log each run a relay, but only the holder of `leadership` publishes: the others
 * stand by, forward their kicks to it through `wakeups`, and on election continue from the shared checkpoint.
 */
export class EventLogRelay {
  private readonly store: EventStore;
  private readonly publisher: EventPublisher;
  private readonly route: EventRoute;
  private readonly name: string;
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  private readonly pollIntervalMs: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly onError: EventLogRelayOptions['onError'];
  private readonly checkpointEveryMs: number;
  private readonly leadership: RelayLeadership;
  private readonly wakeups: RelayWakeups | undefined;

  private checkpoint = 0;
  private savedCheckpoint = 0;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> | undefined;
  private state: 'new' | 'running' | 'stopped' = 'new';
  private kicked = false;
  private round: Promise<void> | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private failures = 0;
  /** Set on election: another leader may have moved the shared checkpoint since this relay last read it. */
  private reload = false;
  private wakeSubscription: { stop(): Promise<void> } | undefined;
  private wakePending = false;
  /**
   * Events past the checkpoint that the broker acknowledged while an earlier event of their window failed: the
   * retry counts them as published instead of sending them again (at most one window's worth).
   */
  private readonly acknowledgedAhead = new Set<string>();
  /**
   * Events this process appended and handed over with their kick (`kick(events)`), not yet published: a round
   * publishes them without reading the log when they continue the checkpoint without a gap (ADR 0037).
   */
  private handed: StoredEvent[] = [];
  /**
   * Whether the next batch must come from the log: at start, on election, after a poll, a wake-up from another
   * process, a kick without events, a failure, or a read that filled its batch (more may follow).
   */
  private mustRead = true;

  constructor(options: EventLogRelayOptions) {
    this.store = options.store;
    this.publisher = options.publisher;
    this.route = options.route;
    this.name = options.checkpointName ?? 'event-log-relay';
    this.batchSize = positive(options.batchSize ?? 256, 'batchSize');
    this.maxInFlight = positive(options.maxInFlight ?? 32, 'maxInFlight');
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.initialDelayMs = options.retry?.initialDelayMs ?? 100;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 30_000;
    this.onError = options.onError;
    this.checkpointEveryMs = options.checkpointEveryMs ?? 0;
    this.leadership = options.leadership ?? soleLeadership();
    this.wakeups = options.wakeups;
  }

  /** Position up to which every event has been published (or skipped by `route`). */
  get publishedUpTo(): number {
    return this.checkpoint;
  }

  /** Whether this relay holds the publishing lease (always, without a shared `leadership`). */
  get isLeader(): boolean {
    return this.leadership.isLeader();
  }

  /**
   * For health endpoints: whether it runs, whether it leads or stands by, how far it has published (a standby:
   * as of its last term or start), and how many rounds failed in a row.
   */
  status(): { state: 'new' | 'running' | 'stopped'; role: 'leader' | 'standby'; checkpoint: number; consecutiveFailures: number } {
    return {
      state: this.state,
      role: this.leadership.isLeader() ? 'leader' : 'standby',
      checkpoint: this.checkpoint,
      consecutiveFailures: this.failures,
    };
  }

  /**
   * Listens for wake-ups, campaigns for the lease, then loads the stored checkpoint and (as the leader) starts
   * catching up in the background; rejects if any of that fails, leaving nothing running.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`EventLogRelay "${this.name}" cannot start: it is ${this.state}`);
    try {
      if (this.wakeups) this.wakeSubscription = await this.wakeups.listen(() => this.requestRound());
      await this.leadership.start({ elected: () => this.onElected(), deposed: () => this.onDeposed() });
      // Read after the first election attempt, so a leader elected by it starts from the freshest checkpoint;
      // an election during the read sets `reload` again and the first round reads once more.
      this.reload = false;
      this.checkpoint = await this.store.loadCheckpoint(this.name);
    } catch (error) {
      await this.wakeSubscription?.stop().catch(() => undefined);
      await this.leadership.stop().catch(() => undefined);
      throw error;
    }
    this.savedCheckpoint = this.checkpoint;
    this.state = 'running';
    if (this.pollIntervalMs > 0) this.pollTimer = setInterval(() => this.requestRound(), this.pollIntervalMs);
    this.requestRound();
  }

  /**
   * Asks for a round soon, e.g. right after an append commits. Kicks during a round fold into one more round.
   * On a standby the kick is forwarded to the leader through `wakeups` (coalesced per event-loop turn).
   *
   * `appended`: the events that append committed, as the store returned them. The leader then publishes them
   * without reading the log back — but only when they continue its checkpoint without a gap (positions are
   * contiguous in the SQLite log); anything else (another process's append in between, a store with gaps, a
   * backlog, a failure) reads from the log as a kick without events does.
   */
  kick(appended?: readonly StoredEvent[]): void {
    if (this.state !== 'running') return;
    if (!this.leadership.isLeader()) return this.wakeLeader();
    this.hand(appended);
    this.kicked = true;
    this.ensureRound();
  }

  /** Resolves when no round is running and none is pending (everything readable so far was published). */
  async whenIdle(): Promise<void> {
    while (this.round) await this.round;
  }

  /**
   * Stops polling, cuts a backoff short, waits for the publishes in flight and their checkpoint, and only then
   * releases the lease: a standby elected by the release reads a checkpoint that covers everything published.
   */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasStarted = this.state === 'running';
    this.state = 'stopped';
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    this.wake?.();
    await this.whenIdle();
    clearTimeout(this.checkpointTimer);
    await this.saving;
    await this.flushCheckpoint().catch((error: unknown) => this.report(error, { attempt: 1, retryInMs: 0 }));
    if (!wasStarted) return;
    await this.wakeSubscription?.stop().catch((error: unknown) => this.report(error, { attempt: 1, retryInMs: 0 }));
    await this.leadership.stop().catch((error: unknown) => this.report(error, { attempt: 1, retryInMs: 0 }));
  }

  /** A round soon that reads the log, if this relay leads; a standby only remembers it (a new leader catches up anyway). */
  private requestRound(): void {
    if (this.state !== 'running') return;
    this.mustRead = true;
    this.kicked = true;
    this.ensureRound();
  }

  private onElected(): void {
    this.reload = true;
    this.requestRound();
  }

  private onDeposed(): void {
    // The round in progress stops at its next leadership check; a backoff pause is cut short.
    this.wake?.();
  }

  /** Whether rounds may go on: running, and holding the lease right now. */
  private leading(): boolean {
    return this.state === 'running' && this.leadership.isLeader();
  }

  private wakeLeader(): void {
    if (!this.wakeups || this.wakePending) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      if (this.state !== 'running' || !this.wakeups) return;
      try {
        void Promise.resolve(this.wakeups.send()).catch((error: unknown) =>
          this.report(error, { attempt: 1, retryInMs: this.pollIntervalMs }),
        );
      } catch (error) {
        this.report(error, { attempt: 1, retryInMs: this.pollIntervalMs });
      }
    });
  }

  private ensureRound(): void {
    if (this.round || !this.leading()) return;
    // Publishing is nobody's request: its store reads queue behind request work (EventLoopSlices).
    this.round = inBackground(() => this.rounds()).then(() => {
      this.round = undefined;
      // A kick that landed after the last check inside rounds() but before this callback.
      if (this.kicked) this.ensureRound();
    });
  }

  private async rounds(): Promise<void> {
    while (this.kicked && this.leading()) {
      this.kicked = false;
      await this.catchUp();
    }
  }

  /** Publishes until the log has nothing after the checkpoint or this relay stops leading; never rejects. */
  private async catchUp(): Promise<void> {
    while (this.leading()) {
      try {
        if (this.reload) await this.reloadCheckpoint();
        const batch = await this.nextBatch();
        if (batch.length === 0) return;
        await this.publishBatch(batch);
        this.failures = 0;
      } catch (error) {
        // The retry reads the log: what was handed over for this batch is gone from `handed`.
        this.mustRead = true;
        this.failures += 1;
        const retryInMs = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** (this.failures - 1));
        if (error instanceof PublishFailure) {
          // Every failed event is named: each may have landed all the same (e.g. a timed-out acknowledgement).
          for (const failed of [{ event: error.event, cause: error.cause }, ...error.others])
            this.report(failed.cause, { event: failed.event, attempt: this.failures, retryInMs });
        } else this.report(error, { attempt: this.failures, retryInMs });
        await this.pause(retryInMs);
      }
    }
  }

  /** Keeps what an append handed over, bounded: past one batch the log is read instead (a slow or failing publisher). */
  private hand(appended: readonly StoredEvent[] | undefined): void {
    if (!appended || appended.length === 0 || this.handed.length + appended.length > this.batchSize) {
      this.handed = [];
      this.mustRead = true;
      return;
    }
    this.handed.push(...appended);
  }

  /**
   * The events after the checkpoint: the handed-over ones when they start right after it with no gap between them
   * (none handed and nothing else asked for a read: nothing to publish), else a read of the log.
   */
  private async nextBatch(): Promise<StoredEvent[]> {
    if (!this.mustRead) {
      if (this.handed.length === 0) return [];
      // Its place in the loop's background lane, as the read it replaces had: request work goes first, and the
      // appends made meanwhile join this batch.
      await sliceTurn();
      const run = this.mustRead ? undefined : this.handedRun();
      if (run) return run;
    }
    // Cleared before the read: a request for a read that comes while it is under way sets it again.
    this.mustRead = false;
    const batch = await this.store.readAll({ afterPosition: this.checkpoint, limit: this.batchSize });
    // A full batch may have more behind it, which nobody handed over.
    if (batch.length === this.batchSize) this.mustRead = true;
    return batch;
  }

  /** The handed-over events continuing the checkpoint without a gap; `undefined` when they do not (read the log). */
  private handedRun(): StoredEvent[] | undefined {
    const pending = this.handed.filter((event) => event.position > this.checkpoint).sort((a, b) => a.position - b.position);
    let length = 0;
    while (length < pending.length && pending[length]?.position === this.checkpoint + 1 + length) length++;
    if (pending.length > 0 && length === 0) {
      // Something not handed over (another process's append, a gap in a store's positions) comes first.
      this.handed = [];
      return undefined;
    }
    this.handed = pending.slice(length);
    return pending.slice(0, length);
  }

  /** A new term: continue from the shared checkpoint, which another leader may have moved (either way). */
  private async reloadCheckpoint(): Promise<void> {
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    await this.saving;
    this.reload = false;
    try {
      const stored = await this.store.loadCheckpoint(this.name);
      this.checkpoint = stored;
      this.savedCheckpoint = stored;
    } catch (error) {
      this.reload = true;
      throw error;
    }
  }

  private async publishBatch(batch: StoredEvent[]): Promise<void> {
    // The lease is checked before every window: a deposed leader issues nothing more (what is in flight lands).
    for (let start = 0; start < batch.length && this.leading(); start += this.maxInFlight) {
      const window = batch.slice(start, start + this.maxInFlight);
      const routes = await Promise.allSettled(window.map((event) => this.routeOf(event)));
      // Resolving routes awaits the log: the lease is checked again, so a leader stopped or deposed meanwhile issues
      // nothing (its successor publishes from the checkpoint — publishing here too would repeat the window).
      if (!this.leading()) break;
      // Issued synchronously in log order, so one connection sends them in that order; awaited together.
      const outcomes = await Promise.allSettled(window.map((event, index) => this.publishOne(event, routes[index])));
      let acknowledged: number | undefined;
      let failure: PublishFailure | undefined;
      for (const [index, event] of window.entries()) {
        const outcome = outcomes[index];
        if (outcome?.status !== 'fulfilled') {
          if (failure) failure.others.push({ event, cause: outcome?.reason });
          else failure = new PublishFailure(event, outcome?.reason);
        } else if (failure) this.acknowledgedAhead.add(event.id);
        else {
          acknowledged = event.position;
          this.acknowledgedAhead.delete(event.id);
        }
      }
      // Only the acknowledged prefix: a later success behind a failure must not move the checkpoint past it.
      if (acknowledged !== undefined) {
        // Only the lease holder writes the shared checkpoint (here and in flushCheckpoint): a deposed leader whose
        // last window landed late would otherwise move it back under its successor (harmless — republished and
        // deduplicated — but needless).
        if (this.checkpointEveryMs > 0) this.scheduleCheckpoint();
        else if (this.leadership.isLeader()) {
          await this.store.saveCheckpoint(this.name, acknowledged);
          this.savedCheckpoint = acknowledged;
        }
        this.checkpoint = acknowledged;
      }
      if (failure) throw failure;
    }
  }

  /** Delayed mode: one write per interval, of wherever the relay has got to by then. */
  private scheduleCheckpoint(): void {
    if (this.checkpointTimer !== undefined) return;
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = undefined;
      this.saving = this.flushCheckpoint()
        .catch((error: unknown) => {
          this.report(error, { attempt: 1, retryInMs: this.checkpointEveryMs });
          if (this.state === 'running') this.scheduleCheckpoint();
        })
        .finally(() => (this.saving = undefined));
    }, this.checkpointEveryMs);
  }

  private async flushCheckpoint(): Promise<void> {
    const position = this.checkpoint;
    if (position === this.savedCheckpoint || !this.leadership.isLeader()) return;
    await this.store.saveCheckpoint(this.name, position);
    this.savedCheckpoint = Math.max(this.savedCheckpoint, position);
  }

  private report(error: unknown, failure: { event?: StoredEvent; attempt: number; retryInMs: number }): void {
    try {
      this.onError?.(error, failure);
    } catch {
      // A broken error reporter must not stop the relay.
    }
  }

  /** The event's messages; none for an event acknowledged in an earlier attempt of this window (not routed again). */
  private async routeOf(event: StoredEvent): Promise<readonly RouteTarget[]> {
    if (this.acknowledgedAhead.has(event.id)) return [];
    const targets = await this.route(event);
    return targets === undefined ? [] : 'subject' in targets ? [targets as RouteTarget] : (targets as readonly RouteTarget[]);
  }

  private publishOne(event: StoredEvent, route: PromiseSettledResult<readonly RouteTarget[]> | undefined): Promise<void> {
    // A failing route or publisher counts as a failed publish of this event: retried, never skipped.
    if (route?.status !== 'fulfilled') return Promise.reject(route?.reason ?? new Error(`no route for event ${event.id}`));
    try {
      if (route.value.length === 0) return Promise.resolve();
      // An event appended inside a traced operation carries its W3C context (metadata.trace_context): published as
      // message headers, so a consumer's span joins that trace.
      const trace = traceContextOf(event.metadata);
      const options = { msgId: event.id, ...(trace ? { headers: trace } : {}) };
      // All of an event's messages or a retry: one that landed is dropped as a duplicate when sent again.
      return Promise.all(route.value.map((target) => this.publisher.publish(target.subject, target.payload, options))).then(
        () => undefined,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private pause(ms: number): Promise<void> {
    // stop() may have come while the failed round was still settling, before there was a pause to cut short.
    if (this.state !== 'running') return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

function positive(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`EventLogRelay: ${field} must be a positive integer`);
  return value;
}
