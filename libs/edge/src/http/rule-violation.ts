import { HttpException, HttpStatus } from '@nestjs/common';
import { UnprocessableEntity, type ValidationDetail } from './validation.js';
import { ResourceIdTakenError } from '../resources/resource-streams.js';

/**
 * A rule that needs more than the request body to check (a reference to another resource, a rule spanning
 * the stored item and the change) was broken. Raised by repositories before anything is appended.
 */
export class RuleViolationError extends Error {
  readonly code = 'CATALOG.RULE_VIOLATION';
  constructor(readonly details: ValidationDetail[]) {
    super(details.map((d) => d.msg).join('; '));
  }
}

export const violation = (path: (string | number)[], msg: string, type: string): ValidationDetail => ({
  loc: ['body', ...path],
  msg,
  type,
});

/** Throws a `RuleViolationError` carrying every violation found, or returns when there are none. */
export function assertNoViolations(details: ValidationDetail[]): void {
  if (details.length > 0) throw new RuleViolationError(details);
}

/** Catalog errors → the HTTP answer Parlant gives (422 with FastAPI-style detail). */
export function catalogErrorToHttp(error: unknown): unknown {
  if (error instanceof RuleViolationError) return new UnprocessableEntity(error.details);
  if (error instanceof ResourceIdTakenError) {
    return new HttpException(
      { detail: [{ loc: ['body', 'id'], msg: error.message, type: 'value_error.unique' }] },
      HttpStatus.UNPROCESSABLE_ENTITY,
    );
  }
  return error;
}

/** Runs a repository call, translating catalog errors once for every controller. */
export async function httpCall<R>(call: () => Promise<R>): Promise<R> {
  try {
    return await call();
  } catch (error) {
    throw catalogErrorToHttp(error);
  }
}
