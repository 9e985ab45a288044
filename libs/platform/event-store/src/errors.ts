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

/**
 * Whether `error` (or an error in its `cause` chain) says the log's disk is full — `SQLITE_FULL` or `ENOSPC`.
 * Nothing was written; the same write succeeds once space returns. Transports answer 507 (issue 26 item 5).
 */
export function isStorageFull(error: unknown): boolean {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; current = (current as { cause?: unknown }).cause, depth++) {
    if (STORAGE_FULL_CODES.has(String((current as { code?: unknown }).code))) return true;
  }
  return false;
}
