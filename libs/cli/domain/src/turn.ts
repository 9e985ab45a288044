/** A session event as Parlant's `GET /sessions/{id}/events` returns it. */
export interface SessionEvent {
  id: string;
  kind: string;
  source: string;
  offset: number;
  correlation_id?: string;
  data: Record<string, unknown>;
}

/** What one customer turn produced, as the CLI shows and checks it. */
export interface TurnObservation {
  customer: string;
  reply: string;
  matched: { id: string; score?: number }[];
  tools: { tool: string; arguments: Record<string, unknown>; status?: string }[];
  journey?: { id: string; step: string };
  citations: { source: string; title?: string; heading?: string }[];
  /** The turn's error status, if it ended in one. */
  error?: string;
  /** The last offset of the turn (the next turn's events come after it). */
  lastOffset: number;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The status that ends a turn: ready (its report), or error. */
export const endsTurn = (event: SessionEvent): boolean =>
  event.kind === 'status' && (event.data['status'] === 'ready' || event.data['status'] === 'error');

/**
 * Folds the events of one turn (after the customer's message, up to the status that ends it) into an observation:
 * the agent's messages, the ready report's matched guidelines, tool calls and active journey, the messages' cited
 * sources, and the error when the turn failed.
 */
export function observeTurn(customer: string, events: readonly SessionEvent[]): TurnObservation {
  const messages = events.filter((e) => e.kind === 'message' && e.source === 'ai_agent');
  const end = events.find(endsTurn);
  const report = record(end?.data['data']);
  const matched = list(report['matched_guidelines']).map((m) => {
    const item = record(m);
    return { id: String(item['guideline_id']), ...(typeof item['score'] === 'number' ? { score: item['score'] } : {}) };
  });
  const toolEvents = events.filter((e) => e.kind === 'tool').flatMap((e) => list(e.data['tool_calls']).map(record));
  const reported = list(report['tool_calls']).map(record);
  const tools = (reported.length > 0 ? reported : toolEvents).map((call) => ({
    tool: String(call['tool_id']),
    arguments: record(call['arguments']),
    ...(typeof call['status'] === 'string' ? { status: call['status'] } : {}),
  }));
  const active = record(report['active_journey']);
  const citations = messages.flatMap((m) =>
    list(m.data['sources']).map((s) => {
      const source = record(s);
      return {
        source: String(source['source_id']),
        ...(typeof source['title'] === 'string' ? { title: source['title'] } : {}),
        ...(typeof source['heading'] === 'string' ? { heading: source['heading'] } : {}),
      };
    }),
  );
  const error = end?.data['status'] === 'error' ? JSON.stringify(end.data['data'] ?? {}) : undefined;
  return {
    customer,
    reply: messages.map((m) => String(m.data['message'] ?? '')).join('\n'),
    matched,
    tools,
    ...(typeof active['journey_id'] === 'string' ? { journey: { id: active['journey_id'], step: String(active['step_id']) } } : {}),
    citations,
    ...(error !== undefined ? { error } : {}),
    lastOffset: Math.max(-1, ...events.map((e) => e.offset)),
  };
}

/** One line per aspect, for a terminal: the reply, then what drove it. */
export function renderTurn(turn: TurnObservation, agentName: string): string {
  const lines = [`${agentName}: ${turn.reply || '(no reply)'}`];
  if (turn.matched.length > 0)
    lines.push(`  guidelines: ${turn.matched.map((m) => (m.score !== undefined ? `${m.id} (${m.score})` : m.id)).join(', ')}`);
  for (const tool of turn.tools)
    lines.push(
      `  tool: ${tool.tool}(${Object.entries(tool.arguments)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(', ')})${tool.status ? ` ${tool.status}` : ''}`,
    );
  if (turn.journey) lines.push(`  journey: ${turn.journey.id} at ${turn.journey.step}`);
  if (turn.citations.length > 0)
    lines.push(`  sources: ${[...new Set(turn.citations.map((c) => (c.heading ? `${c.source} › ${c.heading}` : c.source)))].join('; ')}`);
  if (turn.error) lines.push(`  error: ${turn.error}`);
  return lines.join('\n');
}

/**
 * What a terminal shows while a turn runs, for one of its events as it arrives: the agent's status changes
 * (`processing…`, `typing…`) and the tools it calls. The API has no partial messages: the reply arrives whole.
 */
export function liveStatus(event: SessionEvent): string | undefined {
  if (event.kind === 'status') {
    const status = event.data['status'];
    if (status === 'processing' || status === 'typing') return `${status}…`;
    if (status === 'cancelled') return 'cancelled';
    return undefined;
  }
  if (event.kind === 'tool') {
    const calls = (event.data['tool_calls'] as { tool_id?: unknown }[] | undefined) ?? [];
    const names = calls.map((call) => String(call.tool_id ?? '')).filter(Boolean);
    return names.length > 0 ? `called ${names.join(', ')}` : undefined;
  }
  return undefined;
}
