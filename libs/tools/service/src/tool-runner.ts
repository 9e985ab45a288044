import { setTimeout as sleep } from 'node:timers/promises';
import { TOOL_ERROR_CODES, toolId, type ToolCallRequestV1, type ToolCallResultV1, type ToolResultPayloadV1 } from '@tenet/contracts';
import { checkArguments, describeProblems, nextRetryDelay, type InvocationOutcome } from '@tenet/tools-domain';
import { ToolServiceError } from './errors.js';
import type { ToolServiceProtocol } from './protocols/protocol.js';

/** Where the tool invocation record (docs/data-model.md#tool-audit) goes (the event log in the executor; a list in tests). */
export interface InvocationRecorder {
  /** `stamp.workspaceId`: the workspace the audit events are published under (ADR 0018), when the caller said. */
  record(outcome: InvocationOutcome, stamp?: { workspaceId?: string }): Promise<void>;
}

/**
 * Runs one tool call to its outcome: arguments checked against the tool's schema before any outbound call,
 * then attempts under `timeout_secs`, retried per `retry_config` on retryable failures only (timeouts,
 * connection errors, 5xx, 429), then the ToolInvocation recorded. Never throws for a tool failure.
 */
export class ToolRunner {
  constructor(
    private readonly services: ToolServiceProtocol,
    private readonly recorder: InvocationRecorder,
    private readonly clock: () => number = Date.now,
  ) {}

  async run(request: ToolCallRequestV1, signal?: AbortSignal): Promise<ToolCallResultV1> {
    const started = this.clock();
    const id = toolId(request.service.name, request.tool_name);
    let attempts = 0;
    let result: ToolResultPayloadV1 | undefined;
    let error: { code: string; message: string } | undefined;
    const check = checkArguments(request.parameters, request.arguments);
    if (!check.ok) {
      error = { code: TOOL_ERROR_CODES.INVALID_ARGUMENTS, message: `invalid arguments for ${id}: ${describeProblems(check.problems)}` };
    } else {
      for (;;) {
        attempts++;
        try {
          result = await this.services.call(request.service, request.tool_name, request.arguments, {
            idempotencyKey: request.idempotency_key,
            timeoutMs: request.timeout_secs * 1000,
            context: { agent_id: request.agent_id, session_id: request.session_id, customer_id: request.customer_id ?? 'guest' },
            ...(signal ? { signal } : {}),
          });
          break;
        } catch (thrown) {
          const failure = thrown instanceof ToolServiceError ? thrown : new ToolServiceError(TOOL_ERROR_CODES.TOOL_ERROR, `${id} failed`);
          const delay = signal?.aborted ? undefined : nextRetryDelay(request.retry_config, attempts, failure);
          if (delay === undefined) {
            error = { code: failure.code, message: failure.message };
            break;
          }
          try {
            await sleep(delay, undefined, signal ? { signal } : {});
          } catch {
            error = { code: TOOL_ERROR_CODES.CANCELLED, message: `${id} was cancelled while waiting to retry` };
            break;
          }
        }
      }
    }
    const duration = Math.max(0, this.clock() - started);
    await this.recorder.record(
      {
        invocation_id: request.idempotency_key,
        session_id: request.session_id,
        trace_id: request.trace_id,
        agent_id: request.agent_id,
        service_name: request.service.name,
        tool_name: request.tool_name,
        tool_id: id,
        parameters: request.arguments,
        ...(result ? { result } : {}),
        ...(error ? { error } : {}),
        attempts,
        duration_ms: duration,
        started_at: new Date(started).toISOString(),
      },
      request.workspace_id !== undefined ? { workspaceId: request.workspace_id } : {},
    );
    return {
      idempotency_key: request.idempotency_key,
      tool_id: id,
      status: error ? 'failed' : 'succeeded',
      ...(result ? { result } : {}),
      ...(error ? { error } : {}),
      attempts,
      duration_ms: duration,
      replayed: false,
    };
  }
}
