import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/**
 * Deletes in the append-only log (ADR 0012) as published events. A deleted session, or deleted events of a
 * session, are tombstones in its `sessionmeta-<id>` stream; the original events stay in the log and were already
 * published. A consumer that keeps its own copy (a support desk, an analytics store) applies these to it.
 */
export const SESSION_DELETED_EVENT_TYPE = 'SessionDeleted';
export const SESSION_EVENTS_DELETED_EVENT_TYPE = 'SessionEventsDeleted';

const META_PREFIX = 'sessionmeta-';

const SessionDeletedData = Type.Object(
  {
    session_id: Type.String({ minLength: 1 }),
    agent_id: Type.Optional(Type.String({ minLength: 1 })),
    customer_id: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const SessionEventsDeletedData = Type.Object(
  {
    session_id: Type.String({ minLength: 1 }),
    min_offset: Type.Integer({ minimum: 0, description: 'The first deleted offset' }),
    before_offset: Type.Integer({
      minimum: 0,
      description:
        "The deletion covers offsets up to (not including) this one: the session's length when it was asked. Later events are not affected.",
    }),
  },
  { additionalProperties: false },
);

export const SessionDeletedV1 = envelopeSchema('session.deleted', SessionDeletedData);
export type SessionDeletedV1 = Static<typeof SessionDeletedV1>;
export const SessionEventsDeletedV1 = envelopeSchema('session.events_deleted', SessionEventsDeletedData);
export type SessionEventsDeletedV1 = Static<typeof SessionEventsDeletedV1>;

/** Maps a logged session or event deletion to its published event; `undefined` for anything else. */
export function toSessionDeletionEvent(
  event: LoggedEvent,
): { subject: string; payload: SessionDeletedV1 | SessionEventsDeletedV1 } | undefined {
  if (!event.streamId.startsWith(META_PREFIX)) return undefined;
  // Older tombstones carry no ids: the session is the stream's.
  const session_id = event.streamId.slice(META_PREFIX.length);
  const envelope = {
    ...envelopeOf(event),
  };
  if (event.type === SESSION_DELETED_EVENT_TYPE) {
    const { agent_id, customer_id } = (event.data ?? {}) as { agent_id?: string; customer_id?: string };
    return {
      subject: subjectFor('session', session_id, 'deleted'),
      payload: {
        ...envelope,
        type: 'session.deleted',
        data: { session_id, ...(agent_id ? { agent_id } : {}), ...(customer_id ? { customer_id } : {}) },
      },
    };
  }
  if (event.type === SESSION_EVENTS_DELETED_EVENT_TYPE) {
    const { min_offset, before_offset } = event.data as { min_offset: number; before_offset: number };
    return {
      subject: subjectFor('session', session_id, 'events_deleted'),
      payload: { ...envelope, type: 'session.events_deleted', data: { session_id, min_offset, before_offset } },
    };
  }
  return undefined;
}

export const sessionDeletionContracts: IntegrationEventContract[] = [
  {
    type: 'session.deleted',
    description:
      'A session was deleted (`DELETE /sessions/{id}`, or `DELETE /sessions?agent_id&customer_id`): it is gone from every view, list and long-poll. Its events stay in the log (a tombstone, ADR 0012) and were published before; drop your copy of them.',
    subjectPattern: 'tenet.v1.session.{session_id}.deleted',
    schema: SessionDeletedV1,
    example: {
      id: '01JD7Z1Q9V2W3X4Y5Z6A7B8C9F',
      type: 'session.deleted',
      version: 1,
      stream: 'sessionmeta-s_8f2c',
      offset: 7,
      position: 1102,
      occurred_at: '2026-11-22T11:02:00.000Z',
      data: { session_id: 's_8f2c', agent_id: 'agent_1', customer_id: 'guest' },
    } satisfies SessionDeletedV1,
  },
  {
    type: 'session.events_deleted',
    description:
      'Events of a session were deleted (`DELETE /sessions/{id}/events?min_offset=`): offsets from `min_offset` up to `before_offset` are hidden from every view, long-poll and replay. The events stay in the log (a tombstone, ADR 0012); hide them in your copy.',
    subjectPattern: 'tenet.v1.session.{session_id}.events_deleted',
    schema: SessionEventsDeletedV1,
    example: {
      id: '01JD7Z1Q9V2W3X4Y5Z6A7B8C9G',
      type: 'session.events_deleted',
      version: 1,
      stream: 'sessionmeta-s_8f2c',
      offset: 6,
      position: 1090,
      occurred_at: '2026-11-22T11:01:00.000Z',
      data: { session_id: 's_8f2c', min_offset: 3, before_offset: 9 },
    } satisfies SessionEventsDeletedV1,
  },
];
