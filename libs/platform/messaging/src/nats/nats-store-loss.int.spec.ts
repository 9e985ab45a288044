import { rmSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { eventually, startOwnNats, type OwnServer } from '@tenet/testing';
import { NatsLeaderLease } from './nats-leader-lease.js';
import { NatsMessageBus } from './nats-message-bus.js';

/**
 * NATS back without its JetStream store (a restart that lost its volume): every stream, durable consumer and KV bucket
 * is gone. The bus makes its streams again at the reconnect, a consumer's pull ends on the missing durable and its
 * loop recreates it, and the leader lease makes its bucket again — all without restarting the process. Own
 * nats-server, its store directory removed between kill and start.
 */
describe('NATS restarted without its JetStream store (own nats-server)', () => {
  let nats: OwnServer;
  const closing: (() => Promise<unknown>)[] = [];

  beforeEach(async () => {
    nats = await startOwnNats();
  });

  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close().catch(() => undefined);
    await nats.dispose();
  });

  const loseTheStore = async (): Promise<void> => {
    await nats.kill();
    rmSync(nats.dir, { recursive: true, force: true });
    await nats.start();
  };

  it('makes its streams again at the reconnect and its durable consumer resumes: messages published after are handled', async () => {
    const bus = await NatsMessageBus.connect({
      servers: nats.url,
      name: 'store-loss',
      streams: [{ name: 'LOSS', subjects: ['loss.>'], storage: 'file' }],
      reconnectTimeWaitMs: 200,
      onConsumerError: () => undefined,
      onConnectionEvent: () => undefined,
    });
    closing.push(() => bus.close());
    const handled: string[] = [];
    const subscription = await bus.consume<{ n: string }>({ durable: 'loss_worker', filterSubject: 'loss.>' }, async ({ data }) => {
      handled.push(data.n);
    });
    closing.push(() => subscription.stop());
    await bus.publish('loss.a', { n: 'before' });
    await eventually(() => expect(handled).toEqual(['before']));

    await loseTheStore();
    // The stream is back (made at the reconnect), and a message published now reaches the recreated durable.
    await eventually(async () => await bus.publish('loss.a', { n: 'after' }), { timeoutMs: 20_000, intervalMs: 250 });
    await eventually(() => expect(handled).toContain('after'), { timeoutMs: 20_000, intervalMs: 100 });
    const jsm = await jetstreamManager(bus.connection);
    expect((await jsm.consumers.info('LOSS', 'loss_worker')).config.durable_name).toBe('loss_worker');
  }, 60_000);

  it('the leader lease makes its bucket again and leads again', async () => {
    const connection: NatsConnection = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    closing.push(() => connection.close());
    const lease = await NatsLeaderLease.open({ connection, key: 'relay', leaseMs: 1_500, holder: 'only', onError: () => undefined });
    closing.push(() => lease.stop());
    await lease.start({ elected: () => undefined, deposed: () => undefined });
    await eventually(() => expect(lease.isLeader()).toBe(true));

    await loseTheStore();
    // Deposed or not in between, it leads again on a bucket that exists again.
    await eventually(
      async () => {
        const jsm = await jetstreamManager(connection);
        expect((await jsm.streams.names().next()).some((name) => name.startsWith('KV_'))).toBe(true);
        expect(lease.isLeader()).toBe(true);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  }, 60_000);
});
