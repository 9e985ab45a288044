import type { Static, TSchema } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf } from '../envelope.js';
import type { LoggedSessionEvent } from '../session/session-events.v1.js';
import { subjectFor } from '../subjects.js';

/**
 * A session's journey progress is kept as `journey_transition` events (docs/data-model.md#session-events) in the session's
 * own stream (`session-<id>`), one per journey event; the relay publishes each as one of the four events below
 * on `tenet.v1.journey.<session_id>.<event>`, so integrators can build funnels ("how many returns stall at the
 * refund step") without reading the conversation. The journey's collected context stays private: it holds
 * customer data, and a funnel needs only steps.
 */
export const JOURNEY_TRANSITION_EVENT_TYPE = 'journey_transition';

export const JOURNEY_EVENT_NAMES = [
  'journey_activated',
  'journey_transitioned',
  'journey_completed',
  'journey_abandoned',
  'journey_failed',
] as const;
export type JourneyEventName = (typeof JOURNEY_EVENT_NAMES)[number];

/** What a `journey_transition` record carries in the session stream: the session event fields plus the journey event. */
export interface LoggedJourneyTransition {
  session_id: string;
  source: 'system';
  correlation_id: string;
  data: { event: JourneyEventName; journey_id: string } & Record<string, unknown>;
}

const common = {
  session_id: Type.String({ minLength: 1 }),
  journey_id: Type.String({ minLength: 1 }),
  correlation_id: Type.String({ minLength: 1, description: 'The turn (or timer) that moved the journey' }),
};

export const JourneyActivatedV1 = envelopeSchema(
  'journey.activated',
  Type.Object(
    {
      ...common,
      step: Type.Optional(Type.String({ minLength: 1, description: 'The step the journey is at; absent for a journey without steps' })),
      resumed: Type.Boolean({
        description: 'true when a customer came back to an abandoned journey and it continues from its recorded step',
      }),
    },
    { additionalProperties: false },
  ),
);

export const JourneyTransitionedV1 = envelopeSchema(
  'journey.transitioned',
  Type.Object(
    {
      ...common,
      from: Type.String({ minLength: 1 }),
      to: Type.String({ minLength: 1 }),
      cause: Type.Union(
        [Type.Literal('condition'), Type.Literal('branch'), Type.Literal('tool'), Type.Literal('backtrack'), Type.Literal('failure')],
        {
          description:
            "condition: the transition's condition held; branch: a fork chose; tool: a tool step finished; backtrack: an answer changed an earlier decision; failure: a tool step failed and the journey's on_failure names this step",
        },
      ),
      condition: Type.Optional(Type.String({ minLength: 1 })),
    },
    { additionalProperties: false },
  ),
);

export const JourneyCompletedV1 = envelopeSchema(
  'journey.completed',
  Type.Object(
    { ...common, step: Type.Optional(Type.String({ minLength: 1, description: 'The final step reached' })) },
    { additionalProperties: false },
  ),
);

export const JourneyAbandonedV1 = envelopeSchema(
  'journey.abandoned',
  Type.Object(
    {
      ...common,
      step: Type.Optional(Type.String({ minLength: 1, description: 'The step where the customer stopped' })),
      reason: Type.Union([Type.Literal('inactive'), Type.Literal('expired')], {
        description:
          'inactive: no activity for abandon_after_secs (the customer may still resume); expired: abandoned for expire_after_secs',
      }),
    },
    { additionalProperties: false },
  ),
);

export const JourneyFailedV1 = envelopeSchema(
  'journey.failed',
  Type.Object(
    {
      ...common,
      step: Type.Optional(Type.String({ minLength: 1, description: 'The tool step that failed' })),
      reason: Type.Object(
        {
          code: Type.String({
            minLength: 1,
            description:
              "The tool executor's stable code (e.g. TOOLS.TIMEOUT, TOOLS.UNAVAILABLE), or TOOLS.UNRUNNABLE when the agent has no runnable tool of that name",
          }),
          message: Type.String({ minLength: 1, description: "A customer-safe sentence; never the tool's own error text" }),
        },
        { additionalProperties: false },
      ),
      outcome: Type.Union([Type.Literal('end'), Type.Literal('handoff')], {
        description: "The journey's on_failure: end (the default) or handoff (the session then goes to a human, mode manual)",
      }),
    },
    { additionalProperties: false },
  ),
);

export type JourneyActivatedV1 = Static<typeof JourneyActivatedV1>;
export type JourneyTransitionedV1 = Static<typeof JourneyTransitionedV1>;
export type JourneyCompletedV1 = Static<typeof JourneyCompletedV1>;
export type JourneyAbandonedV1 = Static<typeof JourneyAbandonedV1>;
export type JourneyFailedV1 = Static<typeof JourneyFailedV1>;
export type JourneyIntegrationEventV1 =
  JourneyActivatedV1 | JourneyTransitionedV1 | JourneyCompletedV1 | JourneyAbandonedV1 | JourneyFailedV1;

