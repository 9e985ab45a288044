import { isLlmError, type LlmErrorCode } from '@tenet/llm';
import { RemoteHandlerError, RequestFailedError } from '@tenet/messaging';

/** Stable codes a customer-visible `error` status carries; the detail goes to the operator's log only. */
export type TurnErrorCode = LlmErrorCode | 'TURN.TIMEOUT' | 'TURN.FAILED' | 'BUDGET.UNAVAILABLE';

const GENERIC: Record<TurnErrorCode, string> = {
  'LLM.RATE_LIMITED': 'The assistant is busy right now. Please try again in a moment.',
  'LLM.AUTHENTICATION': 'The assistant is not available right now.',
  'LLM.UNAVAILABLE': 'The assistant is not available right now. Please try again in a moment.',
  'LLM.INVALID_OUTPUT': 'The assistant could not put together an answer. Please try again.',
  'LLM.UNSUPPORTED_TASK': 'The assistant is not available right now.',
  'TURN.TIMEOUT': 'The assistant took too long to answer. Please try again.',
  'TURN.FAILED': 'Something went wrong while answering. Please try again.',
  // The budget store (Redis) does not answer: a budgeted agent makes no call it cannot count (ADR 0019, amendment).
  'BUDGET.UNAVAILABLE': 'The assistant is not available right now. Please try again in a moment.',
};

const isTurnErrorCode = (code: unknown): code is TurnErrorCode => typeof code === 'string' && code in GENERIC;

/**
 * What a customer may learn about a failed turn: a stable code and a generic sentence — never the error's
 * own text, which can hold a provider's response (and whatever a proxy echoed into it, keys included).
 */
export function customerFacingError(error: unknown): { code: TurnErrorCode; exception: string } {
  const code: TurnErrorCode = isLlmError(error)
    ? error.code
    : error instanceof RemoteHandlerError && isTurnErrorCode(error.remoteCode)
      ? error.remoteCode
      : error instanceof RequestFailedError
        ? 'TURN.TIMEOUT'
        : (error as { code?: unknown } | null)?.code === 'BUDGET.UNAVAILABLE'
          ? 'BUDGET.UNAVAILABLE'
          : 'TURN.FAILED';
  return { code, exception: GENERIC[code] };
}
