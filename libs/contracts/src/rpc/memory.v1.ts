import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { WORKSPACE_ID_PATTERN } from '../workspaces/workspace-events.v2.js';
import { BudgetScopeV1, CallUsageV1 } from './matcher.v1.js';

/**
 * Per-turn recall, answered by the memory store (queue group `memory-store`): the customer's current facts and
 * the knowledge chunks most relevant to the message, within a token budget.
 */
export const MEMORY_RECALL_SUBJECT = 'tenet.rpc.v1.memory.recall';
export const MEMORY_RECALL_QUEUE_GROUP = 'memory-store';

export const RecallRequestV1 = Type.Object(
  {
    agent_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    /**
     * The agent's workspace (ADR 0018): recall reads only that workspace's knowledge sources — an agent tag names an
     * agent within one workspace, and an untagged source serves only its own workspace's agents. Omitted: every
     * workspace's sources the agent tag may read (a caller without workspaces).
     */
    workspace_id: Type.Optional(Type.String({ pattern: WORKSPACE_ID_PATTERN.source })),
    customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })),
    session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    message: Type.String({ minLength: 1, maxLength: 20_000 }),
    max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    /** Recall only from these knowledge sources (the agent's `retrieval.sources`); omitted: every source the agent may read. */
    source_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100 })),
    /** Budget for facts + chunks together, estimated at 4 characters per token. */
    max_tokens: Type.Optional(Type.Integer({ minimum: 50, maximum: 32_000 })),
    /**
     * The turn's token budgets: the query's embedding is charged to them like the matcher's calls. A spent budget
     * (or no budget store) leaves the knowledge search out — facts only — rather than make the call uncounted.
     */
    budget: Type.Optional(
      Type.Object({ scopes: Type.Array(BudgetScopeV1, { minItems: 1, maxItems: 8 }) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type RecallRequestV1 = Static<typeof RecallRequestV1>;

export const RecallResponseV1 = Type.Object(
  {
    facts: Type.Array(
      Type.Object(
        {
          fact_id: Type.String(),
          subject: Type.String(),
          predicate: Type.String(),
          object: Type.String(),
          confidence: Type.Number(),
          recorded_at: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    sources: Type.Array(
      Type.Object(
        {
          source_id: Type.String(),
          chunk_id: Type.String(),
          title: Type.String(),
          url: Type.Union([Type.String(), Type.Null()]),
          heading: Type.String(),
          /** The headings the chunk sits under, outermost first, joined with " › ". */
          section_path: Type.Optional(Type.String()),
          /** The chunk's position in its source, from 0. */
          chunk_index: Type.Optional(Type.Integer({ minimum: 0 })),
          score: Type.Number(),
          chunk_text: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    estimated_tokens: Type.Integer({ minimum: 0 }),
    /** True when facts or chunks were left out to stay within `max_tokens`. */
    truncated: Type.Boolean(),
    /** The billed calls recall made (the query's embedding), for the caller to meter like the matcher's `calls`. */
    calls: Type.Optional(Type.Array(CallUsageV1)),
  },
  { additionalProperties: false },
);
export type RecallResponseV1 = Static<typeof RecallResponseV1>;