const published: Record<JourneyEventName, { type: JourneyIntegrationEventV1['type']; name: string; fields: readonly string[] }> = {
  journey_activated: { type: 'journey.activated', name: 'activated', fields: ['step', 'resumed'] },
  journey_transitioned: { type: 'journey.transitioned', name: 'transitioned', fields: ['from', 'to', 'cause', 'condition'] },
  journey_completed: { type: 'journey.completed', name: 'completed', fields: ['step'] },
  journey_abandoned: { type: 'journey.abandoned', name: 'abandoned', fields: ['step', 'reason'] },
  journey_failed: { type: 'journey.failed', name: 'failed', fields: ['step', 'reason', 'outcome'] },
};

/** Maps a logged `journey_transition` to its published event (only the documented fields: never the context). */
export function toJourneyIntegrationEvent(event: LoggedSessionEvent): { subject: string; payload: JourneyIntegrationEventV1 } | undefined {
  if (!event.streamId.startsWith('session-') || event.type !== JOURNEY_TRANSITION_EVENT_TYPE) return undefined;
  const logged = event.data as LoggedJourneyTransition;
  const mapping = published[logged.data.event];
  if (!mapping) return undefined;
  const data: Record<string, unknown> = {
    session_id: logged.session_id,
    journey_id: logged.data.journey_id,
    correlation_id: logged.correlation_id,
  };
  for (const field of mapping.fields) if (logged.data[field] !== undefined) data[field] = logged.data[field];
  const payload = {
    ...envelopeOf(event),
    type: mapping.type,
    data,
  } as JourneyIntegrationEventV1;
  return { subject: subjectFor('journey', logged.session_id, mapping.name), payload };
}

const envelope = { version: 1 as const, stream: 'session-s_8f2c', occurred_at: '2026-11-22T10:31:00.000Z' };
const ids = { session_id: 's_8f2c', journey_id: 'returns', correlation_id: 'c_41' };

const contract = <S extends TSchema>(type: string, description: string, schema: S, example: Static<S>): IntegrationEventContract =>
  ({
    type,
    description,
    subjectPattern: `tenet.v1.journey.{session_id}.${type.split('.')[1] ?? ''}`,
    schema,
    example,
  }) as IntegrationEventContract;

export const journeyEventContracts: IntegrationEventContract[] = [
  contract(
    'journey.activated',
    'A journey started (its conditions matched) or resumed in a session; `step` is where it is.',
    JourneyActivatedV1,
    {
      ...envelope,
      id: 'a1f0c3e2-0d7b-4c8e-9f61-2b7d3e4a5c01',
      type: 'journey.activated',
      offset: 12,
      position: 2210,
      data: { ...ids, step: 'ask_order', resumed: false },
    },
  ),
  contract(
    'journey.transitioned',
    'A journey moved from one step to another, and why (condition, fork branch, tool step, or backtrack).',
    JourneyTransitionedV1,
    {
      ...envelope,
      id: 'b2e1d4f3-1e8c-4d9f-8a72-3c8e4f5b6d12',
      type: 'journey.transitioned',
      offset: 16,
      position: 2231,
      data: { ...ids, from: 'ask_order', to: 'ask_reason', cause: 'condition', condition: 'the customer gave their order number' },
    },
  ),
  contract('journey.completed', 'A journey reached a final step (or a journey without steps was completed).', JourneyCompletedV1, {
    ...envelope,
    id: 'c3f2e5a4-2f9d-4eaf-9b83-4d9f5a6c7e23',
    type: 'journey.completed',
    offset: 30,
    position: 2290,
    data: { ...ids, step: 'confirm' },
  }),
  contract(
    'journey.abandoned',
    'A journey saw no activity for its abandon timeout (inactive), or stayed abandoned until it expired (expired).',
    JourneyAbandonedV1,
    {
      ...envelope,
      id: 'd4a3f6b5-3a0e-4fb0-8c94-5eaf6b7d8f34',
      type: 'journey.abandoned',
      offset: 21,
      position: 2402,
      data: { ...ids, step: 'ask_reason', reason: 'inactive' },
    },
  ),
  contract(
    'journey.failed',
    "A journey's tool step failed (error, timeout, or no runnable tool) and its on_failure ended it (end, the default) or handed the session to a human (handoff); the customer was told.",
    JourneyFailedV1,
    {
      ...envelope,
      id: 'e5b4a7c6-4b1f-4ac1-9da5-6fb07c8e9a45',
      type: 'journey.failed',
      offset: 19,
      position: 2350,
      data: { ...ids, step: 'refund', reason: { code: 'TOOLS.TIMEOUT', message: 'issue_refund could not be completed' }, outcome: 'end' },
    },
  ),
];
