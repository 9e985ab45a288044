import { TOOL_ERROR_CODES, type ServiceDescriptionV1, type ToolResultPayloadV1, type ToolServiceV1 } from '@tenet/contracts';
import { isRetryableStatus } from '@tenet/tools-domain';
import { ToolServiceError } from '../errors.js';
import { causeToolError } from '../outbound/outbound.js';

export interface ToolCallOptions {
  /** Sent as the `Idempotency-Key` header of every request of the call. */
  idempotencyKey: string;
  /** Aborts the call (the caller gave up or the executor is shutting down). */
  signal?: AbortSignal;
  /** Time limit of this attempt. */
  timeoutMs: number;
  /** Who the call is for (Parlant plugin servers receive it as their tool context). */
  context: { agent_id: string; session_id: string; customer_id: string };
}

/**
 * One port for the three kinds of tool service (openapi, mcp, sdk). Failures reject with a
 * `ToolServiceError` carrying a stable `TOOLS.*` code and whether a retry may help.
 */
export interface ToolServiceProtocol {
  describe(service: ToolServiceV1, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ServiceDescriptionV1>;
  call(service: ToolServiceV1, toolName: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResultPayloadV1>;
}

export const DEFAULT_DESCRIBE_TIMEOUT_MS = 15_000;

/** The caller's signal combined with this attempt's time limit; `timedOut()` tells which one fired. */
export function attemptSignal(signal: AbortSignal | undefined, timeoutMs: number): { signal: AbortSignal; timedOut: () => boolean } {
  const timeout = AbortSignal.timeout(timeoutMs);
  return { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, timedOut: () => timeout.aborted && !signal?.aborted };
}

/** Any failure of an outbound request as a ToolServiceError (timeouts and connection errors are retryable). */
export function toToolServiceError(
  error: unknown,
  what: string,
  attempt: { timedOut: () => boolean; timeoutMs: number },
  unreachableCode: string = TOOL_ERROR_CODES.SERVICE_UNREACHABLE,
): ToolServiceError {
  const known = causeToolError(error);
  if (known) return known;
  if (attempt.timedOut())
    return new ToolServiceError(TOOL_ERROR_CODES.TIMEOUT, `${what} did not answer within ${Math.round(attempt.timeoutMs)} ms`, true);
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'AbortError' || name === 'TimeoutError') return new ToolServiceError(TOOL_ERROR_CODES.CANCELLED, `${what} was cancelled`);
  return new ToolServiceError(unreachableCode, `${what} could not be reached`, true);
}

/** Retry-After as ms: delta-seconds or an HTTP date. */
export function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** A non-2xx answer as a ToolServiceError: 5xx, 408, 429 retryable (429/503 with their Retry-After). */
export function httpStatusError(what: string, response: Response): ToolServiceError {
  return new ToolServiceError(
    TOOL_ERROR_CODES.HTTP_ERROR,
    `${what} answered HTTP ${response.status}`,
    isRetryableStatus(response.status),
    retryAfterMs(response.headers.get('retry-after')),
  );
}

/** The body as JSON when it says so (or looks like it), else as text. */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (text === '') return null;
  if (type.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
