import type { RedisOptions } from 'ioredis';
import { LazyRedis } from './lazy-redis.js';
import type { RateLimiter } from '../rate-limiter.port.js';

/** KEYS: the bucket. ARGV: capacity, tokens per minute, now (ms). Returns {allowed, retry after ms}. */
const TAKE = `
local capacity = tonumber(ARGV[1]); local perMinute = tonumber(ARGV[2]); local now = tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(b[1]); local at = tonumber(b[2])
if tokens == nil then tokens = capacity; at = now end
tokens = math.min(capacity, tokens + math.max(0, now - at) * perMinute / 60000)
local ttl = math.ceil(capacity * 60000 / perMinute) + 1000
if tokens >= 1 then
  redis.call('HSET', KEYS[1], 't', tostring(tokens - 1), 'at', now)
  redis.call('PEXPIRE', KEYS[1], ttl)
  return {1, 0}
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], ttl)
return {0, math.ceil((1 - tokens) * 60000 / perMinute)}
`;

/**
 * Token buckets in Redis (`<prefix>:rate:<key>`), shared by every gateway replica: one Lua script per request, so two
 * gateways cannot both take a bucket's last token.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: LazyRedis;
  private readonly prefix: string;

  constructor(options: { connection: RedisOptions; prefix?: string }) {
    this.redis = new LazyRedis({ ...options.connection, maxRetriesPerRequest: 3 });
    this.prefix = `${options.prefix ?? 'tenet'}:rate`;
  }

  async take(key: string, capacity: number, perMinute: number, now: number): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const [allowed, retryAfterMs] = (await this.redis.client.eval(
      TAKE,
      1,
      `${this.prefix}:${key}`,
      String(capacity),
      String(perMinute),
      String(now),
    )) as [number, number];
    return { allowed: allowed === 1, retryAfterMs: Number(retryAfterMs) };
  }

  async close(): Promise<void> {
    await this.redis.close();
  }
}
