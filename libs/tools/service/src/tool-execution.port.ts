import type { ServiceDescriptionV1, ToolCallRequestV1, ToolCallResultV1, ToolServiceV1 } from '@tenet/contracts';

/**
 * What the gateway uses to run tools (ADR 0010). The executor does every outbound call. In embedded mode the
 * work runs in-process; in distributed mode `execute` goes through the durable work queue (BullMQ) and
 * `describe` over the messaging port (`TOOLS_DESCRIBE_SUBJECT`, queue group `tool-executor`).
 */
export interface ToolExecution {
  /**
   * The service's tools (and, for OpenAPI, the operations left out with their reasons). Rejects with a `ToolServiceError` (`code`: `TOOLS.SERVICE_UNREACHABLE`,
   * `TOOLS.INVALID_DOCUMENT`, `TOOLS.TARGET_NOT_ALLOWED`) that the gateway maps to a 4xx naming the problem.
   */
  describe(service: ToolServiceV1): Promise<ServiceDescriptionV1>;
  /**
   * Runs one call, at most once per `idempotency_key` (a repeated key returns the recorded result with
   * `replayed: true`). Never throws for tool failures: they come back as `status: 'failed'` with an error
   * code. Throws `ToolExecutorUnavailableError` only when the executor cannot be reached within the deadline.
   */
  execute(request: ToolCallRequestV1, options?: { signal?: AbortSignal; deadlineMs?: number }): Promise<ToolCallResultV1>;
}

/** Nest injection token of the `ToolExecution` the gateway injects. */
export const TOOL_EXECUTION = Symbol.for('tenet.tools.ToolExecution');
