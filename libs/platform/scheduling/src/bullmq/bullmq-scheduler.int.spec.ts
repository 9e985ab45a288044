import { randomUUID } from 'node:crypto';
import { closesDuringRedisOutage, describeWithService, probeRedis, redisUrl } from '@tenet/testing';
import { Queue } from 'bullmq';
import { schedulerConformance } from '../testing/index.js';
import { BullMqScheduler, redisOptionsFromUrl } from './bullmq-scheduler.js';

const redis = await probeRedis();

/**
 * Every key BullMQ wrote for a test lives under the test's unique prefix; removing them obliterates all its
 * queues at once (the admin queue's own `meta` key included).
 */
async function keysUnder(prefix: string, remove: boolean, pattern = `${prefix}:*`): Promise<string[]> {
  const admin = new Queue('admin', { connection: redisOptionsFromUrl(redisUrl()), prefix });
  try {
    const client = await admin.client;
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, { MATCH: pattern, COUNT: 1000 });
      found.push(...keys);
      if (remove && keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  } finally {
    await admin.close();
  }
}

describeWithService(redis, 'BullMqScheduler (Redis)', () => {
  schedulerConformance(
    'BullMqScheduler',
    async () => {
      const prefix = `tenet-test-${randomUUID()}`;
      return {
        open: async () => BullMqScheduler.fromUrl(redisUrl(), { prefix }),
        dispose: async () => void (await keysUnder(prefix, true)),
      };
    },
    { survivesRestart: true, waitTimeoutMs: 15_000 },
  );

  describe('Redis layout', () => {
    const prefix = `tenet-test-${randomUUID()}`;
    let scheduler: BullMqScheduler;

    beforeEach(() => {
      scheduler = BullMqScheduler.fromUrl(redisUrl(), { prefix });
    });

    afterEach(async () => {
      await scheduler.close();
      await keysUnder(prefix, true);
    });

    it('stores jobs under the configured prefix, with ids BullMQ accepts', async () => {
      const queue = `queue-${randomUUID()}`;
      await scheduler.schedule({ queue, jobId: 'idle:s1', data: null, delayMs: 60_000 });
      const keys = await keysUnder(prefix, false);
      expect(keys).toContain(`${prefix}:${queue}:de:j_idle%3As1`);
      expect(keys.filter((key) => key.startsWith(`${prefix}:${queue}:j_idle%3As1.`))).toHaveLength(1);
      expect(await keysUnder(prefix, false, `tenet:${queue}:*`)).toEqual([]);
    });
  });

  // The test owns its redis-server; a SIGTERM during or just after an outage hung the whole shutdown before.
  closesDuringRedisOutage('BullMqScheduler', async (url) => {
    const scheduler = BullMqScheduler.fromUrl(url, { prefix: `tenet-test-${randomUUID()}`, onError: () => undefined });
    await scheduler.process('closing-a', async () => undefined);
    await scheduler.process('closing-b', async () => undefined);
    await scheduler.schedule({ queue: 'closing-a', jobId: 'later', data: null, delayMs: 60_000 });
    return scheduler;
  });
});
