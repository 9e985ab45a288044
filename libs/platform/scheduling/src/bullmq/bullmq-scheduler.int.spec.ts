import { randomUUID } from 'node:crypto';
import { describeWithService, probeRedis, redisUrl, startOwnRedis, type OwnServer } from '@tenet/testing';
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

  /**
   * ioredis never emits `end` for a client disconnected while it waits to reconnect, and BullMQ's `Worker.close`
   * waits for that `end` (taskforcesh/bullmq#4656); its `close(true)` then returns the same pending promise. A
   * SIGTERM during or just after a Redis outage hung the whole shutdown (seen as a hung test/faults/redis-outage).
   * The test owns its redis-server.
   */
  describe('closing while Redis is down or just back', () => {
    let own: OwnServer;
    beforeAll(async () => {
      own = await startOwnRedis();
    });
    afterAll(async () => {
      await own?.dispose();
    });

    const closesWithin = async (scheduler: BullMqScheduler, ms: number): Promise<number> => {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
      const outcome = await Promise.race([scheduler.close().then(() => 'closed' as const), late]).finally(() => clearTimeout(timer));
      expect(outcome).toBe('closed');
      return Date.now() - started;
    };

    const withWorkers = async (): Promise<BullMqScheduler> => {
      const scheduler = BullMqScheduler.fromUrl(own.url, { prefix: `tenet-test-${randomUUID()}`, onError: () => undefined });
      await scheduler.process('closing-a', async () => undefined);
      await scheduler.process('closing-b', async () => undefined);
      await scheduler.schedule({ queue: 'closing-a', jobId: 'later', data: null, delayMs: 60_000 });
      return scheduler;
    };

    it('closes within its grace period while Redis is down', async () => {
      const scheduler = await withWorkers();
      await own.kill();
      // Long enough for every client to have lost its socket and to wait for its next reconnect attempt.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await closesWithin(scheduler, 25_000);
      await own.start();
    }, 60_000);

    it('closes within its grace period right after Redis comes back', async () => {
      const scheduler = await withWorkers();
      await own.kill();
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await own.start();
      await closesWithin(scheduler, 25_000);
    }, 60_000);
  });
});
