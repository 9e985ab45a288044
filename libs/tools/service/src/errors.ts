/** A describe (or call) that failed with one of the stable `TOOLS.*` codes; the message is customer-safe. */
export class ToolServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** Whether retrying the same request may succeed (timeouts, connection errors, 5xx, 429). */
    readonly retryable = false,
    /** From a 429/503 Retry-After header, when the service said how long to wait. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ToolServiceError';
  }
}

/** The executor did not answer within the caller's deadline (distributed mode: no worker, Redis down). */
export class ToolExecutorUnavailableError extends Error {
  readonly code = 'TOOLS.EXECUTOR_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'ToolExecutorUnavailableError';
  }
}
