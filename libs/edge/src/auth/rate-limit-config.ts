import { readSettings } from '@tenet/config';

/** Requests a minute (the bucket refills at this rate and holds as many): per API key and per session token. */
export interface RateLimitConfig {
  perKey: number;
  perSession: number;
}

/** TENET_RATE_LIMIT_PER_KEY (default 600) and TENET_RATE_LIMIT_PER_SESSION (default 120) requests a minute; 0 turns one off. */
export function rateLimitConfigFrom(env: Record<string, string | undefined>): RateLimitConfig {
  const settings = readSettings(env, ['TENET_RATE_LIMIT_PER_KEY', 'TENET_RATE_LIMIT_PER_SESSION']);
  return { perKey: settings.TENET_RATE_LIMIT_PER_KEY, perSession: settings.TENET_RATE_LIMIT_PER_SESSION };
}
