/**
 * Budget and rate-limit benchmark: what checking a token budget adds to one LLM call, and what a rate-limit check adds
 * to one request, next to the floor measured in the same run.
 *
 *   npm run bench:budgets       (the Redis half needs Redis on REDIS_URL)
 *
 * Floor: `generate` on a zero-latency provider (what the matcher does anyway). Tenet: the same call through
 * `BudgetGate.provider` with one daily token budget — reserve (Lua script), the call, settle (Lua script) — on the
 * in-process store (embedded) and on Redis (distributed). Rate limit: one `take` on the in-process and Redis buckets.
 * BENCH_CALLS (2000) calls per round, floor and gate alternating call by call, BENCH_ROUNDS (3) rounds after a
 * warm-up; p50/p99 pooled. Prints Markdown.
 */
import { randomUUID } from 'node:crypto';
import {
  InProcessBudgetStore,
  InProcessRateLimiter,
  RedisBudgetStore,
  RedisRateLimiter,
  type BudgetStore,
  type RateLimiter,
} from '@tenet/budget-store';
import type { BudgetScopeV1 } from '@tenet/contracts';
import type { LlmProvider, LlmRequest, LlmResponse } from '@tenet/llm';
import { BudgetGate } from '@tenet/matching-service';
import { defaultPriceTable } from '@tenet/metering-domain';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { deleteRedisKeys } from '@tenet/testing';
import { median, quantile } from './turn-support.js';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CALLS = Number(process.env['BENCH_CALLS'] ?? 2000);

const zeroLatency: LlmProvider = {
  name: 'openai',
  model: 'gpt-4o-mini',
  generate: async <I, O>(_request: LlmRequest<I>): Promise<LlmResponse<O>> => ({
    value: {} as O,
    usage: { inputTokens: 100, outputTokens: 20 },
    provider: 'openai',
    model: 'gpt-4o-mini',
    latencyMs: 0,
  }),
};
const request: LlmRequest = {
  task: { kind: 'x', input: {} },
  system: 'You are a benchmark.',
  prompt: 'hello',
  schemaName: 'x',
  schema: { type: 'object' },
  maxTokens: 50,
  context: { purpose: 'bench' },
};

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

async function gateRun(store: BudgetStore): Promise<{ floor: number[]; gate: number[] }> {
  const scope: BudgetScopeV1 = {
    key: `agent:bench-${randomUUID().slice(0, 8)}:day:tokens`,
    owner: { kind: 'agent', id: 'bench' },
    period: 'day',
    period_id: '2099-01-01',
    unit: 'tokens',
    limit: 1_000_000_000,
  };
  const gated = new BudgetGate({ store, prices: defaultPriceTable }).provider(zeroLatency, [scope]);
  const floor: number[] = [];
  const gate: number[] = [];
  for (let i = 0; i < 200; i++) await gated.generate(request); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < CALLS; i++) {
      let start = process.hrtime.bigint();
      await zeroLatency.generate(request);
      floor.push(ms(start));
      start = process.hrtime.bigint();
      await gated.generate(request);
      gate.push(ms(start));
    }
  }
  return { floor, gate };
}

async function limiterRun(limiter: RateLimiter): Promise<number[]> {
  const key = `bench-${randomUUID()}`;
  const times: number[] = [];
  for (let i = 0; i < 200; i++) await limiter.take(key, 1_000_000, 1_000_000, Date.now());
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < CALLS; i++) {
      const start = process.hrtime.bigint();
      await limiter.take(key, 1_000_000, 1_000_000, Date.now());
      times.push(ms(start));
    }
  }
  return times;
}

const fmt = (values: number[]): string =>
  `${median(values).toFixed(3)} ms | ${quantile(
    [...values].sort((a, b) => a - b),
    0.99,
  ).toFixed(3)} ms`;
const rows: string[] = [];
const prefix = `tenet-bench-${randomUUID()}`;

const local = await gateRun(new InProcessBudgetStore());
rows.push(`| floor: zero-latency generate | ${fmt(local.floor)} |`, `| budget gate, in-process store (embedded) | ${fmt(local.gate)} |`);
try {
  const redisStore = new RedisBudgetStore({ connection: redisOptionsFromUrl(redisUrl), prefix });
  try {
    const remote = await gateRun(redisStore);
    rows.push(
      `| floor (Redis run) | ${fmt(remote.floor)} |`,
      `| budget gate, Redis store (distributed): reserve + settle | ${fmt(remote.gate)} |`,
    );
  } finally {
    await redisStore.close();
  }
  rows.push(`| rate limit take, in-process | ${fmt(await limiterRun(new InProcessRateLimiter()))} |`);
  const redisLimiter = new RedisRateLimiter({ connection: redisOptionsFromUrl(redisUrl), prefix });
  try {
    rows.push(`| rate limit take, Redis | ${fmt(await limiterRun(redisLimiter))} |`);
  } finally {
    await redisLimiter.close();
  }
} finally {
  // The store's settled markers and the limiter's windows expire on their own (a day at most), but the bench leaves
  // nothing on the shared Redis.
  await deleteRedisKeys(redisUrl, prefix);
}
console.log(`| ${ROUNDS} × ${CALLS} calls | p50 | p99 |\n| --- | --- | --- |\n${rows.join('\n')}`);
