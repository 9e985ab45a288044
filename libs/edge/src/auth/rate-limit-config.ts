/** Requests a minute (the bucket refills at this rate and holds as many): per API key and per session token. */
export interface RateLimitConfig {
  perKey: number;
  perSession: number;
}

/** TENET_RATE_LIMIT_PER_KEY (default 600) and TENET_RATE_LIMIT_PER_SESSION (default 120) requests a minute; 0 turns one off. */
export function rateLimitConfigFrom(env: Record<string, string | undefined>): RateLimitConfig {
  const read = (name: string, fallback: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    if (!/^\d+$/.test(text)) throw new TypeError(`${name} must be a whole number of requests per minute (0: no limit), got "${text}"`);
    return Number(text);
  };
  return { perKey: read('TENET_RATE_LIMIT_PER_KEY', 600), perSession: read('TENET_RATE_LIMIT_PER_SESSION', 120) };
}
