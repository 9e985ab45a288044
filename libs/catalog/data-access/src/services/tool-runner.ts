import type { ServiceDescriptionV1, ToolCallRequestV1, ToolCallResultV1, ToolServiceV1 } from '@tenet/contracts';

/**
 * What the gateway needs of the tool executor: describe a service when it is registered, run a call in a turn.
 * The gateway never talks to a tool service itself. The token is the tool executor's `TOOL_EXECUTION`
 * (@tenet/tools-service, the same `Symbol.for` key): a feature lib may not import another, so the host provides
 * the executor's client globally and the gateway finds it by this key.
 */
export const TOOL_RUNNER = Symbol.for('tenet.tools.ToolExecution');

export interface ToolRunner {
  /** Rejects with an error whose `code` is `TOOLS.SERVICE_UNREACHABLE`, `TOOLS.INVALID_DOCUMENT` or `TOOLS.TARGET_NOT_ALLOWED`. */
  describe(service: ToolServiceV1): Promise<ServiceDescriptionV1>;
  /** Never throws for a failing tool (`status: 'failed'`); throws only when the executor cannot be reached in time. */
  execute(request: ToolCallRequestV1, options?: { signal?: AbortSignal; deadlineMs?: number }): Promise<ToolCallResultV1>;
}

export type ToolServiceRef = ToolServiceV1;
export type ToolCallResult = ToolCallResultV1;

/** The executor is absent: the host composed the gateway without a tool-execution client. */
export class NoToolExecutorError extends Error {
  readonly code = 'TOOLS.EXECUTOR_UNAVAILABLE';
  constructor() {
    super('no tool executor is configured for this gateway (the host must import the tool-execution client)');
  }
}
