import { AuthenticationError, InvalidStructuredOutputError, ProviderUnavailableError, RateLimitedError } from '../errors.js';
import { withRetries, type RetryPolicy } from './retry.js';
import { retryAfterMsFrom } from './sdk-errors.js';

const policy: RetryPolicy = { maxRetries: 2, maxRetryAfterMs: 10_000, baseDelayMs: 100, maxDelayMs: 1_000 };

/** An attempt that fails with the given errors in turn, then answers. */
function attempts(...errors: Error[]): { run: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    run: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return 'ok';
    },
    calls: () => calls,
  };
}

describe('withRetries', () => {
  it('waits exactly the advertised retry-after before retrying a rate limit', async () => {
    const slept: number[] = [];
    const attempt = attempts(new RateLimitedError('p', 1_000, '429'), new RateLimitedError('p', 250, '429'));
    await expect(withRetries(attempt.run, policy, async (ms) => void slept.push(ms))).resolves.toBe('ok');
    expect(slept).toEqual([1_000, 250]);
    expect(attempt.calls()).toBe(3);
  });

  it('backs off exponentially (with at most 25 % jitter) when no delay is advertised', async () => {
    const slept: number[] = [];
    const attempt = attempts(new ProviderUnavailableError('p', '503', true, 503), new RateLimitedError('p', undefined, '429'));
    await withRetries(
      attempt.run,
      policy,
      async (ms) => void slept.push(ms),
      () => 0.5,
    );
    expect(slept).toEqual([100 * 0.875, 200 * 0.875]);
  });

  it.each([
    ['authentication', new AuthenticationError('p', '401')],
    ['invalid output', new InvalidStructuredOutputError('p', 'reply', '/message', ['x'])],
    ['a request the provider rejects', new ProviderUnavailableError('p', '400', false, 400)],
    ['a bug', new TypeError('not an LLM error')],
  ])('never retries %s', async (_, error) => {
    const attempt = attempts(error);
    await expect(withRetries(attempt.run, policy, async () => undefined)).rejects.toBe(error);
    expect(attempt.calls()).toBe(1);
  });

  it('gives up after maxRetries, with the last error', async () => {
    const last = new RateLimitedError('p', 10, 'third');
    const attempt = attempts(new RateLimitedError('p', 10, 'first'), new RateLimitedError('p', 10, 'second'), last);
    await expect(withRetries(attempt.run, policy, async () => undefined)).rejects.toBe(last);
    expect(attempt.calls()).toBe(3);
  });

  it('fails at once when the advertised delay is longer than worth waiting inside a call', async () => {
    const error = new RateLimitedError('p', 60_000, 'come back in a minute');
    const attempt = attempts(error);
    await expect(withRetries(attempt.run, policy, async () => undefined)).rejects.toMatchObject({
      code: 'LLM.RATE_LIMITED',
      retryAfterMs: 60_000,
    });
    expect(attempt.calls()).toBe(1);
  });
});

describe('retryAfterMsFrom', () => {
  it('reads retry-after-ms, retry-after in seconds, and retry-after as an HTTP date', () => {
    expect(retryAfterMsFrom(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500);
    expect(retryAfterMsFrom(new Headers({ 'retry-after': '2' }))).toBe(2000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMsFrom(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), () => now)).toBe(3000);
    expect(retryAfterMsFrom(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMsFrom(undefined)).toBeUndefined();
  });
});
