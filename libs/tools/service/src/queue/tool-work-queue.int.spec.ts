import { randomUUID } from 'node:crypto';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { closesDuringRedisOutage, describeWithService, probeRedis, redisUrl } from '@tenet/testing';
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

// A host closed right after Redis restarted hung in this queue's close for minutes (taskforcesh/bullmq#4656).
closesDuringRedisOutage('BullMqToolWorkQueue', async (url) => {
  const queue = new BullMqToolWorkQueue({
    connection: redisOptionsFromUrl(url),
    prefix: `tenet-test-${randomUUID()}`,
    onError: () => undefined,
  });
  await queue.process(async () => ({ status: 'succeeded' }) as never);
  return queue;
});
