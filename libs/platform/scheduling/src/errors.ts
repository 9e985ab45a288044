/**
 * Typed errors with stable codes. `NonRetryableJobError` is thrown by job handlers; the others by the
 * scheduler itself, identically in every adapter.
 */
export abstract class SchedulingError extends Error {
  abstract readonly code: string;
}

/** Thrown by a job handler when retrying cannot help (bad input, missing entity): the job fails at once. */
export class NonRetryableJobError extends SchedulingError {
  readonly code = 'SCHEDULING.NON_RETRYABLE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NonRetryableJobError';
  }
}

/** A schedule/cancel/process call was rejected before anything was stored; `field` names the input, `rule` what it broke. */
export class InvalidScheduleRequestError extends SchedulingError {
  readonly code = 'SCHEDULING.INVALID_REQUEST';

  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(`${field}: ${rule}`);
    this.name = 'InvalidScheduleRequestError';
  }
}

/** The scheduler was used after `close()`. */
export class SchedulerClosedError extends SchedulingError {
  readonly code = 'SCHEDULING.CLOSED';

  constructor() {
    super('the scheduler is closed');
    this.name = 'SchedulerClosedError';
  }
}

/**
 * The durable in-process scheduler could not write a job to its file (full disk, I/O error): nothing was scheduled.
 * The driver's error (`SQLITE_FULL`, `ENOSPC`…) is the `cause`, so transports that answer 507 for a full disk see it.
 */
export class SchedulerStorageError extends SchedulingError {
  readonly code = 'SCHEDULING.STORAGE';

  constructor(action: string, cause: unknown) {
    super(`${action}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'SchedulerStorageError';
  }
}
