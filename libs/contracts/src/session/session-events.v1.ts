import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/** Who produced a session event; the same values as Parlant's `EventSource`. */
export const EventSourceSchema = Type.Union(
  ['customer', 'customer_ui', 'human_agent', 'human_agent_on_behalf_of_ai_agent', 'ai_agent', 'system'].map((s) => Type.Literal(s)),
  { description: "Parlant's event source" },
);

const common = {
  session_id: Type.String({ minLength: 1 }),
  source: EventSourceSchema,
  correlation_id: Type.String({ minLength: 1, description: 'Ties together the events of one turn' }),
};

export const MessageCreatedV1 = envelopeSchema(
  'session.message_created',
  Type.Object(
    {
      ...common,
      message: Type.String(),
      participant: Type.Object({ id: Type.Optional(Type.String()), display_name: Type.String() }, { additionalProperties: false }),
      error_type: Type.Optional(
        Type.String({
          description:
            "Set on the agent's failure reply: why the turn could not complete (tool_failed, tool_timeout, provider_unavailable, deadline, …).",
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const SessionStatusSchema = Type.Union(
  ['acknowledged', 'cancelled', 'processing', 'typing', 'ready', 'error'].map((s) => Type.Literal(s)),
);

export const StatusChangedV1 = envelopeSchema(
  'session.status_changed',
  Type.Object(
    {
      ...common,
      status: SessionStatusSchema,
      details: Type.Record(Type.String(), Type.Unknown(), { description: 'Status-specific details, e.g. matched guidelines on ready' }),
    },
    { additionalProperties: false },
  ),
);

export const ToolCalledV1 = envelopeSchema(
  'session.tool_called',
  Type.Object(
    {
      ...common,
      tool_calls: Type.Array(
        Type.Object(
          {
            tool_id: Type.String({ minLength: 1 }),
            arguments: Type.Record(Type.String(), Type.Unknown()),
            /** Parlant's ToolResult: the data the model reads, metadata for the UI, and `control` (Parlant's lifespan/mode hints). */
            result: Type.Object({
              data: Type.Unknown(),
              metadata: Type.Record(Type.String(), Type.Unknown()),
              control: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
            }),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const CustomEventRecordedV1 = envelopeSchema(
  'session.custom_event_recorded',
  Type.Object({ ...common, payload: Type.Unknown() }, { additionalProperties: false }),
);

export type MessageCreatedV1 = Static<typeof MessageCreatedV1>;
export type StatusChangedV1 = Static<typeof StatusChangedV1>;
export type ToolCalledV1 = Static<typeof ToolCalledV1>;
export type CustomEventRecordedV1 = Static<typeof CustomEventRecordedV1>;
export type SessionIntegrationEventV1 = MessageCreatedV1 | StatusChangedV1 | ToolCalledV1 | CustomEventRecordedV1;

/** Parlant's event kinds, which are the event types stored in a session's stream. */
export type SessionEventKind = 'message' | 'status' | 'tool' | 'custom';

const eventNameByKind: Record<SessionEventKind, string> = {
  message: 'message_created',
  status: 'status_changed',
  tool: 'tool_called',
  custom: 'custom_event_recorded',
};

/** The stream a session's events are appended to in the event log. */
export const sessionStreamId = (sessionId: string): string => `session-${sessionId}`;

/** A stored event-log record as the mappings read it. */
export type LoggedSessionEvent = LoggedEvent;

/** The data a session event carries in the log: Parlant's event fields minus the ones the log owns. */
export interface SessionEventData {
  session_id: string;
  source: Static<typeof EventSourceSchema>;
  correlation_id: string;
  data: Record<string, unknown>;
}

const isSessionKind = (type: string): type is SessionEventKind => Object.hasOwn(eventNameByKind, type);

/**
 * Maps a logged session event to its published integration event, or `undefined` when the stream is
 * not a session stream. The gateway and the event-log relay share this single mapping.
 */
export function toSessionIntegrationEvent(event: LoggedSessionEvent): { subject: string; payload: SessionIntegrationEventV1 } | undefined {
  if (!event.streamId.startsWith('session-') || !isSessionKind(event.type)) return undefined;
  const logged = event.data as SessionEventData;
  const base = {
    ...envelopeOf(event),
  };
  const common = { session_id: logged.session_id, source: logged.source, correlation_id: logged.correlation_id };
  const d = logged.data;
  const payload: SessionIntegrationEventV1 = (() => {
    switch (event.type) {
      case 'message':
        return {
          ...base,
          type: 'session.message_created' as const,
          data: {
            ...common,
            message: String(d['message'] ?? ''),
            participant: (d['participant'] as MessageCreatedV1['data']['participant']) ?? { display_name: logged.source },
            ...(typeof d['error_type'] === 'string' ? { error_type: d['error_type'] } : {}),
          },
        };
      case 'status':
        return {
          ...base,
          type: 'session.status_changed' as const,
          data: {
            ...common,
            status: d['status'] as StatusChangedV1['data']['status'],
            details: (d['data'] as Record<string, unknown>) ?? {},
          },
        };
      case 'tool':
        return {
          ...base,
          type: 'session.tool_called' as const,
          data: { ...common, tool_calls: (d['tool_calls'] as ToolCalledV1['data']['tool_calls']) ?? [] },
        };
      case 'custom':
        return { ...base, type: 'session.custom_event_recorded' as const, data: { ...common, payload: d } };
    }
  })();
  return { subject: subjectFor('session', logged.session_id, eventNameByKind[event.type]), payload };
}

const example = {
  id: '01JD7Z1Q9V2W3X4Y5Z6A7B8C9D',
  version: 1 as const,
  stream: 'session-s_8f2c',
  offset: 3,
  position: 1042,
  occurred_at: '2026-11-22T10:30:00.000Z',
};
const exampleCommon = { session_id: 's_8f2c', source: 'ai_agent' as const, correlation_id: 'turn_5b1e' };

export const sessionEventContracts: IntegrationEventContract[] = [
  {
    type: 'session.message_created',
    description: 'A message was added to a session by the customer, a human agent or the AI agent.',
    subjectPattern: 'tenet.v1.session.{session_id}.message_created',
    schema: MessageCreatedV1,
    example: {
      ...example,
      type: 'session.message_created',
      data: {
        ...exampleCommon,
        message: 'Our refund window is 30 days. Shall I check your order?',
        participant: { id: 'agent_1', display_name: 'Support' },
      },
    } satisfies MessageCreatedV1,
  },
  {
    type: 'session.status_changed',
    description: "The agent's processing status for a turn changed (acknowledged, processing, typing, ready, cancelled, error).",
    subjectPattern: 'tenet.v1.session.{session_id}.status_changed',
    schema: StatusChangedV1,
    example: {
      ...example,
      type: 'session.status_changed',
      data: { ...exampleCommon, status: 'ready', details: { matched_guidelines: [{ guideline_id: 'g_refund', score: 0.92 }] } },
    } satisfies StatusChangedV1,
  },
  {
    type: 'session.tool_called',
    description: 'The agent called one or more tools during a turn; carries arguments and results.',
    subjectPattern: 'tenet.v1.session.{session_id}.tool_called',
    schema: ToolCalledV1,
    example: {
      ...example,
      type: 'session.tool_called',
      data: {
        ...exampleCommon,
        tool_calls: [{ tool_id: 'check_order', arguments: { order_id: '12345' }, result: { data: { status: 'shipped' }, metadata: {} } }],
      },
    } satisfies ToolCalledV1,
  },
  {
    type: 'session.custom_event_recorded',
    description: 'An application posted a custom event to the session; the payload is passed through unchanged.',
    subjectPattern: 'tenet.v1.session.{session_id}.custom_event_recorded',
    schema: CustomEventRecordedV1,
    example: {
      ...example,
      type: 'session.custom_event_recorded',
      data: { ...exampleCommon, source: 'customer_ui', payload: { page: '/checkout' } },
    } satisfies CustomEventRecordedV1,
  },
];
