/**
 * Which failures of a tool call are worth another attempt, and how long to wait (a tool's `retry_config`, docs/data-model.md#tools).
 * Retryable: timeouts, connection errors, HTTP 5xx, 408 and 429 (honouring Retry-After). Everything else —
 * a 4xx, invalid arguments, an oversized response, a tool that reported an error — fails at once.
 */
export interface RetryConfig {
  max_attempts: number;
  delay_ms: number;
  /** Exponential factor per retry; 1 (default 2) keeps the delay fixed. */
  backoff_multiplier?: number;
}

export interface AttemptFailure {
  retryable: boolean;
  /** Retry-After the service asked for (429/503), in ms. */
  retryAfterMs?: number;
}

/** No retry_config: one attempt. */
export const NO_RETRY: RetryConfig = { max_attempts: 1, delay_ms: 0 };

/** Upper bound of any single wait, so a hostile Retry-After cannot park a worker. */
export const MAX_RETRY_DELAY_MS = 60_000;

/** HTTP statuses after which the same request may succeed. */
export const isRetryableStatus = (status: number): boolean => status >= 500 || status === 408 || status === 429;

/**
 * The wait before the next attempt after `attempt` (1-based) failed, or `undefined` when there is none:
 * the failure is not retryable or the attempts are used up. delay = delay_ms * multiplier^(attempt-1),
 * at least the Retry-After the service asked for, at most MAX_RETRY_DELAY_MS.
 */
export function nextRetryDelay(config: RetryConfig | undefined, attempt: number, failure: AttemptFailure): number | undefined {
  const policy = config ?? NO_RETRY;
  if (!failure.retryable || attempt >= policy.max_attempts) return undefined;
  const multiplier = policy.backoff_multiplier ?? 2;
  const backoff = policy.delay_ms * multiplier ** (attempt - 1);
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(backoff, failure.retryAfterMs ?? 0));
}
