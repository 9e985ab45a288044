import { randomUUID } from 'node:crypto';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { eventually, startOwnRedis, type OwnServer } from '@tenet/testing';
import { RedisRateLimiter } from './redis-rate-limiter.js';

/**
 * Rate limits while Redis is down (own redis-server, killed and restarted): a request is neither refused nor held for the
 * outage — it is counted in this process, still limited — and the shared buckets take over when Redis answers again.
 */
describe('RedisRateLimiter when Redis is down and back (own redis-server)', () => {
  let redis: OwnServer;
  const limiters: RedisRateLimiter[] = [];
  const changes: (string | undefined)[] = [];
  const prefix = `tenet-test-${randomUUID()}`;
  const open = () => {
    const limiter = new RedisRateLimiter({
      connection: redisOptionsFromUrl(redis.url),
      prefix,
      commandTimeoutMs: 500,
      onAvailability: (error) => changes.push(error?.message),
    });
    limiters.push(limiter);
    return limiter;
  };

  beforeAll(async () => {
    redis = await startOwnRedis();
  });

  afterAll(async () => {
    await Promise.all(limiters.map((limiter) => limiter.close()));
    await redis?.dispose();
  });

  it('counts in the process at once while Redis is down, still limiting, and shares the buckets again when it is back', async () => {
    const limiter = open();
    const now = Date.now();
    // Up: a bucket of 3 is shared — the fourth take is refused, with the time until a token is back.
    for (let i = 0; i < 3; i++) expect((await limiter.take('key:a', 3, 3, now)).allowed).toBe(true);
    expect(await limiter.take('key:a', 3, 3, now)).toEqual({ allowed: false, retryAfterMs: 20_000 });
    expect(changes).toEqual([]);

    await redis.kill();
    // Down: each take answers within the command bound (not after reconnect attempts), from a local bucket that limits too.
    const started = performance.now();
    const down = [];
    for (let i = 0; i < 4; i++) down.push(await limiter.take('key:b', 3, 3, now));
    expect(performance.now() - started).toBeLessThan(4 * 1_500);
    expect(down.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(changes).toHaveLength(1); // said once for the outage, not per request
    expect(changes[0]).toEqual(expect.any(String));

    await redis.start();
    // Back (the restart kept no keys): the shared bucket answers again and the change is said once.
    await eventually(
      async () => {
        await limiter.take('probe', 100, 100, now);
        expect(changes).toHaveLength(2);
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(changes[1]).toBeUndefined();
    // Shared again: a second limiter (another replica) sees the bucket this one took from.
    expect((await limiter.take('key:c', 1, 1, now)).allowed).toBe(true);
    expect(await open().take('key:c', 1, 1, now)).toEqual({ allowed: false, retryAfterMs: 60_000 });
  }, 60_000);
});
