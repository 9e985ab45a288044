/**
 * Seed 003 ToolInvocation: one record per idempotency key, written once when the call has an outcome. The
 * decider refuses a second record for the same key, so a redelivered job does not record twice.
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

export type InvocationEvent = { type: 'ToolInvocationCompleted' | 'ToolInvocationFailed'; data: InvocationOutcome };

/** The stream state the decider needs: which invocation ids are recorded already. */
export type InvocationLog = ReadonlySet<string>;

export const evolveInvocationLog = (log: InvocationLog, event: { data: unknown }): InvocationLog => {
  const id = (event.data as { invocation_id?: unknown }).invocation_id;
  return typeof id === 'string' ? new Set([...log, id]) : log;
};

/** Record the outcome, unless this invocation is recorded already (then nothing: the first record stands). */
export function decideRecordInvocation(log: InvocationLog, outcome: InvocationOutcome): InvocationEvent[] {
  if (log.has(outcome.invocation_id)) return [];
  return [{ type: outcome.error ? 'ToolInvocationFailed' : 'ToolInvocationCompleted', data: outcome }];
}
