/** A token bucket per key, shared by every gateway replica (Redis) or in process (embedded). */
export interface RateLimiter {
  /**
   * Takes one token from the bucket `key` (capacity `capacity`, refilled at `perMinute` tokens a minute, full when
   * new). `allowed: false` with the milliseconds until a token is back.
   */
  take(key: string, capacity: number, perMinute: number, now: number): Promise<{ allowed: boolean; retryAfterMs: number }>;
  close(): Promise<void>;
}

/** The refill arithmetic both adapters share (the Redis one runs it in Lua). */
export function refill(
  bucket: { tokens: number; at: number } | undefined,
  capacity: number,
  perMinute: number,
  now: number,
): { tokens: number; at: number } {
  if (!bucket) return { tokens: capacity, at: now };
  return { tokens: Math.min(capacity, bucket.tokens + (Math.max(0, now - bucket.at) * perMinute) / 60_000), at: now };
}
