import { randomUUID } from 'node:crypto';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { describeWithService, natsUrl, probeNats } from '@tenet/testing';
import { messageBusConformance } from '../testing/index.js';
import { NatsMessageBus } from './nats-message-bus.js';

const unique = (): string => randomUUID().replaceAll('-', '');
const gate = await probeNats();

describeWithService(gate, 'NatsMessageBus on a real NATS server', () => {
  messageBusConformance('JetStream + core NATS', async () => {
    const bus = await NatsMessageBus.connect({ servers: natsUrl(), name: 'conformance' });
    const streams: string[] = [];
    return {
      bus,
      createStream: async (spec) => {
        streams.push(spec.name);
        await bus.ensureStream(spec);
      },
      dispose: async () => {
        for (const name of streams) await bus.deleteStream(name).catch(() => undefined);
        await bus.close();
      },
    };
  });
});

describeWithService(gate, 'NatsMessageBus stream and consumer setup (every replica runs it)', () => {
  let bus: NatsMessageBus;
  let stream: string;
  let root: string;

  beforeEach(async () => {
    stream = `SETUP_${unique()}`;
    root = `setup.${unique()}`;
    bus = await NatsMessageBus.connect({
      servers: natsUrl(),
      name: 'setup-test',
      streams: [{ name: stream, subjects: [`${root}.>`], duplicateWindowMs: 30_000, storage: 'memory' }],
    });
  });

  afterEach(async () => {
    await bus.deleteStream(stream).catch(() => undefined);
    await bus.close();
  });

  it('creates the configured streams at connect, accepts the same spec again, and converges a changed one', async () => {
    const jsm = await jetstreamManager(bus.connection);
    expect((await jsm.streams.info(stream)).config).toMatchObject({
      subjects: [`${root}.>`],
      duplicate_window: 30_000 * 1e6,
      storage: StorageType.Memory,
    });

    await Promise.all(
      [1, 2].map(() => bus.ensureStream({ name: stream, subjects: [`${root}.>`], duplicateWindowMs: 30_000, storage: 'memory' })),
    );
    await bus.ensureStream({
      name: stream,
      subjects: [`${root}.>`, `${root}x.>`],
      duplicateWindowMs: 60_000,
      maxAgeMs: 3_600_000,
      storage: 'memory',
    });
    expect((await jsm.streams.info(stream)).config).toMatchObject({
      subjects: [`${root}.>`, `${root}x.>`],
      duplicate_window: 60_000 * 1e6,
      max_age: 3_600_000 * 1e6,
    });
    await expect(bus.ensureStream({ name: stream, subjects: [`${root}.>`], storage: 'file' })).rejects.toThrow(/storage/);
  });

  it('creates a durable pull consumer once and updates its settings when a new version starts it differently', async () => {
    const jsm = await jetstreamManager(bus.connection);
    const first = await bus.consume(
      { durable: 'worker', filterSubject: `${root}.a.*`, maxDeliver: 3, ackWaitMs: 10_000 },
      async () => undefined,
    );
    await first.stop();
    expect((await jsm.consumers.info(stream, 'worker')).config).toMatchObject({
      durable_name: 'worker',
      ack_policy: 'explicit',
      deliver_policy: 'all',
      filter_subject: `${root}.a.*`,
      max_deliver: 3,
      ack_wait: 10_000 * 1e6,
    });
    const second = await bus.consume({ durable: 'worker', filterSubject: `${root}.b.*`, maxDeliver: 7 }, async () => undefined);
    await second.stop();
    expect((await jsm.consumers.info(stream, 'worker')).config).toMatchObject({
      filter_subject: `${root}.b.*`,
      max_deliver: 7,
      ack_wait: 30_000 * 1e6,
    });
    expect((await jsm.consumers.list(stream).next()).map((c) => c.name)).toEqual(['worker']);
  });
});
