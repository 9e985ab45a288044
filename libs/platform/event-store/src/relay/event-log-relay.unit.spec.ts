import { eventually } from '@tenet/testing';
import type { EventStore, NewEvent, StoredEvent } from '../event-store.port.js';
import { InMemoryEventStore } from '../memory/in-memory-event-store.js';
import { EventLogRelay, type EventLogRelayOptions, type EventPublisher, type EventRoute } from './event-log-relay.js';
import type { RelayLeadership, RelayLeadershipListener, RelayWakeups } from './relay-leadership.js';
import { withPublishing } from './with-publishing.js';

interface Publish {
  subject: string;
  data: unknown;
  msgId: string;
}

/**
 * A publisher driven by a script: `decide(msgId, attempt)` returns 'ack', 'fail' or a promise to wait on
 * first. It records every attempt and every acknowledged publish, like a broker would see them.
 */
class ScriptedPublisher implements EventPublisher {
  readonly attempts: Publish[] = [];
  readonly acknowledged: Publish[] = [];
  private readonly tries = new Map<string, number>();

  constructor(
    /** Every acknowledgement is also written here, so an audit can span several relay lives. */
    private readonly ledger: Set<string>,
    private readonly decide: (msgId: string, attempt: number) => 'ack' | 'fail' | Promise<'ack' | 'fail'> = () => 'ack',
  ) {}

  async publish(subject: string, data: unknown, options: { msgId: string }): Promise<void> {
    const attempt = (this.tries.get(options.msgId) ?? 0) + 1;
    this.tries.set(options.msgId, attempt);
    this.attempts.push({ subject, data, msgId: options.msgId });
    const outcome = await this.decide(options.msgId, attempt);
    if (outcome === 'fail') throw new Error(`broker refused ${options.msgId} (attempt ${attempt})`);
    this.acknowledged.push({ subject, data, msgId: options.msgId });
    this.ledger.add(options.msgId);
  }

  /** Distinct acknowledged message ids, in the order of their first acknowledgement. */
  firstAcks(): string[] {
    return [...new Set(this.acknowledged.map((p) => p.msgId))];
  }
}

/**
 * Delegates to a real store and checks, at every checkpoint save, that the relay only claims what was
 * acknowledged: each routed event at or below the saved position must already be acknowledged.
 */
class CheckpointAuditor implements EventStore {
  readonly saved: number[] = [];
  readonly violations: string[] = [];
  failSaves = 0;

  constructor(
    private readonly inner: EventStore,
    private readonly acknowledged: Set<string>,
    private readonly route: EventRoute,
  ) {}

