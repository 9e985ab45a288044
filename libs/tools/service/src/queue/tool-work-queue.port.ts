import type { ToolCallRequestV1, ToolCallResultV1 } from '@tenet/contracts';

/** Runs one call to its outcome (the executor's `ToolRunner`); throws only for executor faults, never for tool failures. */
export type ToolCallHandler = (request: ToolCallRequestV1, signal: AbortSignal) => Promise<ToolCallResultV1>;

export interface SubmitOptions {
  /** How long the caller waits for the result; then `ToolExecutorUnavailableError` (the call itself goes on). */
  deadlineMs: number;
  signal?: AbortSignal;
}

/**
 * The durable work queue between callers (the gateway) and executors: a call is keyed by its idempotency key,
 * so submitting a key again — a retried turn, a redelivered request — joins the running call or returns the
 * recorded result (`replayed: true`) instead of calling the tool again. Two adapters: BullMQ on Redis
 * (distributed: any replica runs a call; a killed replica's call is redone by another) and in-process
 * (embedded). Results are kept for a TTL.
 */
export interface ToolWorkQueue {
  submit(request: ToolCallRequestV1, options: SubmitOptions): Promise<ToolCallResultV1>;
  /** Starts running calls in this process. */
  process(handler: ToolCallHandler, options?: { concurrency?: number }): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_RESULT_TTL_MS = 60 * 60 * 1000;

/** The caller's deadline when it gave none: every attempt at its timeout, plus the waits, plus queueing slack. */
export function defaultDeadlineMs(request: ToolCallRequestV1): number {
  const attempts = request.retry_config?.max_attempts ?? 1;
  const delays = request.retry_config
    ? request.retry_config.delay_ms * attempts * (request.retry_config.backoff_multiplier ?? 2) ** attempts
    : 0;
  return Math.min(30 * 60_000, request.timeout_secs * 1000 * attempts + Math.min(delays, 10 * 60_000) + 30_000);
}
