import { endsTurn, observeTurn, type SessionEvent, type TurnObservation } from '@tenet/cli-domain';
import { CliError, type TenetApi } from './api-client.js';

/** A session with an agent, one customer message at a time (Parlant's routes: POST events, long-poll GET events). */
export class Conversation {
  private constructor(
    private readonly api: TenetApi,
    readonly sessionId: string,
    readonly customerId: string | undefined,
  ) {}

  static async open(api: TenetApi, agentId: string, options: { customerId?: string; title?: string } = {}): Promise<Conversation> {
    const session = await api.request<{ id: string; customer_id?: string }>('POST', '/sessions', {
      agent_id: agentId,
      ...(options.customerId ? { customer_id: options.customerId } : {}),
      ...(options.title ? { title: options.title } : {}),
    });
    if (!session) throw new CliError(`no session was opened for agent ${agentId}`);
    return new Conversation(api, session.id, session.customer_id);
  }

  /**
   * Sends the message and waits for the turn to end (the ready or error status), up to `timeoutMs`. Each event of
   * the turn is passed to `onEvent` as soon as the long-poll returns it (statuses, tool calls, the reply).
   */
  async say(message: string, timeoutMs = 120_000, onEvent?: (event: SessionEvent) => void): Promise<TurnObservation> {
    const posted = await this.api.request<SessionEvent>('POST', `/sessions/${this.sessionId}/events`, {
      kind: 'message',
      source: 'customer',
      message,
    });
    if (!posted) throw new CliError('the message was not accepted');
    const events: SessionEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    let offset = posted.offset + 1;
    while (!events.some((e) => endsTurn(e) && (!posted.correlation_id || e.correlation_id === posted.correlation_id))) {
      const waitSecs = Math.max(1, Math.min(30, Math.floor((deadline - Date.now()) / 1000)));
      if (Date.now() >= deadline) throw new CliError(`no answer within ${Math.round(timeoutMs / 1000)} s (session ${this.sessionId})`);
      const batch =
        (await this.api.get<SessionEvent[]>(`/sessions/${this.sessionId}/events?min_offset=${offset}&wait_for_data=${waitSecs}`)) ?? [];
      for (const event of batch) {
        events.push(event);
        offset = Math.max(offset, event.offset + 1);
        if (!posted.correlation_id || event.correlation_id === posted.correlation_id) onEvent?.(event);
      }
    }
    return observeTurn(message, events);
  }

  /** The stored value of a context variable for this conversation's customer (the guest's: this session's key). */
  async variable(variableId: string): Promise<unknown> {
    const key = this.customerId && this.customerId !== 'guest' ? this.customerId : `session:${this.sessionId}`;
    const value = await this.api.find<{ data?: unknown }>(
      `/context-variables/${encodeURIComponent(variableId)}/${encodeURIComponent(key)}`,
    );
    return value?.data;
  }
}

/** A session's recorded turns: its events split at each customer message, each part folded into an observation. */
export async function recordedTurns(api: TenetApi, sessionId: string): Promise<TurnObservation[]> {
  const events = (await api.get<SessionEvent[]>(`/sessions/${encodeURIComponent(sessionId)}/events?min_offset=0`)) ?? [];
  const turns: TurnObservation[] = [];
  let current: { customer: string; events: SessionEvent[] } | undefined;
  for (const event of events) {
    if (event.kind === 'message' && event.source === 'customer') {
      if (current) turns.push(observeTurn(current.customer, current.events));
      current = { customer: String(event.data['message'] ?? ''), events: [] };
    } else current?.events.push(event);
  }
  if (current) turns.push(observeTurn(current.customer, current.events));
  // A turn still running (no ready or error status yet) has nothing to compare.
  return turns.filter((t, index) => index < turns.length - 1 || t.matched.length > 0 || t.reply !== '' || t.error !== undefined);
}
