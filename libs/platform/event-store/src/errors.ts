import type { ExpectedVersion } from './event-store.port.js';

/**
 * Typed errors with stable codes: transports map `code` to a status once, and retry policies decide by type
 * (a concurrency conflict may be retried after re-reading the stream; an invalid event never is).
 */
export abstract class EventLogError extends Error {
  abstract readonly code: string;
}

/** The stream was not at the expected version when the append tried to commit. Nothing was written. */
export class ConcurrencyError extends EventLogError {
  readonly code = 'EVENT_LOG.CONCURRENCY';

  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    /** The stream's version (offset of its last event, -1 when absent) as the store saw it. */
    readonly actual: number,
    detail?: string,
  ) {
    super(`stream "${streamId}" expected version ${String(expected)} but is at ${actual}${detail ? ` (${detail})` : ''}`);
    this.name = 'ConcurrencyError';
  }
}

/** An append was rejected before anything was written; `field` names the input and `rule` what it broke. */
export class InvalidEventError extends EventLogError {
  readonly code = 'EVENT_LOG.INVALID_EVENT';

  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(`${field}: ${rule}`);
    this.name = 'InvalidEventError';
  }
}

/** A read or checkpoint call had an argument out of range (negative offset, empty checkpoint name…). */
export class InvalidRequestError extends EventLogError {
  readonly code = 'EVENT_LOG.INVALID_REQUEST';

  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(`${field}: ${rule}`);
    this.name = 'InvalidRequestError';
  }
}

/** The backing store cannot serve the call: closed, or (MongoDB) not a replica set, so no transactions. */
export class EventLogUnavailableError extends EventLogError {
  readonly code = 'EVENT_LOG.UNAVAILABLE';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventLogUnavailableError';
  }
}

/** Error codes a full disk surfaces as: SQLite's own, and the OS's (a file write, WAL growth). */
const STORAGE_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC']);
/** MongoDB's server error `OutOfDiskSpace`. */
const MONGO_OUT_OF_DISK_SPACE = 14031;

/**
 * One error's own signs of a full disk: SQLite's and the OS's codes; MongoDB's `OutOfDiskSpace` (14031) as the
 * server error's code, or as the code of one of a bulk write's `writeErrors` (insertMany reports a failed write
 * there, the error's own code left unset) or of its write-concern error.
 */
function saysStorageFull(error: object): boolean {
  const { code, codeName, writeErrors, writeConcernError } = error as {
    code?: unknown;
    codeName?: unknown;
    writeErrors?: unknown;
    writeConcernError?: { code?: unknown };
  };
  if (STORAGE_FULL_CODES.has(String(code))) return true;
  if (code === MONGO_OUT_OF_DISK_SPACE || codeName === 'OutOfDiskSpace') return true;
  const writes = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (writes.some((write) => (write as { code?: unknown } | null)?.code === MONGO_OUT_OF_DISK_SPACE)) return true;
  return writeConcernError?.code === MONGO_OUT_OF_DISK_SPACE;
}

/**
 * Whether `error` (or an error in its `cause` chain) says the log's disk is full — `SQLITE_FULL`, `ENOSPC`, or
 * MongoDB's `OutOfDiskSpace` (14031). Nothing was written; the same write succeeds once space returns. Transports
 * answer 507 (docs/reliability.md#a-full-disk-under-the-event-log).
 */
export function isStorageFull(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current !== undefined && current !== null && depth < 8;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (typeof current === 'object' && saysStorageFull(current)) return true;
  }
  return false;
}
