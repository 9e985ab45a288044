import type { RedisOptions } from 'ioredis';
import { LazyRedis } from './lazy-redis.js';
import { InProcessRateLimiter } from '../in-process/in-process-rate-limiter.js';
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

/** How long one bucket command may take before Redis counts as unavailable for that request. */
const DEFAULT_COMMAND_TIMEOUT_MS = 1_000;

/** Connection states in which a command would only wait in ioredis's offline queue (or fail): go local at once. */
const DOWN = new Set(['reconnecting', 'close', 'end']);

export interface RedisRateLimiterOptions {
  connection: RedisOptions;
  prefix?: string;
  /** Bound on one bucket command (ms); past it, or on any Redis error, the request is counted locally. Default 1 s. */
  commandTimeoutMs?: number;
  /**
   * Told when the limiter starts counting in this process because Redis does not answer (`error`), and when Redis
   * answers again (`undefined`): once per change, not per request.
   */
  onAvailability?: (error: Error | undefined) => void;
}

/**
 * Token buckets in Redis (`<prefix>:rate:<key>`), shared by every gateway replica: one Lua script per request, so two
 * gateways cannot both take a bucket's last token.
 *
 * While Redis does not answer, requests are neither refused nor held: each replica counts them in buckets of its own
 * (the in-process adapter, same arithmetic), so a key is still limited — to its limit per replica — and a request waits
 * at most `commandTimeoutMs` for Redis, not for the outage. When Redis answers again the shared buckets take over
 * (they refill while unused, so nobody is limited for what was counted locally).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: LazyRedis;
  private readonly prefix: string;
  private readonly local = new InProcessRateLimiter();
  private readonly onAvailability: (error: Error | undefined) => void;
  /** Counting locally since Redis last failed to answer. */
  private degraded = false;

  constructor(options: RedisRateLimiterOptions) {
    // No retries inside a command and a bounded wait: the caller is an HTTP request (the guard of every route).
    this.redis = new LazyRedis({
      ...options.connection,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    });
    this.prefix = `${options.prefix ?? 'tenet'}:rate`;
    this.onAvailability = options.onAvailability ?? (() => undefined);
  }

  async take(key: string, capacity: number, perMinute: number, now: number): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const client = this.redis.client;
    if (DOWN.has(client.status)) return this.takeLocally(key, capacity, perMinute, now, new Error(`Redis connection is ${client.status}`));
    let reply: [number, number];
    try {
      reply = (await client.eval(TAKE, 1, `${this.prefix}:${key}`, String(capacity), String(perMinute), String(now))) as [number, number];
    } catch (error) {
      return this.takeLocally(key, capacity, perMinute, now, error instanceof Error ? error : new Error(String(error)));
    }
    if (this.degraded) {
      this.degraded = false;
      this.onAvailability(undefined);
    }
    return { allowed: reply[0] === 1, retryAfterMs: Number(reply[1]) };
  }

  private takeLocally(
    key: string,
    capacity: number,
    perMinute: number,
    now: number,
    error: Error,
  ): Promise<{ allowed: boolean; retryAfterMs: number }> {
    if (!this.degraded) {
      this.degraded = true;
      this.onAvailability(error);
    }
    return this.local.take(key, capacity, perMinute, now);
  }

  async close(): Promise<void> {
    await this.redis.close();
  }
}
