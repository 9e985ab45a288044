import { eventually } from '@tenet/testing';
import type { EventStore, NewEvent, StoredEvent } from '../event-store.port.js';
import { InMemoryEventStore } from '../memory/in-memory-event-store.js';
import { EventLogRelay, type EventLogRelayOptions, type EventPublisher, type EventRoute } from './event-log-relay.js';
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
  readAll(...args: Parameters<EventStore['readAll']>): ReturnType<EventStore['readAll']> {
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
      if (event.position <= position && this.route(event) && !this.acknowledged.has(event.id)) this.violations.push(`checkpoint ${position} passed unacknowledged ${event.id}`);
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

const publicOnly: EventRoute = (event) => (event.type.startsWith('Private') ? undefined : { subject: `tenet.v1.test.${event.type}`, payload: { n: event.data } });

const events = (count: number, prefix = 'Happened'): NewEvent[] => Array.from({ length: count }, (_, i) => ({ type: `${prefix}${i}`, data: i }));

describe('EventLogRelay', () => {
  let relays: EventLogRelay[];
  let store: InMemoryEventStore;
  let publisher: ScriptedPublisher;
  let audited: CheckpointAuditor;
  let ledger: Set<string>;
  const scripted = (decide?: (msgId: string, attempt: number) => 'ack' | 'fail' | Promise<'ack' | 'fail'>): ScriptedPublisher => new ScriptedPublisher(ledger, decide);

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

  it('pipelines a batch but never checkpoints past a failure, republishing from the failed event', async () => {
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
    expect([0, 1, 2, 7].map(attemptsOf)).toEqual([1, 2, 2, 2]);
    // The retry round re-issued 1..7 in log order with the same message ids, so the broker dedups 2..7.
    expect(publisher.attempts.slice(8).map((p) => p.msgId)).toEqual(all.slice(1).map((e) => e.id));
    expect(new Set(publisher.acknowledged.map((p) => p.msgId))).toEqual(new Set(all.map((e) => e.id)));
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
});
