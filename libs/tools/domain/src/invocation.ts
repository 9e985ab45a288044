/**
 * A tool invocation record (docs/data-model.md#tool-audit): one per idempotency key, written once when the call has an outcome. The
 * record's event id is derived from the key, so the event log itself refuses a second record (a redelivered
 * or redone job) and JetStream deduplicates its publication.
 */
export interface InvocationOutcome {
  invocation_id: string;
  session_id: string;
  trace_id: string;
  agent_id: string;
  service_name: string;
  tool_name: string;
  tool_id: string;
  parameters: Record<string, unknown>;
  result?: { data: unknown; metadata: Record<string, unknown>; control: Record<string, unknown> };
  error?: { code: string; message: string };
  attempts: number;
  duration_ms: number;
  started_at: string;
}

export interface InvocationRecord {
  id: string;
  type: 'ToolInvocationCompleted' | 'ToolInvocationFailed';
  data: InvocationOutcome;
}

export const invocationEventId = (invocationId: string): string => `tool-invocation-${invocationId}`;

/** The one event that records an invocation's outcome. */
export function invocationRecord(outcome: InvocationOutcome): InvocationRecord {
  return {
    id: invocationEventId(outcome.invocation_id),
    type: outcome.error ? 'ToolInvocationFailed' : 'ToolInvocationCompleted',
    data: outcome,
  };
}
