import { randomUUID } from 'node:crypto';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { describeWithService, probeRedis, redisUrl, startOwnRedis, type OwnServer } from '@tenet/testing';
import { Queue } from 'bullmq';
import { toolWorkQueueConformance } from '../testing/index.js';
import { BullMqToolWorkQueue } from './bullmq-work-queue.js';
import { InProcessToolWorkQueue } from './in-process-work-queue.js';

const redis = await probeRedis();

toolWorkQueueConformance('InProcessToolWorkQueue', async () => {
  const queue = new InProcessToolWorkQueue();
  return { caller: async () => queue, executor: async () => queue, dispose: () => queue.close() };
});

describeWithService(redis, 'BullMqToolWorkQueue (Redis)', () => {
  toolWorkQueueConformance('BullMqToolWorkQueue', async () => {
    // A unique prefix per test run; the caller and the executor are separate instances, as in production.
    const prefix = `tenet-test-${randomUUID()}`;
    const options = { connection: redisOptionsFromUrl(redisUrl()), prefix, lockDurationMs: 5000 };
    const caller = new BullMqToolWorkQueue(options);
    const executor = new BullMqToolWorkQueue(options);
    return {
      caller: async () => caller,
      executor: async () => executor,
      dispose: async () => {
        await caller.close();
        await executor.close();
        const admin = new Queue('tool-calls', { connection: options.connection, prefix });
        await admin.obliterate({ force: true });
        await admin.close();
      },
    };
  });
});

/**
 * BullMQ's own close never resolves during or just after a Redis outage (taskforcesh/bullmq#4656): a host closed
 * right after Redis restarted hung in this queue's close for minutes. The test owns its redis-server.
 */
describe('BullMqToolWorkQueue closing while Redis is down or just back (own redis-server)', () => {
  let own: OwnServer;
  beforeAll(async () => {
    own = await startOwnRedis();
  });
  afterAll(async () => {
    await own?.dispose();
  });

  const executor = async (): Promise<BullMqToolWorkQueue> => {
    const queue = new BullMqToolWorkQueue({ connection: redisOptionsFromUrl(own.url), prefix: `tenet-test-${randomUUID()}`, onError: () => undefined });
    await queue.process(async () => ({ status: 'succeeded' }) as never);
    return queue;
  };
  const closesWithin = async (queue: BullMqToolWorkQueue, ms: number): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
    expect(await Promise.race([queue.close().then(() => 'closed' as const), late]).finally(() => clearTimeout(timer))).toBe('closed');
  };

  it('closes within its grace period while Redis is down', async () => {
    const queue = await executor();
    await own.kill();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await closesWithin(queue, 25_000);
    await own.start();
  }, 60_000);

  it('closes within its grace period right after Redis comes back', async () => {
    const queue = await executor();
    await own.kill();
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    await own.start();
    await closesWithin(queue, 25_000);
  }, 60_000);
});
