/** No stream captures the subject: a durable publish would be lost, so it is refused. */
export class NoStreamForSubjectError extends Error {
  readonly code = 'MESSAGING.NO_STREAM';
  constructor(readonly subject: string, options?: ErrorOptions) {
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
