/** Typed matching-domain errors with stable codes; transports map them once, in a filter. */
export class MatchingDomainError extends Error {
  constructor(
    readonly code: 'MATCHING.VECTOR_DIMENSION' | 'MATCHING.INVALID_OPTION',
    message: string,
  ) {
    super(message);
    this.name = 'MatchingDomainError';
  }
}
