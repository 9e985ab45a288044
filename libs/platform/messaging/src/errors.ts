/** No stream captures the subject: a durable publish would be lost, so it is refused. */
export class NoStreamForSubjectError extends Error {
  readonly code = 'MESSAGING.NO_STREAM';
  constructor(
    readonly subject: string,
    options?: ErrorOptions,
  ) {
    super(`no stream captures subject "${subject}"; the message was not stored`, options);
    this.name = 'NoStreamForSubjectError';
  }
}

export class BusClosedError extends Error {
  readonly code = 'MESSAGING.CLOSED';
  constructor() {
    super('the message bus is closed');
    this.name = 'BusClosedError';
  }
}

/** What of a responder's error travels back to the requester (both adapters). */
export interface RemoteErrorShape {
  message: string;
  code?: string;
  details?: Record<string, unknown>;
}

export function remoteErrorOf(thrown: unknown): RemoteErrorShape {
  const e = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as { message?: unknown; code?: unknown; details?: unknown };
  const details =
    typeof e.details === 'object' && e.details !== null && !Array.isArray(e.details) ? (e.details as Record<string, unknown>) : undefined;
  return {
    message: typeof e.message === 'string' ? e.message : String(thrown),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(details ? { details } : {}),
  };
}