  append(...args: Parameters<EventStore['append']>): ReturnType<EventStore['append']> {
    return this.inner.append(...args);
  }
  readStream(...args: Parameters<EventStore['readStream']>): ReturnType<EventStore['readStream']> {
    return this.inner.readStream(...args);
  }
  /** The relay's reads of the log (the audit's own reads are not counted). */
  reads = 0;
  readAll(...args: Parameters<EventStore['readAll']>): ReturnType<EventStore['readAll']> {
    this.reads += 1;
    return this.inner.readAll(...args);
  }
  streamVersion(streamId: string): Promise<number> {
    return this.inner.streamVersion(streamId);
  }
  loadCheckpoint(name: string): Promise<number> {
    return this.inner.loadCheckpoint(name);
  }
  async saveCheckpoint(name: string, position: number): Promise<void> {
    for (const event of await this.inner.readAll({ limit: position })) {
      if (event.position <= position && this.route(event) && !this.acknowledged.has(event.id))
        this.violations.push(`checkpoint ${position} passed unacknowledged ${event.id}`);
    }
    if (this.failSaves > 0) {
      this.failSaves -= 1;
      throw new Error('checkpoint write failed');
    }
    this.saved.push(position);
    await this.inner.saveCheckpoint(name, position);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * A lease coordinator in memory: one holder at a time, the others campaign in arrival order. Tests release,
 * lapse (the holder is not told, as when it crashed or is paused) and depose (tell a former holder) like the
 * NATS KV lease would. Wake-ups fan out to every listening relay of the group.
 */
class FakeLeases {
  holder: FakeLease | undefined;
  private readonly campaigning: FakeLease[] = [];
  private readonly wakeListeners = new Set<() => void>();
  wakesSent = 0;

  lease(): FakeLease {
    return new FakeLease(this);
  }

  wakeups(): RelayWakeups {
    return {
      send: () => {
        this.wakesSent += 1;
        for (const listener of this.wakeListeners) listener();
      },
      listen: async (onWake) => {
        this.wakeListeners.add(onWake);
        return { stop: async () => void this.wakeListeners.delete(onWake) };
      },
    };
  }

  campaign(lease: FakeLease): void {
    if (this.holder === undefined) this.elect(lease);
    else if (this.holder !== lease && !this.campaigning.includes(lease)) this.campaigning.push(lease);
  }

  withdraw(lease: FakeLease): void {
    const index = this.campaigning.indexOf(lease);
    if (index >= 0) this.campaigning.splice(index, 1);
    if (this.holder === lease) {
      this.holder = undefined;
      this.electNext();
    }
  }

  /** The holder's claim lapses without it knowing: the next contender is elected. Returns the old holder. */
  lapse(): FakeLease {
    const old = this.holder!;
    this.holder = undefined;
    this.electNext();
    return old;
  }

  private electNext(): void {
    const next = this.campaigning.shift();
    if (next) this.elect(next);
  }

  private elect(lease: FakeLease): void {
    this.holder = lease;
    lease.listener?.elected();
  }
}

class FakeLease implements RelayLeadership {
  listener: RelayLeadershipListener | undefined;
  constructor(private readonly leases: FakeLeases) {}
  async start(listener: RelayLeadershipListener): Promise<void> {
    this.listener = listener;
    this.leases.campaign(this);
  }
  isLeader(): boolean {
    return this.leases.holder === this;
  }
  async stop(): Promise<void> {
    this.leases.withdraw(this);
    this.listener = undefined;
  }
  /** What the real lease does when its next renewal fails by CAS: tell the relay, then campaign again. */
  depose(): void {
    this.listener?.deposed();
    this.leases.campaign(this);
  }
}

const publicOnly: EventRoute = (event) =>
  event.type.startsWith('Private') ? undefined : { subject: `tenet.v1.test.${event.type}`, payload: { n: event.data } };

const events = (count: number, prefix = 'Happened'): NewEvent[] =>
  Array.from({ length: count }, (_, i) => ({ type: `${prefix}${i}`, data: i }));

describe('EventLogRelay', () => {
  let relays: EventLogRelay[];
  let store: InMemoryEventStore;
  let publisher: ScriptedPublisher;
  let audited: CheckpointAuditor;
  let ledger: Set<string>;
  const scripted = (decide?: (msgId: string, attempt: number) => 'ack' | 'fail' | Promise<'ack' | 'fail'>): ScriptedPublisher =>
    new ScriptedPublisher(ledger, decide);

  const relay = (overrides: Partial<EventLogRelayOptions> = {}): EventLogRelay => {
    const created = new EventLogRelay({
      store: audited,
      publisher,
      route: publicOnly,
      pollIntervalMs: 0,
      retry: { initialDelayMs: 1, maxDelayMs: 8 },
      ...overrides,
    });
    relays.push(created);
    return created;
  };

  const expectInOrderExactlyFrom = async (from: number, route: EventRoute = publicOnly): Promise<StoredEvent[]> => {
    const routed = (await store.readAll({ afterPosition: from })).filter((event) => route(event) !== undefined);
    expect(publisher.firstAcks()).toEqual(routed.map((event) => event.id));
    return routed;
  };

  beforeEach(() => {
    relays = [];
    store = new InMemoryEventStore();
    ledger = new Set();
    publisher = scripted();
    audited = new CheckpointAuditor(store, ledger, publicOnly);
  });

  afterEach(async () => {
    await Promise.all(relays.map((r) => r.stop()));
    expect(audited.violations).toEqual([]);
  });

  it('with checkpointEveryMs, writes the checkpoint once per interval rather than per event, and flushes it on stop', async () => {
    const relayed = relay({ checkpointEveryMs: 100 });
    await relayed.start();
    for (let i = 0; i < 20; i++) {
      await store.append('s-1', events(1));
      relayed.kick();
      await relayed.whenIdle();
    }
    expect(relayed.publishedUpTo).toBe(20);
    expect(audited.saved.length).toBeLessThan(5);
    await eventually(() => expect(audited.saved.at(-1)).toBe(20));
    await store.append('s-1', events(1));
    relayed.kick();
    await relayed.whenIdle();
    await relayed.stop();
    expect(await store.loadCheckpoint('event-log-relay')).toBe(21);
  });

  it('publishes routed events in log order with the event id as message id, and checkpoints past unrouted ones', async () => {
    await store.append('s-1', [...events(3), { type: 'PrivateNote', data: 'x' }]);
    await store.append('s-2', events(2, 'Other'));
    const relayed = relay({ batchSize: 2 });

    await relayed.start();
    await relayed.whenIdle();

    const routed = await expectInOrderExactlyFrom(0);
    expect(publisher.acknowledged[0]).toEqual({ subject: 'tenet.v1.test.Happened0', data: { n: 0 }, msgId: routed[0]!.id });
    expect(publisher.attempts).toHaveLength(5);
    expect(relayed.publishedUpTo).toBe(6);
    expect(await store.loadCheckpoint('event-log-relay')).toBe(6);
  });

  it('publishes every message of an asynchronous multi-target route, in log order, each with the event id', async () => {
    await store.append('s-1', events(4));
    // Resolved out of order (later events first): the publishes must still leave in log order.
    const twoMajors: EventRoute = async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 20 - 4 * event.position));
      return [
        { subject: `tenet.v1.test.${event.type}`, payload: event.data },
        { subject: `tenet.v2.ws${event.position % 2}.test.${event.type}`, payload: event.data },
      ];
    };
    const relayed = relay({ route: twoMajors });
    await relayed.start();
    await relayed.whenIdle();

    const stored = await store.readAll();
    expect(publisher.attempts.map((p) => [p.subject, p.msgId])).toEqual(
      stored.flatMap((e) => [
        [`tenet.v1.test.${e.type}`, e.id],
        [`tenet.v2.ws${e.position % 2}.test.${e.type}`, e.id],
      ]),
    );
    expect(relayed.publishedUpTo).toBe(4);
  });

