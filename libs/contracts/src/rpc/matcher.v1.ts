import { Type, type Static } from '@sinclair/typebox';

/**
 * Request/reply contracts of the guideline matcher (core NATS, queue group `guideline-matcher`, so N replicas
 * share the work). Subjects live outside `tenet.v1.>` on purpose: requests are not integration events and must
 * not be captured by the durable stream. The gateway owns the session; the matcher is stateless and gets
 * everything a step needs in the request.
 */
export const MATCHER_MATCH_SUBJECT = 'tenet.rpc.v1.matcher.match_guidelines';
export const MATCHER_COMPOSE_SUBJECT = 'tenet.rpc.v1.matcher.compose_reply';

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

const Turn = Type.Object({ role: Type.Union([Type.Literal('customer'), Type.Literal('agent')]), content: Type.String() }, { additionalProperties: false });

const AgentRef = Type.Object(
  { id: Id, name: Type.String({ minLength: 1 }), description: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

/** Seed 000 §2 guideline fields the matcher needs. */
const Guideline = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    condition: Type.String({ minLength: 1 }),
    action: Type.Optional(Type.String()),
    priority: Type.Integer(),
    enabled: Type.Boolean(),
    tools: Type.Array(Type.String()),
    required_context: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

/** Tokens of one LLM call, returned to the gateway, which records it (seed 002 TokenRecord) in its event log. */
export const CallUsageV1 = Type.Object(
  {
    purpose: Type.String({ minLength: 1 }),
    provider: Type.String({ minLength: 1 }),
    model: Type.String({ minLength: 1 }),
    input_tokens: Type.Integer({ minimum: 0 }),
    output_tokens: Type.Integer({ minimum: 0 }),
    latency_ms: Type.Number({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type CallUsageV1 = Static<typeof CallUsageV1>;

export const MatchGuidelinesRequestV1 = Type.Object(
  {
    session_id: Id,
    agent: AgentRef,
    message: Type.String(),
    history: Type.Array(Turn),
    guidelines: Type.Array(Guideline),
    /** Values of the session's context variables (seed 000 §8 step 3: required_context). */
    context: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
export type MatchGuidelinesRequestV1 = Static<typeof MatchGuidelinesRequestV1>;

const Match = Type.Object({
  guideline_id: Type.String(),
  priority: Type.Integer(),
  relevance_score: Type.Number(),
  confidence: Type.Number(),
  condition: Type.String(),
  action: Type.Optional(Type.String()),
  tools: Type.Array(Type.String()),
  matched_context: Type.Record(Type.String(), Type.Unknown()),
  reasoning: Type.String(),
});

export const MatchGuidelinesReplyV1 = Type.Object({
  /** Seed 000 GuidelineMatchResult plus the time the evaluation took. */
  result: Type.Object({
    matches: Type.Array(Match),
    top_matches: Type.Array(Match),
    combined_action: Type.Optional(Type.String()),
    tools_to_execute: Type.Array(Type.Object({ tool_name: Type.String(), priority: Type.Integer(), guideline_id: Type.String() })),
    evaluation_time_ms: Type.Number({ minimum: 0 }),
  }),
  /** Absent when no guideline was a candidate and no LLM call was made. */
  usage: Type.Optional(CallUsageV1),
  /** The matcher replica that answered (`host:pid`), for provenance and load checks. */
  served_by: Type.String(),
});
export type MatchGuidelinesReplyV1 = Static<typeof MatchGuidelinesReplyV1>;

export const ComposeReplyRequestV1 = Type.Object(
  {
    session_id: Id,
    agent: AgentRef,
    message: Type.String(),
    history: Type.Array(Turn),
    matched: Type.Array(Type.Object({ guideline_id: Type.String({ minLength: 1 }), action: Type.String({ minLength: 1 }) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type ComposeReplyRequestV1 = Static<typeof ComposeReplyRequestV1>;

export const ComposeReplyReplyV1 = Type.Object({
  message: Type.String({ minLength: 1 }),
  cited_guideline_ids: Type.Array(Type.String()),
  usage: CallUsageV1,
  served_by: Type.String(),
});
export type ComposeReplyReplyV1 = Static<typeof ComposeReplyReplyV1>;
