import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/** The event type stored in a session's `sessionmeta-<id>` stream when its mode changes. */
export const SESSION_MODE_CHANGED_EVENT_TYPE = 'SessionModeChanged';

/** The stream a session's own record (mode, title, lifecycle, edits of its events) is kept in. */
export const sessionMetaStreamId = (sessionId: string): string => `sessionmeta-${sessionId}`;

const ModeSchema = Type.Union([Type.Literal('auto'), Type.Literal('manual'), Type.Literal('paused')], {
  description: 'auto: the agent replies; manual: a human agent does; paused: nobody',
});

const ModeChangedData = Type.Object(
  {
    session_id: Type.String({ minLength: 1 }),
    agent_id: Type.String({ minLength: 1 }),
    customer_id: Type.String({ minLength: 1 }),
    mode: ModeSchema,
    previous_mode: ModeSchema,
    reason: Type.Union([Type.Literal('api'), Type.Literal('guideline'), Type.Literal('budget'), Type.Literal('journey')], {
      description:
        'api: a PATCH /sessions/{id}; guideline: a matched hand-off guideline; budget: a token budget of the agent is spent and its budget says on_exhausted: handoff; journey: a tool step of a journey whose on_failure says handoff failed',
    }),
    guideline_id: Type.Optional(Type.String({ minLength: 1, description: 'The hand-off guideline, when reason is guideline' })),
    journey_id: Type.Optional(Type.String({ minLength: 1, description: 'The failed journey, when reason is journey' })),
  },
  { additionalProperties: false },
);

export const SessionModeChangedV1 = envelopeSchema('session.mode_changed', ModeChangedData);
export type SessionModeChangedV1 = Static<typeof SessionModeChangedV1>;
export type SessionModeChangedData = Static<typeof ModeChangedData>;

/** Maps a logged mode change to its published event; `undefined` for anything else. */
export function toSessionModeChangedEvent(event: LoggedEvent): { subject: string; payload: SessionModeChangedV1 } | undefined {
  if (!event.streamId.startsWith('sessionmeta-') || event.type !== SESSION_MODE_CHANGED_EVENT_TYPE) return undefined;
  const data = event.data as SessionModeChangedData;
  return {
    subject: subjectFor('session', data.session_id, 'mode_changed'),
    payload: {
      ...envelopeOf(event),
      type: 'session.mode_changed',
      data,
    },
  };
}

export const sessionModeContracts: IntegrationEventContract[] = [
  {
    type: 'session.mode_changed',
    description:
      'A session switched between auto (the agent replies), manual (human hand-off: the agent stays silent) and paused. A support desk subscribes to `tenet.v1.session.*.mode_changed` to pick up hand-offs.',
    subjectPattern: 'tenet.v1.session.{session_id}.mode_changed',
    schema: SessionModeChangedV1,
    example: {
      id: '01JD7Z1Q9V2W3X4Y5Z6A7B8C9E',
      type: 'session.mode_changed',
      version: 1,
      stream: 'sessionmeta-s_8f2c',
      offset: 4,
      position: 1050,
      occurred_at: '2026-11-22T10:31:00.000Z',
      data: {
        session_id: 's_8f2c',
        agent_id: 'agent_1',
        customer_id: 'guest',
        mode: 'manual',
        previous_mode: 'auto',
        reason: 'guideline',
        guideline_id: 'g_human',
      },
    } satisfies SessionModeChangedV1,
  },
];