  it('treats a failing route like a failed publish: retried, never skipped, the checkpoint held before it', async () => {
    await store.append('s-1', events(3));
    const [, second] = await store.readAll();
    let refusals = 2;
    const flaky: EventRoute = async (event) => {
      if (event.id === second!.id && refusals-- > 0) throw new Error('owner lookup failed');
      return publicOnly(event);
    };
    const errors: string[] = [];
    const relayed = relay({
      route: flaky,
      maxInFlight: 1,
      onError: (error, failure) => errors.push(`${failure.event?.id}: ${(error as Error).message}`),
    });
    await relayed.start();
    await relayed.whenIdle();

    expect(errors).toEqual([`${second!.id}: owner lookup failed`, `${second!.id}: owner lookup failed`]);
    expect(publisher.firstAcks()).toEqual((await store.readAll()).map((e) => e.id));
    expect(relayed.publishedUpTo).toBe(3);
  });

  it('retries a failing publish with backoff until it succeeds, never skipping it (strict order with maxInFlight 1)', async () => {
    await store.append('s-1', events(6));
    const stubborn = (await store.readAll())[2]!.id;
    publisher = scripted((msgId, attempt) => (msgId === stubborn && attempt <= 4 ? 'fail' : 'ack'));
    const errors: number[] = [];
    const relayed = relay({ maxInFlight: 1, onError: (_error, failure) => errors.push(failure.retryInMs) });

    await relayed.start();
    await relayed.whenIdle();

    expect(publisher.acknowledged.map((p) => p.msgId)).toEqual((await store.readAll()).map((e) => e.id));
    expect(publisher.attempts.filter((p) => p.msgId === stubborn)).toHaveLength(5);
    expect(errors).toEqual([1, 2, 4, 8]);
    expect(audited.saved.at(-1)).toBe(6);
  });

