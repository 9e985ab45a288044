import { VARIABLES } from '@tenet/config';
import { appendTogether, ConcurrencyError, type EventStore, type StoredEvent, type StreamAppend } from '@tenet/event-store';
import type { MessageBus, Subscription } from '@tenet/messaging';

/**
 * A per-session turn lease kept in the shared event log (stream `turnlease-<session>`), so that turns of one
 * session never run at the same time, whichever gateway process started them (ADR 0007, ADR 0015). Claiming is
 * an append at the stream's current version: of two contenders exactly one commits, the other sees a
 * `ConcurrencyError` and waits.
 *
 * A claim is valid while its owner is alive. Each gateway process beats a heartbeat (a named checkpoint
 * `turnowner:<owner>` holding the wall-clock time of its last beat) every third of the TTL; an owner whose
 * beat is older than the TTL is dead and its claims may be taken over at once — a crashed holder blocks its
 * sessions for at most the TTL (default 15 s), however long its turns were allowed to run. A holder checks
 * before each step that its claim is still the last one and its own heartbeat is fresh (`assertHeld`), so a
 * process that stalled past the TTL stops instead of racing the one that took over. Waiters are woken by a
 * `released` notification on the bus (core NATS across processes) and otherwise re-check the holder's
 * liveness every third of the TTL.
 */
export const TURN_CLAIMED = 'TurnClaimed';
export const TURN_RELEASED = 'TurnReleased';

export const leaseStream = (sessionId: string): string => `turnlease-${sessionId}`;
const releasedSubject = (sessionId: string): string => `tenet.gateway.session.${sessionId}.turn_released`;
const heartbeatName = (owner: string): string => `turnowner:${owner}`;

/** The default lease TTL: how long a dead gateway can block its sessions. */
export const DEFAULT_TURN_LEASE_TTL_MS = VARIABLES.TENET_TURN_LEASE_TTL_MS.fallback;

export interface Claim {
  trigger_offset: number;
  owner: string;
}

/** The lease was taken over (this process stalled past the TTL, or its heartbeat could not be written). */
export class TurnLeaseLostError extends Error {
  readonly code = 'TURN.LEASE_LOST';
  override readonly name = 'TurnLeaseLostError';
}

export interface HeldLease {
  /**
   * Releases the lease; `after` (other streams' records, e.g. the turn's crash-recovery close) is written with the
   * release in one transaction when the store can (all or none), else right after it (`appendTogether`).
   */
  release(outcome: string, after?: readonly StreamAppend[]): Promise<void>;
  /** Throws `TurnLeaseLostError` unless this process still holds the lease. */
  assertHeld(): Promise<void>;
}

export interface TurnLeaseOptions {
  /** An owner whose heartbeat is older than this is dead. Environment: `TENET_TURN_LEASE_TTL_MS`. */
  ttlMs?: number;
  /** Wall-clock milliseconds, shared by the gateways (heartbeats compare them across processes). */
  now?: () => number;
}

