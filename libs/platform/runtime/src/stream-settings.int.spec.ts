import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { eventually, startOwnNats, startOwnRedis, type OwnServer } from '@tenet/testing';
import { loadPlatformConfig } from './platform-config.js';
import { openPlatform, tenetStreamFor, type PlatformAdapters } from './platform-adapters.js';

const HOUR_NS = 3_600_000 * 1e6;

/**
 * TENET_NAMESPACE isolates the JetStream stream (name, subjects, durables), and the stream's
 * limits are settings — applied at every start, without resetting what an operator changed and the settings do not
 * mention. Runs on its own nats-server, so no other deployment's stream is in the way.
 */
describe('the JetStream stream per namespace, with limits as settings (own nats-server)', () => {
  let nats: OwnServer;
  let redis: OwnServer;
  let dir: string;
  let nc: NatsConnection;
  const opened: PlatformAdapters[] = [];

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startOwnNats(), startOwnRedis()]);
    nc = await connect({ servers: nats.url });
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-stream-settings-'));
  });
  afterEach(async () => {
    for (const platform of opened.splice(0)) await platform.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await nc.close();
    await Promise.all([nats.dispose(), redis.dispose()]);
  });

  const open = async (namespace: string, settings: Record<string, string> = {}): Promise<PlatformAdapters> => {
    const config = loadPlatformConfig(
      {
        TENET_MODE: 'distributed',
        NATS_URL: nats.url,
        REDIS_URL: redis.url,
        TENET_DATA_DIR: join(dir, namespace),
        TENET_NAMESPACE: namespace,
        ...settings,
      },
      `svc-${namespace}`,
    );
    const platform = await openPlatform(config);
    opened.push(platform);
    return platform;
  };

  it('gives each namespace its own stream: a consumer of namespace B never sees what namespace A published', async () => {
    const [a, b] = [`a${randomUUID().slice(0, 8)}`, `b${randomUUID().slice(0, 8)}`];
    const platformA = await open(a);
    const platformB = await open(b);
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(`TENET_V1_${a}`)).config.subjects).toEqual([`${a}.tenet.v1.>`]);
    expect((await jsm.streams.info(`TENET_V1_${b}`)).config.subjects).toEqual([`${b}.tenet.v1.>`]);

    await platformA.bus.publish('tenet.v1.metering.agent1.llm_usage_recorded', { n: 1 }, { msgId: randomUUID() });
    await platformA.bus.publish('tenet.v1.metering.agent1.llm_usage_recorded', { n: 2 }, { msgId: randomUUID() });
    const seen: Record<string, unknown[]> = { a: [], b: [] };
    // Fresh durables with the same name in both namespaces, reading from the start of their stream.
    const subA = await platformA.bus.consume(
      { durable: 'metering', filterSubject: 'tenet.v1.metering.>' },
      async (m) => void seen['a']!.push(m.data),
    );
    const subB = await platformB.bus.consume(
      { durable: 'metering', filterSubject: 'tenet.v1.metering.>' },
      async (m) => void seen['b']!.push(m.data),
    );
    await eventually(() => expect(seen['a']).toEqual([{ n: 1 }, { n: 2 }]), { timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen['b']).toEqual([]);
    expect((await jsm.streams.info(`TENET_V1_${b}`)).state.messages).toBe(0);
    await Promise.all([subA.stop(), subB.stop()]);
  });

  it('applies the limits that are set at every start, creates with defaults, and keeps what an operator changed otherwise', async () => {
    const namespace = `s${randomUUID().slice(0, 8)}`;
    const name = tenetStreamFor({ namespace, streamLimits: {} }).name;
    const jsm = await jetstreamManager(nc);

    // Created with the defaults (7 days, no byte or message cap) where nothing is set.
    await (await open(namespace)).close();
    expect((await jsm.streams.info(name)).config).toMatchObject({ max_age: 7 * 24 * HOUR_NS, max_bytes: -1, max_msgs: -1 });

    // An operator changes the limits; a restart without settings leaves them alone.
    await jsm.streams.update(name, { max_age: 2 * HOUR_NS, max_msgs: 5_000 });
    await (await open(namespace)).close();
    expect((await jsm.streams.info(name)).config).toMatchObject({ max_age: 2 * HOUR_NS, max_msgs: 5_000 });

    // Settings win on what they say, and only on that.
    await (await open(namespace, { TENET_STREAM_MAX_AGE: '12h', TENET_STREAM_MAX_BYTES: '64MB' })).close();
    expect((await jsm.streams.info(name)).config).toMatchObject({ max_age: 12 * HOUR_NS, max_bytes: 64 * 1024 ** 2, max_msgs: 5_000 });
    // Started again with the same settings: nothing changes.
    await (await open(namespace, { TENET_STREAM_MAX_AGE: '12h', TENET_STREAM_MAX_BYTES: '64MB' })).close();
    expect((await jsm.streams.info(name)).config).toMatchObject({ max_age: 12 * HOUR_NS, max_bytes: 64 * 1024 ** 2, max_msgs: 5_000 });
  });
});
