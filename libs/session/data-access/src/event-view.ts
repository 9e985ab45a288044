/** Parlant's Event as it travels on the wire. */
export interface EventView {
  id: string;
  source: string;
  kind: string;
  offset: number;
  creation_utc: string;
  correlation_id: string;
  trace_id: string;
  data: unknown;
  metadata: Record<string, unknown>;
  deleted: boolean;
}

/**
 * An event to append to a session: what a client posts (validated at the edge by the gateway's `EventCreationDto`)
 * or what the platform writes for a turn (statuses, tool events, the agent's messages).
 */
export interface SessionEventInput {
  kind: 'message' | 'tool' | 'status' | 'custom';
  source: 'customer' | 'customer_ui' | 'human_agent' | 'human_agent_on_behalf_of_ai_agent' | 'ai_agent' | 'system';
  message?: string;
  data?: unknown;
  metadata?: Record<string, unknown>;
  participant?: { id?: string; display_name: string };
  status?: 'acknowledged' | 'cancelled' | 'processing' | 'ready' | 'typing' | 'error';
}
