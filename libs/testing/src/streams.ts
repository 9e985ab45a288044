import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';

/** Removes JetStream streams a test created (e.g. the stream of its TENET_NAMESPACE), so runs leave none behind. */
export async function deleteStreams(servers: string, names: string[]): Promise<void> {
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

/**
 * Removes every Redis key under a test's own prefix (its TENET_REDIS_PREFIX: BullMQ queues, budget counters), so
 * runs leave no keys behind on a shared Redis. Call it after the processes using the prefix have closed.
 */
export async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  if (!/^[A-Za-z0-9_-]{8,}$/.test(prefix)) throw new Error(`refusing to delete Redis keys under "${prefix}": not a test's own prefix`);
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  let deleted = 0;
  try {
    await client.connect();
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await client.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return deleted;
}
