import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { BudgetScopeV1, CallUsageV1 } from './matcher.v1.js';

/**
 * Context extraction (docs/data-model.md#context-extraction, ADR 0017): after a customer message, every context variable with an
 * `extraction_prompt` and the customer's facts are extracted by ONE model call, whatever the number of
 * variables. Answered by the guideline matcher's queue group (it holds the LLM providers); the gateway validates
 * the values against each variable's data_type and rules, stores them and publishes them.
 */
export const MATCHER_EXTRACT_SUBJECT = 'tenet.rpc.v1.matcher.extract_context';

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const Provider = Type.Union([Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('offline')]);

export const ExtractionVariableV1 = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 50 }),
    extraction_prompt: Type.String({ minLength: 1, maxLength: 1000 }),
    description: Type.Optional(Type.String()),
    data_type: Type.Optional(
      Type.Union([
        Type.Literal('String'),
        Type.Literal('Number'),
        Type.Literal('Boolean'),
        Type.Literal('Date'),
        Type.Literal('Array'),
        Type.Literal('Object'),
      ]),
    ),
    allowed_values: Type.Optional(Type.Array(Type.Unknown())),
    pattern: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type ExtractionVariableV1 = Static<typeof ExtractionVariableV1>;

export const ExtractContextRequestV1 = Type.Object(
  {
    session_id: Id,
    agent: Type.Object({ id: Id, name: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    /** The customer message to extract from (earlier turns are context only). */
    message: Type.String({ minLength: 1, maxLength: 20_000 }),
    history: Type.Array(
      Type.Object(
        { role: Type.Union([Type.Literal('customer'), Type.Literal('agent')]), content: Type.String() },
        { additionalProperties: false },
      ),
      { maxItems: 20 },
    ),
    variables: Type.Array(ExtractionVariableV1, { maxItems: 200 }),
    /** Also extract facts (subject · predicate · object) about the customer. */
    facts: Type.Boolean(),
    llm: Type.Optional(
      Type.Object(
        {
          provider: Type.Optional(Provider),
          model: Type.Optional(Type.String({ minLength: 1 })),
          fallback: Type.Optional(
            Type.Object({ provider: Provider, model: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    /** The token budgets the extraction call is charged to (as for match and compose): refused once one is spent. */
    budget: Type.Optional(
      Type.Object({ scopes: Type.Array(BudgetScopeV1, { minItems: 1, maxItems: 8 }) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type ExtractContextRequestV1 = Static<typeof ExtractContextRequestV1>;

export const ExtractContextReplyV1 = Type.Object({
  /** Values found in the message for the requested variables (names from the request only), not yet validated. */
  values: Type.Array(Type.Object({ name: Type.String(), value: Type.Unknown(), confidence: Type.Number({ minimum: 0, maximum: 1 }) })),
  facts: Type.Array(
    Type.Object({
      subject: Type.String(),
      predicate: Type.String(),
      object: Type.String(),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
    }),
  ),
  /** The one call's usage (absent when nothing was asked for and no call was made). */
  usage: Type.Optional(CallUsageV1),
  /** Every billed call (a repair after an answer out of schema, a failed primary), when more than `usage`. */
  calls: Type.Optional(Type.Array(CallUsageV1)),
  served_by: Type.String(),
});
export type ExtractContextReplyV1 = Static<typeof ExtractContextReplyV1>;
