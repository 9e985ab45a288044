import { randomUUID } from 'node:crypto';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { describeWithService, probeRedis, redisUrl } from '@tenet/testing';
import { Redis } from 'ioredis';
import { budgetStoreConformance } from '../testing/index.js';
import { RedisBudgetStore } from './redis-budget-store.js';

const redis = await probeRedis();

describeWithService(redis, 'RedisBudgetStore (Redis)', () => {
  budgetStoreConformance(
    'RedisBudgetStore',
    async () => {
      const prefix = `tenet-test-${randomUUID()}`;
      return {
        open: async () => new RedisBudgetStore({ connection: redisOptionsFromUrl(redisUrl()), prefix }),
        dispose: async () => {
          const client = new Redis(redisOptionsFromUrl(redisUrl()));
          let cursor = '0';
          do {
            const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
            if (keys.length > 0) await client.del(...keys);
            cursor = next;
          } while (cursor !== '0');
          await client.quit();
        },
      };
    },
    { sharedAcrossOpens: true },
  );
});
