import { randomUUID } from 'node:crypto';
import { closesDuringRedisOutage, describeWithService, eventually, probeRedis, redisUrl, startOwnRedis } from '@tenet/testing';
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

  describe('Redis answering again (own redis-server)', () => {
    it('tells its listeners once per outage, within 2 s of the restart (no call while Redis stays up, none once removed)', async () => {
      const own = await startOwnRedis();
      const scheduler = BullMqScheduler.fromUrl(own.url, { prefix: `tenet-test-${randomUUID()}`, onError: () => undefined });
      try {
        let restored = 0;
        let removedCalls = 0;
        scheduler.onRestored(() => restored++);
        const remove = scheduler.onRestored(() => removedCalls++);
        await scheduler.ping(10_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(restored).toBe(0);

        await own.kill();
        // Down long enough for BullMQ's own reconnect backoff to have grown past 8 s between attempts.
        await new Promise((resolve) => setTimeout(resolve, 12_000));
        expect(restored).toBe(0); // not while it is down
        remove();
        await own.start();
        const startedAt = performance.now();
        await eventually(() => expect(restored).toBe(1), { timeoutMs: 20_000, intervalMs: 50 });
        // Noticed within the 2 s reconnect bound (and a margin for a loaded machine), not 6 s or more later.
        expect(performance.now() - startedAt).toBeLessThan(4_000);
        await scheduler.ping(10_000);
        expect(restored).toBe(1);
        expect(removedCalls).toBe(0);

        // The restart kept nothing: a job scheduled now is Redis's only one, and it runs.
        const ran: string[] = [];
        await scheduler.process('after-restore', async (job) => void ran.push(job.jobId));
        await scheduler.schedule({ queue: 'after-restore', jobId: 'rebuilt', data: null });
        await eventually(() => expect(ran).toEqual(['rebuilt']), { timeoutMs: 15_000 });
      } finally {
        await scheduler.close();
        await own.dispose();
      }
    }, 90_000);
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
