/** A rule of the memory domain was broken; `code` is stable and mapped to HTTP/NATS once per transport. */
export class MemoryDomainError extends Error {
  constructor(
    readonly code:
      'MEMORY.INVALID_FACT' | 'MEMORY.FACT_NOT_FOUND' | 'MEMORY.FACT_FORGOTTEN' | 'MEMORY.INVALID_SOURCE' | 'MEMORY.LIMIT_EXCEEDED',
    message: string,
  ) {
    super(message);
    this.name = 'MemoryDomainError';
  }
}
