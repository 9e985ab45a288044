import {
  JOURNEY_TRANSITION_EVENT_TYPE,
  type AdvanceJourneysReplyV1,
  type AdvanceJourneysRequestV1,
  type LoggedJourneyTransition,
} from '@tenet/contracts';

type Recorded = AdvanceJourneysRequestV1['recorded'][string][number];

/**
 * The two directions between a session's stream and the journey engine's RPC (docs/adr/0011): journey events
 * are kept as `journey_transition` records (docs/data-model.md#session-events) whose data is the session event fields plus the journey
 * event (`event` = its name, `journey_id`, then the event's own data), so the relay can publish them and a
 * replay rebuilds every journey state.
 */

/** Each journey's recorded events, oldest first, from the session stream's records (other kinds are skipped). */
export function recordedJourneys(records: readonly { type: string; data: unknown }[]): Record<string, Recorded[]> {
  const byJourney: Record<string, Recorded[]> = {};
  for (const record of records) {
    if (record.type !== JOURNEY_TRANSITION_EVENT_TYPE) continue;
    const { event, journey_id, ...data } = (record.data as LoggedJourneyTransition).data;
    (byJourney[journey_id] ??= []).push({ type: event, data });
  }
  return byJourney;
}

/** The engine's new events as records to append to the session stream (in order, under the turn's lease). */
export function journeyTransitionRecords(
  reply: Pick<AdvanceJourneysReplyV1, 'events'>,
  sessionId: string,
  correlationId: string,
): { type: string; data: LoggedJourneyTransition }[] {
  return reply.events.map(({ journey_id, event }) => ({
    type: JOURNEY_TRANSITION_EVENT_TYPE,
    data: {
      session_id: sessionId,
      source: 'system',
      correlation_id: correlationId,
      data: { ...event.data, event: event.type, journey_id },
    },
  }));
}

/** When the customer last wrote in the session (epoch ms), from its stream: what the abandon timer measures from. */
export function lastCustomerActivity(records: readonly { type: string; data: unknown; recordedAt: string }[]): number | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i] as (typeof records)[number];
    if (record.type === 'message' && (record.data as { source?: string }).source === 'customer') return Date.parse(record.recordedAt);
  }
  return undefined;
}
