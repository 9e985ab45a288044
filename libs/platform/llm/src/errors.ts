/**
 * Typed errors with stable codes, identical for every provider. `retryable` is what callers (a BullMQ job, the
 * turn workflow) base their retry decision on: authentication and invalid output never get better by retrying.
 */
export type LlmErrorCode = 'LLM.RATE_LIMITED' | 'LLM.AUTHENTICATION' | 'LLM.UNAVAILABLE' | 'LLM.INVALID_OUTPUT' | 'LLM.UNSUPPORTED_TASK';

export abstract class LlmError extends Error {
  abstract readonly code: LlmErrorCode;
  abstract readonly retryable: boolean;

  constructor(
    /** The provider that failed (`openai`, `anthropic`, …). */
    readonly provider: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The provider throttled us (HTTP 429) and retries were spent or the advertised delay was too long to wait. */
export class RateLimitedError extends LlmError {
  readonly code = 'LLM.RATE_LIMITED';
  readonly retryable = true;

  constructor(
    provider: string,
    /** How long the provider asked us to wait (`retry-after-ms` / `retry-after`), when it said. */
    readonly retryAfterMs: number | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(provider, message, options);
    this.name = 'RateLimitedError';
  }
}

/** The credentials were rejected (HTTP 401/403). Never retried: the same key fails the same way. */
export class AuthenticationError extends LlmError {
  readonly code = 'LLM.AUTHENTICATION';
  readonly retryable = false;

  constructor(provider: string, message: string, options?: ErrorOptions) {
    super(provider, message, options);
    this.name = 'AuthenticationError';
  }
}

/** The provider could not be reached or failed (timeouts, connection errors, 5xx, unexpected 4xx). */
export class ProviderUnavailableError extends LlmError {
  readonly code = 'LLM.UNAVAILABLE';

  constructor(
    provider: string,
    message: string,
    /** False for request errors (400, 404, 422) that fail identically on every attempt. */
    readonly retryable: boolean,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(provider, message, options);
    this.name = 'ProviderUnavailableError';
  }
}

/** The answer was not JSON, or did not satisfy the requested schema; `path` is the JSON pointer of the first violation. */
export class InvalidStructuredOutputError extends LlmError {
  readonly code = 'LLM.INVALID_OUTPUT';
  readonly retryable = false;

  constructor(
    provider: string,
    readonly schemaName: string,
    readonly path: string,
    readonly problems: string[],
    options?: ErrorOptions,
  ) {
    super(provider, `${provider} output for "${schemaName}" violates its schema at ${path}: ${problems.join('; ')}`, options);
    this.name = 'InvalidStructuredOutputError';
  }

  /** The calls that produced unusable output but were billed (set by the adapter that made them), for metering. */
  billed: { provider: string; model: string; usage: { inputTokens: number; outputTokens: number } }[] = [];
}

/** The call was not made, or was aborted, because the caller's deadline passed or it cancelled. Never retried. */
export function cancelledCall(provider: string): ProviderUnavailableError {
  return new ProviderUnavailableError(provider, `${provider} call cancelled: the turn's deadline passed or the turn was cancelled`, false);
}

/** A deterministic provider was asked for a task kind it does not implement. */
export class UnsupportedTaskError extends LlmError {
  readonly code = 'LLM.UNSUPPORTED_TASK';
  readonly retryable = false;

  constructor(
    provider: string,
    readonly taskKind: string,
    supported: readonly string[],
  ) {
    super(provider, `${provider} cannot perform task "${taskKind}" (it implements: ${supported.join(', ') || 'none'})`);
    this.name = 'UnsupportedTaskError';
  }
}

export const isLlmError = (error: unknown): error is LlmError => error instanceof LlmError;

/** A configuration that cannot work (an unknown provider, a chosen provider without its key): fail at startup. */
export class LlmConfigurationError extends Error {
  readonly code = 'LLM.CONFIGURATION';

  constructor(message: string) {
    super(message);
    this.name = 'LlmConfigurationError';
  }
}
