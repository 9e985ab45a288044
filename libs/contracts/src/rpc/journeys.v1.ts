import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';

/**
 * The per-turn journey request (core NATS request/reply, queue group `journey-engine`, outside `tenet.v1.>` like
 * the matcher's). The engine is stateless: the gateway sends what the session's `journey_transition` events say
 * (each journey's recorded events) with this turn's inputs, and gets back the events to append to the session's
 * stream, the step the matcher should scope guidelines to, and timers to arm. So a killed engine loses nothing:
 * the next request carries the recorded step. See docs/adr/0011-journey-engine.md.
 */
export const JOURNEYS_ADVANCE_SUBJECT = 'tenet.rpc.v1.journeys.advance';

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const Text = Type.String({ minLength: 1 });

/** The journey definition (docs/data-model.md#journeys) as the gateway stores it (the domain's `JourneyDefinition`). */
export const JourneyDefinitionV1 = Type.Object(
  {
    id: Id,
    title: Text,
    description: Text,
    steps: Type.Array(
      Type.Object(
        {
          id: Id,
          name: Text,
          kind: Type.Union([Type.Literal('chat'), Type.Literal('tool'), Type.Literal('fork'), Type.Literal('final')]),
          instruction: Type.Optional(Text),
          tool: Type.Optional(Text),
          required_context: Type.Array(Type.String()),
          guidelines: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    transitions: Type.Array(
      Type.Object({ from: Id, to: Id, condition: Type.Optional(Text), priority: Type.Integer() }, { additionalProperties: false }),
    ),
    initial_step: Type.Optional(Id),
    /** What a failed tool step leads to (absent: end). */
    on_failure: Type.Optional(
      Type.Union([
        Type.Object({ action: Type.Literal('end') }, { additionalProperties: false }),
        Type.Object({ action: Type.Literal('handoff') }, { additionalProperties: false }),
        Type.Object({ action: Type.Literal('step'), step: Id }, { additionalProperties: false }),
      ]),
    ),
    timeouts: Type.Object(
      { abandon_after_secs: Type.Integer({ minimum: 1 }), expire_after_secs: Type.Integer({ minimum: 1 }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** One journey event as recorded in a `journey_transition` (the domain's JourneyEvent; `at` in epoch ms). */
export const RecordedJourneyEventV1 = Type.Object(
  {
    type: Type.Union([
      Type.Literal('journey_activated'),
      Type.Literal('journey_transitioned'),
      Type.Literal('journey_completed'),
      Type.Literal('journey_abandoned'),
      Type.Literal('journey_failed'),
    ]),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);

export const AdvanceJourneysRequestV1 = Type.Object(
  {
    session_id: Id,
    correlation_id: Text,
    /** Epoch milliseconds: the engine never reads a clock for decisions. */
    now: Type.Integer({ minimum: 0 }),
    /** The agent's journeys that are recorded for this session or whose conditions matched (definitions current as of this turn). */
    journeys: Type.Array(JourneyDefinitionV1),
    /** Each journey's recorded events for this session, oldest first (from the session's `journey_transition` events). */
    recorded: Type.Record(Type.String(), Type.Array(RecordedJourneyEventV1)),
    /** Journeys whose condition guidelines the matcher matched this turn (activation). */
    matched: Type.Array(Id),
    /** Transition conditions the matcher evaluated this turn, by text. */
    evaluated: Type.Record(Type.String(), Type.Boolean()),
    /** The session's known context values (customer variables). */
    context: Type.Record(Type.String(), Type.Unknown()),
    /** A tool step's result, when the turn ran one. */
    tool_result: Type.Optional(Type.Object({ journey_id: Id, step_id: Id, result: Type.Unknown() }, { additionalProperties: false })),
    /** A tool step whose tool failed, timed out or could not run: the journey's `on_failure` decides what follows. */
    tool_failure: Type.Optional(
      Type.Object(
        {
          journey_id: Id,
          step_id: Id,
          code: Type.String({ minLength: 1, maxLength: 100 }),
          message: Type.String({ minLength: 1, maxLength: 500, description: "Customer-safe: never the tool's own error text" }),
        },
        { additionalProperties: false },
      ),
    ),
    /** A customer's answer changed a past decision: go back to that step. */
    backtrack: Type.Optional(Type.Object({ journey_id: Id, to: Id }, { additionalProperties: false })),
    /** The customer's latest activity (epoch ms), for the abandon/expire timers. */
    last_activity_at: Type.Optional(Type.Integer({ minimum: 0 })),
    /** A timer fired instead of a turn. */
    timer: Type.Optional(
      Type.Object({ journey_id: Id, kind: Type.Union([Type.Literal('abandon'), Type.Literal('expire')]) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type AdvanceJourneysRequestV1 = Static<typeof AdvanceJourneysRequestV1>;

const Effect = Type.Object(
  {
    kind: Type.Union([Type.Literal('Schedule'), Type.Literal('Cancel')]),
    timer: Type.Union([Type.Literal('abandon'), Type.Literal('expire')]),
    session_id: Id,
    journey_id: Id,
    job_id: Text,
    delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const AdvanceJourneysReplyV1 = Type.Object(
  {
    /** To append to the session's stream as `journey_transition` events, in order. */
    events: Type.Array(Type.Object({ journey_id: Id, event: RecordedJourneyEventV1 }, { additionalProperties: false })),
    /** Each journey's state after the events (Parlant's `journey_states` on `ready`). */
    states: Type.Array(
      Type.Object(
        {
          journey_id: Id,
          status: Type.Union([
            Type.Literal('Active'),
            Type.Literal('Abandoned'),
            Type.Literal('Completed'),
            Type.Literal('Expired'),
            Type.Literal('Failed'),
          ]),
          step_id: Type.Optional(Id),
          step_history: Type.Array(Type.String()),
          /** Status Failed: when (ISO 8601) and why. */
          failed_at: Type.Optional(Type.String()),
          failure: Type.Optional(
            Type.Object(
              { code: Type.String(), message: Type.String(), step: Type.Optional(Type.String()) },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    /** The journey (and step) the matcher scopes guidelines to next (matching step 2): the highest-priority active one. */
    active_journey: Type.Optional(Type.Object({ journey_id: Id, step_id: Type.Optional(Id) }, { additionalProperties: false })),
    /** Conditions the matcher should evaluate next turn (outgoing transitions of the active steps). */
    pending_conditions: Type.Array(Type.String()),
    /** A tool step the turn should run through the tool executor, then report as `tool_result`. */
    tool_step: Type.Optional(Type.Object({ journey_id: Id, step_id: Id, tool: Text }, { additionalProperties: false })),
    effects: Type.Array(Effect),
    /** Requests the engine refused (e.g. a branch to an unknown step), by journey; the others still applied. */
    rejected: Type.Array(Type.Object({ journey_id: Id, code: Text, message: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type AdvanceJourneysReplyV1 = Static<typeof AdvanceJourneysReplyV1>;
