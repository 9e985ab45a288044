import { cancelledCall, InvalidStructuredOutputError, LlmError, RateLimitedError } from '../errors.js';
import type { BilledCall } from '../llm.port.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /**
   * The longest advertised `retry-after` worth waiting inside a call. A longer one fails at once with
   * `LLM.RATE_LIMITED` (carrying `retryAfterMs`) so that the caller can reschedule instead of holding a turn open.
   */
  maxRetryAfterMs: number;
  /** Backoff for transient failures without an advertised delay: base · 2^retry, capped, with up to 25 % jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 2, maxRetryAfterMs: 60_000, baseDelayMs: 500, maxDelayMs: 8_000 };

export type Sleep = (ms: number) => Promise<void>;
const sleepFor: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs an attempt, retrying what the error types call retryable. Both SDKs can retry by themselves, but they
 * obey an `x-should-retry: true` header even on a 401 and wait for any advertised delay however long; owning
 * the loop keeps "authentication is never retried" and the waiting bound true for every adapter.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  sleep: Sleep = sleepFor,
  random: () => number = Math.random,
  signal?: AbortSignal,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    // A cancelled turn sends nothing more (the SDK call itself gets the signal too).
    if (signal?.aborted) throw cancelledCall('llm');
    try {
      return await attempt();
    } catch (error) {
      if (signal?.aborted) throw cancelledCall(error instanceof LlmError ? error.provider : 'llm');
      if (!(error instanceof LlmError) || !error.retryable || retry >= policy.maxRetries) throw error;
      const advertised = error instanceof RateLimitedError ? error.retryAfterMs : undefined;
      if (advertised !== undefined && advertised > policy.maxRetryAfterMs) throw error;
      const backoff = Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs) * (1 - random() * 0.25);
      await sleep(advertised ?? backoff);
    }
  }
}

/** Runs the check of a billed answer; an answer out of schema carries the billed call, so it is still metered. */
export function billedEvenIfInvalid<T>(call: BilledCall, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidStructuredOutputError) error.billed.push(call);
    throw error;
  }
}