export class TurnLeases {
  private readonly waiters = new Map<string, Set<() => void>>();
  private subscription: Subscription | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastBeat = 0;
  readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    readonly owner: string,
    options: TurnLeaseOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TURN_LEASE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat().catch(() => undefined), Math.max(100, Math.floor(this.ttlMs / 3)));
    this.heartbeat.unref();
    this.subscription = await this.bus.listen(releasedSubject('*'), (_data, subject) => {
      for (const wake of this.waiters.get(subject.split('.')[3] ?? '') ?? []) wake();
    });
  }

  /** After the running turns finished: this owner is gone, so nothing waits on it for the TTL. */
  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.subscription?.stop();
    await this.store.saveCheckpoint(heartbeatName(this.owner), 0).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    const at = this.now();
    await this.store.saveCheckpoint(heartbeatName(this.owner), at);
    this.lastBeat = at;
  }

  /** Whether the owner's heartbeat is fresh (this process: its own last successful beat). */
  async alive(owner: string): Promise<boolean> {
    const beat = owner === this.owner ? this.lastBeat : await this.store.loadCheckpoint(heartbeatName(owner));
    return this.now() - beat < this.ttlMs;
  }

  /** The session's current claim, if the last lease event is one, with the stream's version. */
  async current(sessionId: string): Promise<{ version: number; held: Claim | undefined }> {
    const version = await this.store.streamVersion(leaseStream(sessionId));
    const last: StoredEvent | undefined =
      version < 0 ? undefined : (await this.store.readStream(leaseStream(sessionId), { fromOffset: version, limit: 1 }))[0];
    return { version, held: last?.type === TURN_CLAIMED ? (last.data as Claim) : undefined };
  }

  /** Resolves once this caller holds the session's turn lease. */
  async acquire(sessionId: string, triggerOffset: number): Promise<HeldLease> {
    for (;;) {
      const woken = this.nextRelease(sessionId);
      try {
        const { version, held } = await this.current(sessionId);
        if (held === undefined || !(await this.alive(held.owner))) {
          const claim: Claim = { trigger_offset: triggerOffset, owner: this.owner };
          try {
            await this.store.append(
              leaseStream(sessionId),
              [{ type: TURN_CLAIMED, data: claim, ...(held ? { metadata: { taken_over_from: held.owner } } : {}) }],
              {
                expectedVersion: version < 0 ? 'no_stream' : version,
              },
            );
            return {
              release: (outcome, after = []) => this.release(sessionId, triggerOffset, outcome, this.owner, undefined, after),
              assertHeld: () => this.assertHeld(sessionId, triggerOffset),
            };
          } catch (error) {
            if (error instanceof ConcurrencyError) continue; // another contender claimed first: look again
            throw error;
          }
        }
        await woken.wait(Math.floor(this.ttlMs / 3));
      } finally {
        woken.cancel();
      }
    }
  }

  private async assertHeld(sessionId: string, triggerOffset: number): Promise<void> {
    if (!(await this.alive(this.owner)))
      throw new TurnLeaseLostError(`this gateway's heartbeat is older than ${this.ttlMs} ms: its turn lease may have been taken over`);
    const { held } = await this.current(sessionId);
    if (held?.owner !== this.owner || held.trigger_offset !== triggerOffset)
      throw new TurnLeaseLostError(`the turn lease of session ${sessionId} was taken over by ${held?.owner ?? 'nobody'}`);
  }

  /**
   * Releases the lease; `expectedVersion` makes it conditional (a sweeper releasing a dead owner's claim). `after` is
   * written with the release (see `HeldLease.release`).
   */
  async release(
    sessionId: string,
    triggerOffset: number,
    outcome: string,
    owner = this.owner,
    expectedVersion?: number,
    after: readonly StreamAppend[] = [],
  ): Promise<void> {
    const released: StreamAppend = {
      streamId: leaseStream(sessionId),
      events: [{ type: TURN_RELEASED, data: { trigger_offset: triggerOffset, owner, outcome } }],
      ...(expectedVersion === undefined ? {} : { expectedVersion }),
    };
    await appendTogether(this.store, [released, ...after]);
    await this.bus.notify(releasedSubject(sessionId), { trigger_offset: triggerOffset });
  }

  /** Registered before reading the lease, so a release between the read and the wait is not missed. */
  private nextRelease(sessionId: string): { wait(ms: number): Promise<void>; cancel(): void } {
    let wake!: () => void;
    const released = new Promise<void>((resolve) => (wake = resolve));
    const set = this.waiters.get(sessionId) ?? new Set();
    set.add(wake);
    this.waiters.set(sessionId, set);
    let timer: NodeJS.Timeout | undefined;
    return {
      wait: (ms) => Promise.race([released, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]),
      cancel: () => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(sessionId);
      },
    };
  }
}
