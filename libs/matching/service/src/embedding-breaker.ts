/**
 * A circuit breaker for the embedding provider (docs/reliability.md#embeddings-that-fail). After a failed call the breaker opens: no
 * embedding call is made for `initialMs`; the first call after that is the trial. A trial that fails opens it
 * again for twice as long (up to `maxMs`); one that succeeds closes it and resets the interval. While it is
 * open the matcher ranks lexically without asking the provider — a dead or misconfigured embedding API costs
 * one call per interval, not one call re-embedding the whole guideline set on every turn.
 */
export interface EmbeddingBreakerOptions {
  /** The first interval after a failure (`EmbeddingCacheOptions.backoffMs`). */
  initialMs: number;
  /** The longest interval (`EmbeddingCacheOptions.backoffMaxMs`). */
  maxMs: number;
  /** Milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** The error a skipped call fails with: the code and retryability of the failure that opened the breaker. */
export class EmbeddingsBackingOffError extends Error {
  override readonly name = 'EmbeddingsBackingOffError';

  constructor(
    readonly code: string,
    readonly retryable: boolean,
    /** When the next trial call is allowed (the breaker's clock). */
    readonly retryAt: number,
    message: string,
  ) {
    super(message);
  }
}

export class EmbeddingBreaker {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly now: () => number;
  private openUntil = 0;
  private interval = 0;
  private cause: { code: string; retryable: boolean; message: string } | undefined;

  constructor(options: EmbeddingBreakerOptions) {
    this.initialMs = options.initialMs;
    this.maxMs = Math.max(this.initialMs, options.maxMs);
    this.now = options.now ?? Date.now;
    if (!(this.initialMs > 0)) throw new RangeError(`embedding backoff must be positive, got ${this.initialMs}`);
  }

  /** Throws `EmbeddingsBackingOffError` while the breaker is open; otherwise the call may go out. */
  check(): void {
    const now = this.now();
    if (this.cause && now < this.openUntil) {
      throw new EmbeddingsBackingOffError(
        this.cause.code,
        this.cause.retryable,
        this.openUntil,
        `embeddings skipped for ${Math.ceil((this.openUntil - now) / 1000)} s more after a failure: ${this.cause.message}`,
      );
    }
  }

  succeeded(): void {
    this.cause = undefined;
    this.interval = 0;
    this.openUntil = 0;
  }

  failed(error: unknown): void {
    const e = error as { code?: unknown; name?: unknown; message?: unknown; retryable?: unknown } | undefined;
    this.interval = this.interval === 0 ? this.initialMs : Math.min(this.maxMs, this.interval * 2);
    this.openUntil = this.now() + this.interval;
    this.cause = {
      code: typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'Error',
      retryable: e?.retryable !== false,
      message: (typeof e?.message === 'string' ? e.message : String(error)).slice(0, 300),
    };
  }

  /** The current interval (0 when closed), for provenance and tests. */
  get backoffMs(): number {
    return this.interval;
  }
}
