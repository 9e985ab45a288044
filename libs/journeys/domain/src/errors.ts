/** A broken validation rule: the field (dotted path, `steps[2].id`) and the rule it broke, in words. */
export interface JourneyRuleViolation {
  field: string;
  rule: string;
}

export type JourneyErrorCode =
  | 'JOURNEY.INVALID_DEFINITION'
  | 'JOURNEY.NOT_ACTIVE'
  | 'JOURNEY.WRONG_JOURNEY'
  | 'JOURNEY.UNKNOWN_STEP'
  | 'JOURNEY.NOT_A_FORK'
  | 'JOURNEY.INVALID_BRANCH'
  | 'JOURNEY.NOT_A_TOOL_STEP'
  | 'JOURNEY.AT_TOOL_STEP'
  | 'JOURNEY.NOT_VISITED'
  | 'JOURNEY.NOT_AT_FINAL_STEP';

/** Typed domain errors with stable codes; transports map them to HTTP/NATS errors once. */
export class JourneyDomainError extends Error {
  constructor(
    readonly code: JourneyErrorCode,
    message: string,
    readonly violations: JourneyRuleViolation[] = [],
  ) {
    super(message);
    this.name = 'JourneyDomainError';
  }
}