  it('pipelines a batch but never checkpoints past a failure, republishing only the failed event', async () => {
    await store.append('s-1', events(8));
    const all = await store.readAll();
    let release!: () => void;
    const slowFirst = new Promise<'fail'>((resolve) => (release = () => resolve('fail')));
    // Event 1 fails late, after events 2..7 were acknowledged: the checkpoint may only reach event 0.
    publisher = scripted((msgId, attempt) => (msgId === all[1]!.id && attempt === 1 ? slowFirst : 'ack'));
    const relayed = relay({ maxInFlight: 8 });

    await relayed.start();
    await eventually(() => expect(publisher.acknowledged).toHaveLength(7));
    expect(relayed.publishedUpTo).toBe(0);
    release();
    await relayed.whenIdle();

    expect(audited.saved).toEqual([1, 8]);
    const attemptsOf = (index: number): number => publisher.attempts.filter((p) => p.msgId === all[index]!.id).length;
    expect([0, 1, 2, 7].map(attemptsOf)).toEqual([1, 2, 1, 1]);
    // The retry round re-issued event 1 only: 2..7 were acknowledged already, so subscribers get each once.
    expect(publisher.attempts.slice(8).map((p) => p.msgId)).toEqual([all[1]!.id]);
    expect(publisher.acknowledged.map((p) => p.msgId).sort()).toEqual(all.map((e) => e.id).sort());
  });

  it('reports every failed event of a window and retries only those, in log order', async () => {
    await store.append('s-1', events(6));
    const all = (await store.readAll()).map((e) => e.id);
    publisher = scripted((msgId, attempt) => ((msgId === all[1] || msgId === all[4]) && attempt === 1 ? 'fail' : 'ack'));
    const reported: (string | undefined)[] = [];
    const relayed = relay({ maxInFlight: 6, onError: (_error, failure) => reported.push(failure.event?.id) });

    await relayed.start();
    await relayed.whenIdle();

    expect(reported).toEqual([all[1], all[4]]);
    expect(publisher.attempts.map((p) => p.msgId)).toEqual([...all, all[1], all[4]]);
    expect(publisher.acknowledged).toHaveLength(6);
    expect(audited.saved).toEqual([1, 6]);
  });

  it('resumes from the stored checkpoint after a crash mid-batch, republishing only what was not checkpointed', async () => {
    await store.append('s-1', events(10));
    const all = await store.readAll();
    // First life: the broker takes events 0..3, then the connection dies for good.
    publisher = scripted((msgId) => (all.findIndex((e) => e.id === msgId) < 4 ? 'ack' : 'fail'));
    const first = relay({ maxInFlight: 3, batchSize: 5 });
    await first.start();
    await eventually(() => expect(publisher.attempts.filter((p) => p.msgId === all[4]!.id).length).toBeGreaterThanOrEqual(2));
    await first.stop();
    const checkpointAfterCrash = await store.loadCheckpoint('event-log-relay');
    expect(checkpointAfterCrash).toBe(all[3]!.position);
    const firstLife = publisher;

    // Second life (a new process): same store, a healthy broker.
    publisher = scripted();
    const second = relay({ maxInFlight: 3, batchSize: 5 });
    await second.start();
    await second.whenIdle();

    expect(publisher.acknowledged.map((p) => p.msgId)).toEqual(all.slice(4).map((e) => e.id));
    expect(new Set([...firstLife.acknowledged, ...publisher.acknowledged].map((p) => p.msgId)).size).toBe(10);
  });

