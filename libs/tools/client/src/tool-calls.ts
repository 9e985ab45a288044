import { toolIdempotencyKey, type ToolParametersV1 } from '@tenet/contracts';
import type { ToolOutcome } from '@tenet/llm';
import { failActiveSpan, traced, traceHeaders } from '@tenet/observability';
import { NoToolExecutorError, type ToolCallResult, type ToolRunner, type ToolServiceRef } from '@tenet/catalog-data-access';

/** How one tool the matcher may pick runs (see AgentTurnExtras): its service, or why it cannot run. */
export interface RunnableTool {
  /** The name the matcher knows it by: the agent tool's name, or `service:tool`. */
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  timeout_secs: number;
  allow_failure: boolean;
  retry_config?: { max_attempts: number; delay_ms: number; backoff_multiplier: number };
  service?: ToolServiceRef;
  /** The tool's name in its service. */
  tool_name?: string;
  /** Why it has nowhere to run (set when `service` is absent). */
  unrunnable?: string;
}

/** A call the matcher asked for: the tool's name and its checked arguments. */
export interface WantedCall {
  tool_name: string;
  parameters?: Record<string, unknown>;
}

/** One call of the turn, as the `ready` status lists it. */
export interface TurnToolCall {
  tool_id: string;
  arguments: Record<string, unknown>;
  status: 'succeeded' | 'failed';
  attempts: number;
  duration_ms: number;
  replayed: boolean;
  error?: { code: string; message: string };
}

/** How long the executor may take for a call: every attempt's timeout and the backoff between them, plus slack. */
export function callDeadlineMs(tool: Pick<RunnableTool, 'timeout_secs' | 'retry_config'>): number {
  const attempts = tool.retry_config?.max_attempts ?? 1;
  let backoff = 0;
  for (let i = 1; i < attempts; i++)
    backoff += (tool.retry_config?.delay_ms ?? 0) * (tool.retry_config?.backoff_multiplier ?? 1) ** (i - 1);
  return attempts * tool.timeout_secs * 1000 + backoff + 10_000;
}

export interface CallContext {
  sessionId: string;
  traceId: string;
  agentId: string;
  /** The agent's workspace, stamped on the executor's audit events (their v2 subjects carry it). */
  workspaceId?: string;
}

/**
 * Runs one call through the tool executor. The executor checks the arguments against the tool's parameter
 * schema, applies timeout and retries, and returns a failure as a result; an executor that cannot be reached in
 * time is a failure of the call too (`TOOLS.EXECUTOR_UNAVAILABLE`), never a stuck turn.
 */
export async function runToolCall(
  runner: ToolRunner | undefined,
  tool: RunnableTool & { service: ToolServiceRef; tool_name: string },
  args: Record<string, unknown>,
  context: CallContext,
): Promise<ToolCallResult> {
  const idempotency_key = toolIdempotencyKey({
    session_id: context.sessionId,
    trace_id: context.traceId,
    service_name: tool.service.name,
    tool_name: tool.tool_name,
    arguments: args,
  });
  const deadlineMs = callDeadlineMs(tool);
  try {
    if (!runner) throw new NoToolExecutorError();
    // A span of the turn's trace, whose context travels with the job to the executor that runs it.
    return await traced(
      'tenet.tool.call',
      { 'tenet.session_id': context.sessionId, 'tenet.tool_id': `${tool.service.name}:${tool.tool_name}` },
      async () => {
        const trace_context = traceHeaders();
        const result = await runner.execute(
          {
            idempotency_key,
            session_id: context.sessionId,
            trace_id: context.traceId,
            agent_id: context.agentId,
            service: tool.service,
            tool_name: tool.tool_name,
            arguments: args,
            parameters: { properties: {}, ...tool.parameters } as ToolParametersV1,
            timeout_secs: tool.timeout_secs,
            ...(tool.retry_config ? { retry_config: tool.retry_config } : {}),
            ...(Object.keys(trace_context).length > 0 ? { trace_context } : {}),
            ...(context.workspaceId !== undefined ? { workspace_id: context.workspaceId } : {}),
          },
          { deadlineMs, signal: AbortSignal.timeout(deadlineMs) },
        );
        if (result.error) failActiveSpan(result.error);
        return result;
      },
    );
  } catch (error) {
    return {
      idempotency_key,
      tool_id: `${tool.service.name}:${tool.tool_name}`,
      status: 'failed',
      error: {
        code: 'TOOLS.EXECUTOR_UNAVAILABLE',
        message: `the tool executor did not answer: ${error instanceof Error ? error.message : String(error)}`,
      },
      attempts: 0,
      duration_ms: 0,
      replayed: false,
    };
  }
}

/** What the matcher and the composer read of a call. */
export const toOutcome = (toolId: string, args: Record<string, unknown>, result: ToolCallResult): ToolOutcome =>
  result.status === 'succeeded'
    ? { tool_id: toolId, arguments: args, status: 'succeeded', data: result.result?.data ?? null }
    : {
        tool_id: toolId,
        arguments: args,
        status: 'failed',
        error: result.error ? `${result.error.code}: ${result.error.message}` : 'failed',
      };

/** Scalar fields of the tools' data, usable as canned-response fields (`{{status}}`). */
export function toolFieldValues(outcomes: readonly ToolOutcome[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const outcome of outcomes) {
    if (outcome.status !== 'succeeded' || typeof outcome.data !== 'object' || outcome.data === null || Array.isArray(outcome.data))
      continue;
    for (const [key, value] of Object.entries(outcome.data))
      if (['string', 'number', 'boolean'].includes(typeof value)) values[key] = String(value);
  }
  return values;
}
