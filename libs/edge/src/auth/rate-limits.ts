import { HttpException, HttpStatus, Inject, Injectable, Optional } from '@nestjs/common';
import type { RateLimiter } from '@tenet/budget-store';
import { RATE_LIMITER } from '@tenet/platform-runtime';
import type { Response } from 'express';
import type { RateLimitConfig } from './rate-limit-config.js';
import type { AuthenticatedCaller } from './caller.js';

/**
 * Token buckets per API key and per session token (ADR 0018), in the platform's rate limiter — Redis shared
 * by every gateway replica in distributed mode. A request over the limit is a 429 with `retry-after` (seconds).
 * The open mode's anonymous caller is not limited.
 */
@Injectable()
export class RateLimits {
  constructor(@Optional() @Inject(RATE_LIMITER) private readonly limiter?: RateLimiter) {}

  async take(caller: AuthenticatedCaller, config: RateLimitConfig, response: Response): Promise<void> {
    if (!this.limiter) return;
    const bucket =
      caller.kind === 'key'
        ? { key: `key:${caller.keyId}`, perMinute: config.perKey }
        : caller.kind === 'session-token'
          ? { key: `session:${caller.sessionId}`, perMinute: config.perSession }
          : undefined;
    if (!bucket || bucket.perMinute === 0) return;
    const { allowed, retryAfterMs } = await this.limiter.take(bucket.key, bucket.perMinute, bucket.perMinute, Date.now());
    if (allowed) return;
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    response.setHeader('retry-after', String(seconds));
    throw new HttpException(
      {
        detail: `rate limit of ${bucket.perMinute} requests a minute reached for this ${caller.kind === 'key' ? 'API key' : 'session'}; retry after ${seconds} s`,
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}
