import { ConcurrencyError, type EventStore, type StoredEvent } from '@tenet/event-store';
import type { MessageBus, Subscription } from '@tenet/messaging';

/**
 * A per-session turn lease kept in the shared event log (stream `turnlease-<session>`), so that turns of one
 * session never run at the same time, whichever gateway process started them (ADR 0007). Claiming is an
 * append at the stream's current version: of two contenders exactly one commits, the other sees a
 * `ConcurrencyError` and waits. A holder that crashed leaves a claim whose lease runs out; the next contender
 * may then take it over. Waiters are woken by a `released` notification on the bus (core NATS across
 * processes) and otherwise re-check only when the current lease would run out.
 */
export const TURN_CLAIMED = 'TurnClaimed';
export const TURN_RELEASED = 'TurnReleased';

const leaseStream = (sessionId: string): string => `turnlease-${sessionId}`;
const releasedSubject = (sessionId: string): string => `tenet.gateway.session.${sessionId}.turn_released`;

interface Claim {
  trigger_offset: number;
  owner: string;
  lease_until: number;
}

export interface HeldLease {
  release(outcome: string): Promise<void>;
}

export class TurnLeases {
  private readonly waiters = new Map<string, Set<() => void>>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    private readonly owner: string,
    private readonly leaseMs = 180_000,
  ) {}

  async start(): Promise<void> {
    this.subscription = await this.bus.listen(releasedSubject('*'), (_data, subject) => {
      for (const wake of this.waiters.get(subject.split('.')[3] ?? '') ?? []) wake();
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  /** Resolves once this caller holds the session's turn lease. */
  async acquire(sessionId: string, triggerOffset: number): Promise<HeldLease> {
    for (;;) {
      const woken = this.nextRelease(sessionId);
      try {
        const version = await this.store.streamVersion(leaseStream(sessionId));
        const last: StoredEvent | undefined = version < 0 ? undefined : (await this.store.readStream(leaseStream(sessionId), { fromOffset: version, limit: 1 }))[0];
        const held = last?.type === TURN_CLAIMED ? (last.data as Claim) : undefined;
        const now = Date.now();
        if (held === undefined || held.lease_until <= now) {
          const claim: Claim = { trigger_offset: triggerOffset, owner: this.owner, lease_until: now + this.leaseMs };
          try {
            await this.store.append(leaseStream(sessionId), [{ type: TURN_CLAIMED, data: claim }], { expectedVersion: version < 0 ? 'no_stream' : version });
            return { release: (outcome) => this.release(sessionId, triggerOffset, outcome) };
          } catch (error) {
            if (error instanceof ConcurrencyError) continue; // another contender claimed first: look again
            throw error;
          }
        }
        await woken.wait(held.lease_until - now);
      } finally {
        woken.cancel();
      }
    }
  }

  private async release(sessionId: string, triggerOffset: number, outcome: string): Promise<void> {
    await this.store.append(leaseStream(sessionId), [{ type: TURN_RELEASED, data: { trigger_offset: triggerOffset, owner: this.owner, outcome } }]);
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
