/** A broken validation rule: the field (dotted path) and the rule it broke, in words. */
export interface DomainRuleViolation {
  field: string;
  rule: string;
}

/** Typed domain errors with stable codes; transports map them to HTTP/NATS errors once, in a filter. */
export class SessionDomainError extends Error {
  constructor(
    readonly code: 'SESSION.INVALID_CONFIG' | 'SESSION.INVALID_TRANSITION' | 'SESSION.NOT_STARTED' | 'SESSION.ALREADY_STARTED',
    message: string,
    readonly violations: DomainRuleViolation[] = [],
  ) {
    super(message);
    this.name = 'SessionDomainError';
  }
}

/** The turn was superseded by a newer customer message: it appends `cancelled` and nothing more. */
export class TurnCancelled extends Error {}
