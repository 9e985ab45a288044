import type { EventStore, StoredEvent } from '../event-store.port.js';

/** Where published events go. A JetStream adapter sets the message id to `msgId` so a republish is dropped. */
export interface EventPublisher {
  publish(subject: string, data: unknown, options: { msgId: string }): Promise<void>;
}

/** What to publish for a stored event; `undefined` keeps the event private (domain-only). */
export type EventRoute = (event: StoredEvent) => { subject: string; payload: unknown } | undefined;

export interface EventLogRelayOptions {
  store: EventStore;
  publisher: EventPublisher;
  route: EventRoute;
  /** Name of the checkpoint holding "published up to this position". One running relay per name. */
  checkpointName?: string;
  /** Events read from the log per round trip. Default 256. */
  batchSize?: number;
  /**
   * Publishes awaited together. Default 32. With more than one, a failed publish can be followed by later
   * ones that already landed (they are published again on retry and deduplicated by message id, but their
   * first delivery came first); `1` publishes strictly one after another.
   */
  maxInFlight?: number;
  /**
   * How long the stored checkpoint may lag the published position. 0 (default) writes it after every
   * acknowledged window; a few hundred milliseconds turns one write per event under light load into one per
   * interval. A crash then republishes at most that interval's events, which the broker deduplicates by id.
   */
  checkpointEveryMs?: number;
  /** Catch-up interval for appends this process was not told about (other processes). 0 disables. Default 1000. */
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
  }

  /** Position up to which every event has been published (or skipped by `route`). */
  get publishedUpTo(): number {
    return this.checkpoint;
  }

  /** For health endpoints: whether it runs, how far it has published, and how many rounds failed in a row. */
  status(): { state: 'new' | 'running' | 'stopped'; checkpoint: number; consecutiveFailures: number } {
    return { state: this.state, checkpoint: this.checkpoint, consecutiveFailures: this.failures };
  }

  /** Loads the stored checkpoint and starts catching up in the background; rejects if the load fails. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`EventLogRelay "${this.name}" cannot start: it is ${this.state}`);
    this.checkpoint = await this.store.loadCheckpoint(this.name);
    this.savedCheckpoint = this.checkpoint;
    this.state = 'running';
    if (this.pollIntervalMs > 0) this.pollTimer = setInterval(() => this.kick(), this.pollIntervalMs);
    this.kick();
  }

  /** Asks for a round soon, e.g. right after an append commits. Kicks during a round fold into one more round. */
  kick(): void {
    if (this.state !== 'running') return;
    this.kicked = true;
    this.ensureRound();
  }

  /** Resolves when no round is running and none is pending (everything readable so far was published). */
  async whenIdle(): Promise<void> {
    while (this.round) await this.round;
  }

  /** Stops polling, cuts a backoff short, and waits for the publishes in flight and their checkpoint. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    this.wake?.();
    await this.whenIdle();
    clearTimeout(this.checkpointTimer);
    await this.saving;
    await this.flushCheckpoint().catch((error: unknown) => this.report(error, { attempt: 1, retryInMs: 0 }));
  }

  private ensureRound(): void {
    if (this.round || this.state !== 'running') return;
    this.round = this.rounds().then(() => {
      this.round = undefined;
      // A kick that landed after the last check inside rounds() but before this callback.
      if (this.kicked) this.ensureRound();
    });
  }

  private async rounds(): Promise<void> {
    while (this.kicked && this.state === 'running') {
      this.kicked = false;
      await this.catchUp();
    }
  }

  /** Publishes until the log has nothing after the checkpoint; never rejects. */
  private async catchUp(): Promise<void> {
    while (this.state === 'running') {
      try {
        const batch = await this.store.readAll({ afterPosition: this.checkpoint, limit: this.batchSize });
        if (batch.length === 0) return;
        await this.publishBatch(batch);
        this.failures = 0;
      } catch (error) {
        this.failures += 1;
        const retryInMs = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** (this.failures - 1));
        const event = error instanceof PublishFailure ? error.event : undefined;
        try {
          this.onError?.(error instanceof PublishFailure ? error.cause : error, { ...(event ? { event } : {}), attempt: this.failures, retryInMs });
        } catch {
          // A broken error reporter must not stop the relay.
        }
        await this.pause(retryInMs);
      }
    }
  }

  private async publishBatch(batch: StoredEvent[]): Promise<void> {
    for (let start = 0; start < batch.length && this.state === 'running'; start += this.maxInFlight) {
      const window = batch.slice(start, start + this.maxInFlight);
      // Issued synchronously in log order, so one connection sends them in that order; awaited together.
      const outcomes = await Promise.allSettled(window.map((event) => this.publishOne(event)));
      let acknowledged: number | undefined;
      let failure: PublishFailure | undefined;
      for (const [index, event] of window.entries()) {
        const outcome = outcomes[index];
        if (outcome?.status !== 'fulfilled') {
          failure = new PublishFailure(event, outcome?.reason);
          break;
        }
        acknowledged = event.position;
      }
      // Only the acknowledged prefix: a later success behind a failure must not move the checkpoint past it.
      if (acknowledged !== undefined) {
        if (this.checkpointEveryMs === 0) {
          await this.store.saveCheckpoint(this.name, acknowledged);
          this.savedCheckpoint = acknowledged;
        } else this.scheduleCheckpoint();
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
    if (position === this.savedCheckpoint) return;
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

  private publishOne(event: StoredEvent): Promise<void> {
    try {
      const target = this.route(event);
      return target ? this.publisher.publish(target.subject, target.payload, { msgId: event.id }) : Promise.resolve();
    } catch (error) {
      // A throwing route or publisher counts as a failed publish of this event: retried, never skipped.
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
