import { refill, type RateLimiter } from '../rate-limiter.port.js';

/** Token buckets in this process (embedded mode); same arithmetic as the Redis adapter. */
export class InProcessRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  async take(key: string, capacity: number, perMinute: number, now: number): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const bucket = refill(this.buckets.get(key), capacity, perMinute, now);
    if (this.buckets.size > 100_000) this.buckets.clear();
    if (bucket.tokens >= 1) {
      this.buckets.set(key, { tokens: bucket.tokens - 1, at: now });
      return { allowed: true, retryAfterMs: 0 };
    }
    this.buckets.set(key, bucket);
    return { allowed: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) * 60_000) / perMinute) };
  }

  /** Nothing to release. */
  async close(): Promise<void> {
    await Promise.resolve();
  }
}
