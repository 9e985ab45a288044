import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';

/**
 * Request/reply contracts of the guideline matcher (core NATS, queue group `guideline-matcher`, so N replicas
 * share the work). Subjects live outside `tenet.v1.>` on purpose: requests are not integration events and must
 * not be captured by the durable stream. The gateway owns the session; the matcher is stateless and gets
 * everything a step needs in the request.
 */
export const MATCHER_MATCH_SUBJECT = 'tenet.rpc.v1.matcher.match_guidelines';
export const MATCHER_COMPOSE_SUBJECT = 'tenet.rpc.v1.matcher.compose_reply';

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

const Turn = Type.Object(
  { role: Type.Union([Type.Literal('customer'), Type.Literal('agent')]), content: Type.String() },
  { additionalProperties: false },
);

/**
 * The agent as the model sees it. `system_prompt` reaches both calls; `temperature` and `max_tokens` are the
 * agent's reply settings and apply to composing (matching samples at `settings.temperatures`).
 */
const AgentRef = Type.Object(
  {
    id: Id,
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    system_prompt: Type.Optional(Type.String({ minLength: 1 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    /** The agent's soul (docs/data-model.md#soul): document, tone, restrictions, forbidden topics; sent with the instructions of every call. */
    soul: Type.Optional(
      Type.Object(
        {
          document: Type.Optional(Type.String({ minLength: 1 })),
          tone: Type.Optional(Type.String({ minLength: 1 })),
          restrictions: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
          forbidden_topics: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The guideline fields the matcher needs (docs/data-model.md#guidelines), with Parlant's criticality and continuity. */
const Guideline = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    condition: Type.String({ minLength: 1 }),
    action: Type.Optional(Type.String()),
    priority: Type.Integer(),
    enabled: Type.Boolean(),
    tools: Type.Array(Type.String()),
    required_context: Type.Array(Type.String()),
    criticality: Type.Optional(Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])),
    continuous: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Type.String())),
    journey_id: Type.Optional(Type.String()),
    journey_step: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const Endpoint = Type.Object(
  { type: Type.Union([Type.Literal('guideline'), Type.Literal('tag')]), id: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

/** A relationship between guidelines or tags (Parlant's relationships), resolved by the matcher each turn. */
const Relationship = Type.Object(
  { id: Type.String({ minLength: 1 }), kind: Type.String({ minLength: 1 }), source: Endpoint, target: Endpoint },
  { additionalProperties: false },
);

const Term = Type.Object(
  { name: Type.String({ minLength: 1 }), description: Type.String(), synonyms: Type.Array(Type.String()) },
  { additionalProperties: false },
);

/** An agent's tool definition (the parts matching needs; docs/data-model.md#tools): arguments are extracted and checked against `parameters`. */
const Capability = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    title: Type.String({ minLength: 1 }),
    description: Type.String(),
    signals: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

const Tool = Type.Object(
  { name: Type.String({ minLength: 1 }), description: Type.String(), parameters: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);

/**
 * What a tool called in this turn returned (the gateway runs tools through the tool executor between matcher
 * calls): re-matching and composing see it, so guidelines react to it and the reply is based on it.
 */
const ToolResult = Type.Object(
  {
    tool_id: Type.String({ minLength: 1 }),
    arguments: Type.Record(Type.String(), Type.Unknown()),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    data: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** Which model answers for the agent, with an optional fallback used when it fails (docs/data-model.md#fallback). */
/** The agent's provider; without `provider`, the matcher's configured one (with the agent's `fallback`, if any). */
const ProviderChoice = Type.Object(
  {
    provider: Type.Optional(Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('offline')])),
    model: Type.Optional(Type.String({ minLength: 1 })),
    fallback: Type.Optional(
      Type.Object(
        {
          provider: Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('offline')]),
          model: Type.Optional(Type.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The agent's matching settings; every field has a default, so older gateways may omit them. */
const MatchingSettings = Type.Object(
  {
    threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_n: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    prefilter_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    max_batch_tokens: Type.Optional(Type.Integer({ minimum: 500, maximum: 200_000 })),
    max_batches: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
    temperatures: Type.Optional(Type.Array(Type.Number({ minimum: 0, maximum: 2 }), { minItems: 1, maxItems: 5 })),
  },
  { additionalProperties: false },
);

/**
 * The token budgets (docs/data-model.md#budgets) every LLM call of this step is charged to. The matcher reserves each
 * call's estimate on all of them in the shared budget store before making it, and refuses the call with
 * `BUDGET.EXCEEDED` (details: the scope) once one is spent. Absent: no budget applies.
 */
export const BudgetScopeV1 = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_:-]+$' }),
    owner: Type.Object(
      { kind: Type.Union([Type.Literal('agent'), Type.Literal('session'), Type.Literal('workspace')]), id: Id },
      { additionalProperties: false },
    ),
    period: Type.Union([Type.Literal('session'), Type.Literal('day'), Type.Literal('month')]),
    period_id: Type.String({ minLength: 1, maxLength: 20 }),
    unit: Type.Union([Type.Literal('tokens'), Type.Literal('usd')], { description: 'usd limits are counted in micro-dollars' }),
    limit: Type.Integer({ minimum: 1 }),
    resets_at: Type.Optional(Type.String()),
    /** The reservation holding room for the whole turn the call belongs to: its own calls are not counted against it. */
    held_by: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type BudgetScopeV1 = Static<typeof BudgetScopeV1>;

const Budget = Type.Object({ scopes: Type.Array(BudgetScopeV1, { minItems: 1, maxItems: 8 }) }, { additionalProperties: false });

/** Tokens of one LLM call, returned to the gateway, which records it (a token record, docs/data-model.md#budgets) in its event log. */
export const CallUsageV1 = Type.Object(
  {
    purpose: Type.String({ minLength: 1 }),
    provider: Type.String({ minLength: 1 }),
    model: Type.String({ minLength: 1 }),
    input_tokens: Type.Integer({ minimum: 0 }),
    output_tokens: Type.Integer({ minimum: 0 }),
    latency_ms: Type.Number({ minimum: 0 }),
    /** `provider/model` of the primary that failed when a fallback answered. */
    fallback_from: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type CallUsageV1 = Static<typeof CallUsageV1>;

/** An intent the matching call classifies the message into (docs/data-model.md#intents): what it is called, means and extracts. */
export const IntentToMatchV1 = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    description: Type.String(),
    examples: Type.Array(Type.String()),
    keywords: Type.Array(Type.String()),
    /** JSON Schema (type object) of the parameters to extract; absent when none. */
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
export type IntentToMatchV1 = Static<typeof IntentToMatchV1>;

/** The intent classification: the best intent (`UNKNOWN` when none fits), its confidence and the runners-up. */
export const IntentClassificationV1 = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    extracted_params: Type.Record(Type.String(), Type.Unknown()),
    alternatives: Type.Array(
      Type.Object(
        { name: Type.String({ minLength: 1 }), confidence: Type.Number({ minimum: 0, maximum: 1 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type IntentClassificationV1 = Static<typeof IntentClassificationV1>;

export const MatchGuidelinesRequestV1 = Type.Object(
  {
    session_id: Id,
    agent: AgentRef,
    message: Type.String(),
    history: Type.Array(Turn),
    guidelines: Type.Array(Guideline),
    /** Values of the session's context variables (matching step 3: required_context; docs/data-model.md#matching). */
    context: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    relationships: Type.Optional(Type.Array(Relationship)),
    /** Guidelines the agent's earlier replies in this session applied (Parlant's applied-guideline tracking). */
    previously_applied: Type.Optional(Type.Array(Type.String())),
    terms: Type.Optional(Type.Array(Term)),
    tools: Type.Optional(Type.Array(Tool)),
    settings: Type.Optional(MatchingSettings),
    llm: Type.Optional(ProviderChoice),
    /** The session's journey position (matching step 2); absent: no journey is active. */
    active_journey: Type.Optional(
      Type.Object({ journey_id: Type.String(), step_id: Type.Optional(Type.String()) }, { additionalProperties: false }),
    ),
    /** Results of the tools already called in this turn (a re-evaluation round after tool calls). */
    tool_results: Type.Optional(Type.Array(ToolResult)),
    budget: Type.Optional(Budget),
    /** The agent's intents: the message is classified into one of them in the same call (ADR 0031). */
    intents: Type.Optional(Type.Array(IntentToMatchV1)),
  },
  { additionalProperties: false },
);
export type MatchGuidelinesRequestV1 = Static<typeof MatchGuidelinesRequestV1>;

const Match = Type.Object({
  guideline_id: Type.String(),
  criticality: Type.Optional(Type.String()),
  tool_parameters: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
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
  /** The matching result (docs/data-model.md#matching) plus the time the evaluation took. */
  result: Type.Object({
    matches: Type.Array(Match),
    top_matches: Type.Array(Match),
    combined_action: Type.Optional(Type.String()),
    tools_to_execute: Type.Array(
      Type.Object({
        tool_name: Type.String(),
        priority: Type.Integer(),
        guideline_id: Type.String(),
        parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      }),
    ),
    evaluation_time_ms: Type.Number({ minimum: 0 }),
    /** Ask the customer to choose (a disambiguation relationship fired). */
    disambiguation: Type.Optional(Type.Object({ source_id: Type.String(), candidates: Type.Array(Type.String()) })),
    /** The message's intent, when the request carried intents. */
    intent: Type.Optional(IntentClassificationV1),
  }),
  /** Absent when no guideline was a candidate and no LLM call was made. */
  usage: Type.Optional(CallUsageV1),
  /** Every call the matching made (embeddings, one per batch, retries), in order. */
  calls: Type.Optional(Type.Array(CallUsageV1)),
  /** How the result came about: prefilter, batches, attempts, relationship resolution, glossary. */
  provenance: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** The matcher replica that answered (`host:pid`), for provenance and load checks. */
  served_by: Type.String(),
});
export type MatchGuidelinesReplyV1 = Static<typeof MatchGuidelinesReplyV1>;

/** A fact about the customer (docs/data-model.md#semantic-memory) the reply may use. */
const ComposeFact = Type.Object(
  {
    subject: Type.String({ minLength: 1 }),
    predicate: Type.String({ minLength: 1 }),
    object: Type.String({ minLength: 1 }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { additionalProperties: false },
);

/** A retrieved knowledge chunk (docs/data-model.md#retrieval): what the reply may answer from, with what it cites. */
const ComposeKnowledge = Type.Object(
  {
    chunk_id: Type.String({ minLength: 1 }),
    source_id: Type.String({ minLength: 1 }),
    title: Type.String(),
    url: Type.Union([Type.String(), Type.Null()]),
    heading: Type.String(),
    section_path: Type.Optional(Type.String()),
    chunk_index: Type.Optional(Type.Integer({ minimum: 0 })),
    score: Type.Number(),
    chunk_text: Type.String(),
  },
  { additionalProperties: false },
);

const CannedResponse = Type.Object(
  { id: Type.String({ minLength: 1 }), value: Type.String({ minLength: 1 }), fields: Type.Array(Type.String()) },
  { additionalProperties: false },
);

/**
 * The stored definitions a turn sends, one item each, by kind: the gateway checks every item against its
 * schema before a request, so one bad stored definition is skipped instead of failing the whole request.
 */
export const TurnDefinitionSchemasV1 = {
  guideline: Guideline,
  relationship: Relationship,
  term: Term,
  capability: Capability,
  tool: Tool,
  canned_response: CannedResponse,
} as const;

export const ComposeReplyRequestV1 = Type.Object(
  {
    session_id: Id,
    agent: AgentRef,
    message: Type.String(),
    history: Type.Array(Turn),
    matched: Type.Array(
      Type.Object({ guideline_id: Type.String({ minLength: 1 }), action: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    ),
    composition_mode: Type.Optional(
      Type.Union([Type.Literal('fluid'), Type.Literal('canned_fluid'), Type.Literal('composited_canned'), Type.Literal('strict_canned')]),
    ),
    canned_responses: Type.Optional(Type.Array(CannedResponse)),
    field_values: Type.Optional(Type.Record(Type.String(), Type.String())),
    terms: Type.Optional(Type.Array(Term)),
    disambiguation: Type.Optional(
      Type.Object(
        { candidates: Type.Array(Type.Object({ guideline_id: Type.String(), condition: Type.String() }, { additionalProperties: false })) },
        { additionalProperties: false },
      ),
    ),
    /** strict_canned's reply when no template fits. */
    no_match_message: Type.Optional(Type.String({ minLength: 1 })),
    llm: Type.Optional(ProviderChoice),
    /** The agent's capabilities (Parlant); the matcher ranks them against the conversation and the reply may offer the most relevant. */
    capabilities: Type.Optional(Type.Array(Capability)),
    /** What the tools called in this turn returned; the reply is based on it. */
    tool_results: Type.Optional(Type.Array(ToolResult)),
    /** The customer's current facts (memory recall plus this turn's extraction), most recent first. */
    facts: Type.Optional(Type.Array(ComposeFact, { maxItems: 200 })),
    /** Knowledge chunks retrieved for the message, best first; the reply answers from them and cites the ones it used. */
    knowledge: Type.Optional(Type.Array(ComposeKnowledge, { maxItems: 50 })),
    budget: Type.Optional(Budget),
    /** The intent is unclear: the reply asks which of these (in customer words) the customer means (ADR 0031). */
    clarification: Type.Optional(
      Type.Object({ alternatives: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }) }, { additionalProperties: false }),
    ),
    /** The message is none of the agent's intents and nothing applies: this is the reply, no model is asked. */
    fallback_reply: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type ComposeReplyRequestV1 = Static<typeof ComposeReplyRequestV1>;

export const ComposeReplyReplyV1 = Type.Object({
  message: Type.String({ minLength: 1 }),
  cited_guideline_ids: Type.Array(Type.String()),
  /** The canned response the reply is (strict/canned modes), or absent for a fluid reply. */
  canned_response_id: Type.Optional(Type.String()),
  /** The capabilities the matcher judged relevant and gave the composer, most relevant first. */
  capability_ids: Type.Optional(Type.Array(Type.String())),
  /** The `knowledge` chunks (`chunk_id`) the reply is based on, as the model cited them (unknown ids dropped). */
  cited_chunk_ids: Type.Optional(Type.Array(Type.String())),
  usage: CallUsageV1,
  /** Every billed call, in order, when there were more than `usage` (an answer out of schema before a repair, a failed primary). */
  calls: Type.Optional(Type.Array(CallUsageV1)),
  served_by: Type.String(),
});
export type ComposeReplyReplyV1 = Static<typeof ComposeReplyReplyV1>;

/**
 * Parlant's evaluations: coherence of proposed guidelines with the existing ones and with each other, judged by
 * the model in ONE call for the whole request (the offline provider judges lexically). The gateway runs it as a
 * background job and records the returned usage.
 */
export const MATCHER_CHECK_COHERENCE_SUBJECT = 'tenet.rpc.v1.matcher.check_coherence';

const CoherenceSubject = Type.Object(
  { id: Type.String({ minLength: 1 }), condition: Type.String({ minLength: 1 }), action: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const CheckCoherenceRequestV1 = Type.Object(
  {
    evaluation_id: Id,
    /** Proposed guidelines in order; each is judged against `existing` and the proposals before it. */
    proposals: Type.Array(
      Type.Object({ condition: Type.String({ minLength: 1 }), action: Type.Optional(Type.String()) }, { additionalProperties: false }),
      { minItems: 1, maxItems: 100 },
    ),
    existing: Type.Array(CoherenceSubject),
    llm: Type.Optional(ProviderChoice),
  },
  { additionalProperties: false },
);
export type CheckCoherenceRequestV1 = Static<typeof CheckCoherenceRequestV1>;

const CoherenceFinding = Type.Object({
  /** An existing guideline's id, or `proposal:<n>` for an earlier proposal of the same request. */
  guideline_id: Type.String(),
  condition_similarity: Type.Number({ minimum: 0, maximum: 1 }),
  reason: Type.String(),
});

export const CheckCoherenceReplyV1 = Type.Object({
  /** One per proposal, in order. */
  results: Type.Array(Type.Object({ contradictions: Type.Array(CoherenceFinding), overlaps: Type.Array(CoherenceFinding) })),
  /** Every billed call (one, plus a repair when the first answer was out of schema). */
  calls: Type.Array(CallUsageV1),
  served_by: Type.String(),
});
export type CheckCoherenceReplyV1 = Static<typeof CheckCoherenceReplyV1>;
