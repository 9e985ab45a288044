// Jest globalSetup/globalTeardown (jest.config.js): the test run must leave no JetStream stream and no Redis key
// behind on the shared NATS and Redis (docs/reliability.md#test-suites-on-a-loaded-machine-and-on-non-default-servers). Setup lists what exists; teardown
// lists again and reports what the run added and did not remove. Keys with a TTL expire by themselves and are not
// counted; KV_TENET_LEASES is the relay-leadership bucket every distributed process shares (its entries expire).
// Fails the run under CI (or TENET_LEFTOVERS=fail); elsewhere it warns, since other runs may share the servers.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';

const SHARED_STREAMS = new Set(['KV_TENET_LEASES']);
const natsUrl = () => process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const redisUrl = () => process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

async function streams() {
  const nc = await connect({ servers: natsUrl(), timeout: 2_000, maxReconnectAttempts: 0 });
  try {
    const names = new Set();
    for await (const info of (await jetstreamManager(nc)).streams.list()) names.add(info.config.name);
    return names;
  } finally {
    await nc.close();
  }
}

async function withRedis(work) {
  const client = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

const keys = () =>
  withRedis(async (client) => {
    const found = new Set();
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) found.add(key);
    } while (cursor !== '0');
    return found;
  });

/** Of `candidates`, the keys that still exist and never expire. */
const lasting = (candidates) =>
  withRedis(async (client) => {
    if (candidates.length === 0) return [];
    const pipeline = client.pipeline();
    for (const key of candidates) pipeline.pttl(key);
    const ttls = await pipeline.exec();
    return candidates.filter((_, i) => ttls[i][1] === -1);
  });

const optional = (promise) => promise.catch(() => undefined);

export async function setup() {
  globalThis.__tenetLeftovers = { streams: await optional(streams()), keys: await optional(keys()) };
}

export async function teardown() {
  const before = globalThis.__tenetLeftovers;
  if (!before) return;
  const problems = [];
  if (before.streams) {
    const after = await optional(streams());
    const added = [...(after ?? [])].filter((name) => !before.streams.has(name) && !SHARED_STREAMS.has(name));
    if (added.length > 0) problems.push(`${added.length} JetStream stream(s) left on ${natsUrl()}: ${added.sort().join(', ')}`);
  }
  if (before.keys) {
    const after = await optional(keys());
    const added = await optional(lasting([...(after ?? [])].filter((key) => !before.keys.has(key))));
    if (added && added.length > 0) {
      const byPrefix = new Map();
      for (const key of added) byPrefix.set(key.split(':')[0], (byPrefix.get(key.split(':')[0]) ?? 0) + 1);
      problems.push(
        `${added.length} Redis key(s) without a TTL left on ${redisUrl()}, by prefix: ${[...byPrefix].map(([prefix, n]) => `${prefix} (${n})`).join(', ')}`,
      );
    }
  }
  if (problems.length === 0) return;
  const message = `the test run left data behind on the shared servers (clean up in afterAll/afterEach: deleteStreams, deleteRedisKeys from @tenet/testing):\n- ${problems.join('\n- ')}`;
  if (/^(1|true|yes)$/i.test(process.env['CI'] ?? '') || process.env['TENET_LEFTOVERS'] === 'fail') throw new Error(message);
  console.warn(
    `warning: ${message}\n(not failing: set CI=true or TENET_LEFTOVERS=fail; other runs sharing these servers may have added some)`,
  );
}