  it('republishes with the same message ids when it crashed after publishing but before its checkpoint', async () => {
    await store.append('s-1', events(4));
    const ids = (await store.readAll()).map((e) => e.id);
    // First life: every publish is acknowledged, but the checkpoint write fails, then the process dies.
    audited.failSaves = Number.POSITIVE_INFINITY;
    const first = relay({ retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    await first.start();
    await eventually(() => expect(publisher.acknowledged.map((p) => p.msgId)).toEqual(ids));
    await first.stop();
    expect(await store.loadCheckpoint('event-log-relay')).toBe(0);

    audited.failSaves = 0;
    publisher = scripted();
    const again = relay();
    await again.start();
    await again.whenIdle();

    expect(publisher.acknowledged.map((p) => p.msgId)).toEqual(ids);
    expect(await store.loadCheckpoint('event-log-relay')).toBe(4);
  });

  it('publishes promptly after appends through withPublishing, coalescing concurrent kicks', async () => {
    const relayed = relay();
    const publishing = withPublishing(audited, relayed);
    await relayed.start();

    await Promise.all(Array.from({ length: 20 }, (_, i) => publishing.append(`s-${i % 3}`, events(2))));
    await eventually(() => expect(publisher.acknowledged).toHaveLength(40));

    await expectInOrderExactlyFrom(0);
    expect(publisher.attempts).toHaveLength(40);
    await publishing.close();
    await expect(store.readAll()).rejects.toMatchObject({ code: 'EVENT_LOG.UNAVAILABLE' });
  });

  it('publishes the events an append hands over without reading them back from the log', async () => {
    const relayed = relay();
    const publishing = withPublishing(audited, relayed);
    await relayed.start();
    await relayed.whenIdle();
    const readsAtStart = audited.reads;

    for (let i = 0; i < 10; i++) {
      await publishing.append(`s-${i % 2}`, events(2));
      await relayed.whenIdle();
    }

    expect(publisher.acknowledged).toHaveLength(20);
    await expectInOrderExactlyFrom(0);
    expect(audited.reads).toBe(readsAtStart);
    expect(relayed.publishedUpTo).toBe(20);
  });

  it('reads the log when an append it was not handed comes before the handed ones, and publishes both in order', async () => {
    const relayed = relay();
    const publishing = withPublishing(audited, relayed);
    await relayed.start();
    await publishing.append('s-1', events(1));
    await relayed.whenIdle();
    const readsBefore = audited.reads;

    // Another process's append (no kick here), then one of ours: the handed event does not continue the checkpoint.
    await store.openHandle().append('elsewhere', events(2, 'Foreign'));
    await publishing.append('s-1', events(1, 'Ours'));
    await relayed.whenIdle();

    expect(audited.reads).toBeGreaterThan(readsBefore);
    const routed = await expectInOrderExactlyFrom(0);
    expect(routed.map((event) => event.type)).toEqual(['Happened0', 'Foreign0', 'Foreign1', 'Ours0']);
    expect(relayed.publishedUpTo).toBe(4);
  });

  it('after a failed publish of handed events, retries from the log without skipping or reordering', async () => {
    publisher = scripted((msgId, attempt) => (msgId === 'evt-second' && attempt === 1 ? 'fail' : 'ack'));
    const relayed = relay({ maxInFlight: 1 });
    const publishing = withPublishing(audited, relayed);
    await relayed.start();
    await relayed.whenIdle();
    const readsBefore = audited.reads;

    await publishing.append(
      's-1',
      ['evt-first', 'evt-second', 'evt-third'].map((id, i) => ({ id, type: `Happened${i}`, data: i })),
    );
    await eventually(() => expect(publisher.firstAcks()).toHaveLength(3));
    await relayed.whenIdle();

    await expectInOrderExactlyFrom(0);
    expect(publisher.attempts.map((p) => p.msgId)).toEqual(['evt-first', 'evt-second', 'evt-second', 'evt-third']);
    expect(audited.reads).toBeGreaterThan(readsBefore);
    expect(relayed.publishedUpTo).toBe(3);
  });

  it('catches up by polling on appends it was not told about', async () => {
    const relayed = relay({ pollIntervalMs: 10 });
    await relayed.start();

    await store.openHandle().append('elsewhere', events(3));

    await eventually(() => expect(publisher.acknowledged).toHaveLength(3));
    await expectInOrderExactlyFrom(0);
  });

  it('stops while backing off, without waiting for the next retry', async () => {
    await store.append('s-1', events(1));
    publisher = scripted(() => 'fail');
    const relayed = relay({ retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    await relayed.start();
    await eventually(() => expect(publisher.attempts).toHaveLength(1));

    await relayed.stop();

    expect(relayed.publishedUpTo).toBe(0);
    relayed.kick();
    expect(publisher.attempts).toHaveLength(1);
  });
  describe('with a leadership shared by several relays on one log', () => {
    let leases: FakeLeases;
    beforeEach(() => {
      leases = new FakeLeases();
    });
    const shared = (overrides: Partial<EventLogRelayOptions> = {}): EventLogRelay =>
      relay({ leadership: leases.lease(), wakeups: leases.wakeups(), ...overrides });

    it('publishes only from the lease holder; a standby runs no rounds (not even on its poll) and forwards its kicks to the leader', async () => {
      const standbyPublisher = scripted();
      const leader = shared();
      const standby = shared({ publisher: standbyPublisher, pollIntervalMs: 5 });
      await leader.start();
      await standby.start();
      expect([leader.status().role, standby.status().role]).toEqual(['leader', 'standby']);

      // The leader does not poll (pollIntervalMs 0): only the standby's forwarded kicks can make it publish these.
      const viaStandby = withPublishing(audited, standby);
      for (let i = 0; i < 5; i++) await viaStandby.append('s-standby', events(1));
      await eventually(() => expect(publisher.acknowledged).toHaveLength(5));
      expect(leases.wakesSent).toBeGreaterThan(0);

      const viaLeader = withPublishing(audited, leader);
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? viaLeader : viaStandby).append(`s-${i % 3}`, events(2))));
      await eventually(() => expect(publisher.acknowledged).toHaveLength(45));
      await new Promise((resolve) => setTimeout(resolve, 30)); // several standby polls

      await expectInOrderExactlyFrom(0);
      expect(publisher.attempts).toHaveLength(45);
      expect(standbyPublisher.attempts).toEqual([]);
      expect(standby.status()).toMatchObject({ state: 'running', role: 'standby' });
    });

    it('hands over on a clean stop: the standby resumes from the checkpoint the leader flushed, so every event is published exactly once', async () => {
      const secondPublisher = scripted();
      const first = shared({ checkpointEveryMs: 60_000 }); // its checkpoint is only written by the flush on stop
      const second = shared({ publisher: secondPublisher });
      await first.start();
      await second.start();
      await withPublishing(audited, first).append('s-1', events(10));
      await first.whenIdle();
      expect(await store.loadCheckpoint('event-log-relay')).toBe(0);

      await first.stop();
      expect(await store.loadCheckpoint('event-log-relay')).toBe(10);
      expect(second.status().role).toBe('leader');
      await withPublishing(audited, second).append('s-2', events(5));
      await eventually(() => expect(second.publishedUpTo).toBe(15));

      const all = (await store.readAll()).map((e) => e.id);
      expect(publisher.acknowledged.map((p) => p.msgId)).toEqual(all.slice(0, 10));
      expect(secondPublisher.attempts.map((p) => p.msgId)).toEqual(all.slice(10));
    });

    it('a leader stopped while it resolves a window\u2019s routes (a lookup in the log) publishes nothing of it; its successor does, once', async () => {
      let release!: () => void;
      const lookup = new Promise<void>((resolve) => (release = resolve));
      let resolving!: () => void;
      const started = new Promise<void>((resolve) => (resolving = resolve));
      const slowRoute: EventRoute = async (event) => {
        resolving();
        await lookup;
        return publicOnly(event);
      };
      const secondPublisher = scripted();
      const first = shared({ route: slowRoute });
      const second = shared({ publisher: secondPublisher });
      await first.start();
      await second.start();
      await store.append('s-1', events(4));
      first.kick();
      await started;
      const stopping = first.stop();
      release();
      await stopping;

      expect(publisher.attempts).toEqual([]);
      expect(second.status().role).toBe('leader');
      second.kick();
      await eventually(() => expect(secondPublisher.acknowledged).toHaveLength(4));
    });

    it('takes over from a crashed leader at the stored checkpoint, republishing (same message ids) only what that leader had not checkpointed', async () => {
      const secondPublisher = scripted();
      const first = shared({ retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
      const second = shared({ publisher: secondPublisher });
      await first.start();
      await second.start();
      await store.append('s-1', events(6));
      first.kick();
      await first.whenIdle();
      expect(await store.loadCheckpoint('event-log-relay')).toBe(6);

      // Events 7..10 are published, but their checkpoint write fails; then the process dies.
      audited.failSaves = Number.POSITIVE_INFINITY;
      await store.append('s-1', events(4, 'Late'));
      first.kick();
      await eventually(() => expect(publisher.acknowledged).toHaveLength(10));
      leases.lapse(); // it crashed: never told, never releases
      audited.failSaves = 0;

      await store.append('s-2', events(3));
      second.kick();
      await eventually(() => expect(second.publishedUpTo).toBe(13));
      const all = (await store.readAll()).map((e) => e.id);
      expect(secondPublisher.acknowledged.map((p) => p.msgId)).toEqual(all.slice(6));
      expect(new Set([...publisher.acknowledged, ...secondPublisher.acknowledged].map((p) => p.msgId))).toEqual(new Set(all));
      expect(first.status().role).toBe('standby');
    });

    it('stops a deposed leader at its next window, even before it is told, while its successor continues from the checkpoint', async () => {
      await store.append('s-1', events(8));
      const all = (await store.readAll()).map((e) => e.id);
      let release!: () => void;
      const gate = new Promise<'ack'>((resolve) => (release = () => resolve('ack')));
      // The leader's window with events 3 and 4 hangs (a paused process, a slow broker)…
      publisher = scripted((msgId) => (msgId === all[2] || msgId === all[3] ? gate : 'ack'));
      const secondPublisher = scripted();
      const first = shared({ maxInFlight: 2 });
      const second = shared({ publisher: secondPublisher });
      await first.start();
      await second.start();
      await eventually(() => expect(publisher.attempts).toHaveLength(4));
      expect(await store.loadCheckpoint('event-log-relay')).toBe(2);

      // …meanwhile its lease lapses and the standby takes over from the stored checkpoint.
      leases.lapse();
      await eventually(() => expect(second.publishedUpTo).toBe(8));
      expect(secondPublisher.acknowledged.map((p) => p.msgId)).toEqual(all.slice(2));

      // The hung window lands (3 and 4 twice: the narrow window JetStream deduplicates by message id), and then
      // the old leader issues nothing more and writes no checkpoint over its successor's.
      release();
      await first.whenIdle();
      expect(publisher.attempts.map((p) => p.msgId)).toEqual(all.slice(0, 4));
      expect(first.publishedUpTo).toBe(4);
      expect(await store.loadCheckpoint('event-log-relay')).toBe(8);
    });

    it('reloads the shared checkpoint when elected again, instead of republishing from where its previous term ended', async () => {
      const secondPublisher = scripted();
      const first = shared();
      const second = shared({ publisher: secondPublisher });
      await first.start();
      await second.start();
      const firstLease = leases.holder!;
      await withPublishing(audited, first).append('s-1', events(5));
      await first.whenIdle();

      // A lapse and a late deposition notice: the first relay becomes a standby behind the second.
      leases.lapse();
      firstLease.depose();
      await withPublishing(audited, second).append('s-1', events(5, 'Second'));
      await eventually(() => expect(second.publishedUpTo).toBe(10));
      expect(first.publishedUpTo).toBe(5);

      await second.stop();
      expect(first.status().role).toBe('leader');
      await withPublishing(audited, first).append('s-1', events(2, 'Third'));
      await eventually(() => expect(first.publishedUpTo).toBe(12));
      const all = (await store.readAll()).map((e) => e.id);
      expect(publisher.attempts.map((p) => p.msgId)).toEqual([...all.slice(0, 5), ...all.slice(10)]);
      expect(secondPublisher.attempts.map((p) => p.msgId)).toEqual(all.slice(5, 10));
    });

    it("a standby without wake-ups leaves its appends to the leader's poll", async () => {
      const leader = shared({ wakeups: undefined, pollIntervalMs: 10 });
      const standby = shared({ wakeups: undefined });
      await leader.start();
      await standby.start();
      await withPublishing(audited, standby).append('s-1', events(3));
      expect(leases.wakesSent).toBe(0);
      await eventually(() => expect(publisher.acknowledged).toHaveLength(3));
      await expectInOrderExactlyFrom(0);
    });
  });
});
