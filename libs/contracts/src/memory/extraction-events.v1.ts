import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/**
 * What a turn extracted from a customer message (docs/data-model.md#context-extraction), appended by the
 * session gateway to the `context-extraction:<customerId>` stream of its log and published by its relay. The
 * memory store consumes `facts_extracted` durably and records the facts (idempotently, by `factId`), so a
 * memory store that is down when the customer speaks catches up when it is back.
 */
export const CONTEXT_EXTRACTION_STREAM_PREFIX = 'context-extraction:';
export const contextExtractionStream = (customerId: string): string => `${CONTEXT_EXTRACTION_STREAM_PREFIX}${customerId}`;

export const VariableUpdateV1 = envelopeSchema(
  'memory.variable_update',
  Type.Object(
    {
      customerId: Type.String({ minLength: 1 }),
      sessionId: Type.String({ minLength: 1 }),
      variableId: Type.String({ minLength: 1 }),
      name: Type.String({ minLength: 1 }),
      value: Type.Unknown(),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      sourceMessageId: Type.String({ minLength: 1 }),
      extractedAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
);
export type VariableUpdateV1 = Static<typeof VariableUpdateV1>;

export const FactsExtractedV1 = envelopeSchema(
  'memory.facts_extracted',
  Type.Object(
    {
      customerId: Type.String({ minLength: 1 }),
      sessionId: Type.String({ minLength: 1 }),
      /** The session's workspace (ADR 0018): the memory store stamps it on the facts it records from this event. */
      workspaceId: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,47}$' })),
      sourceMessageId: Type.String({ minLength: 1 }),
      extractedAt: Type.String({ format: 'date-time' }),
      facts: Type.Array(
        Type.Object(
          {
            factId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
            subject: Type.String({ minLength: 1, maxLength: 500 }),
            predicate: Type.String({ minLength: 1, maxLength: 500 }),
            object: Type.String({ minLength: 1, maxLength: 500 }),
            confidence: Type.Number({ minimum: 0, maximum: 1 }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    },
    { additionalProperties: false },
  ),
);
export type FactsExtractedV1 = Static<typeof FactsExtractedV1>;

const EVENT_NAMES: Record<string, 'variable_update' | 'facts_extracted'> = {
  VariableUpdated: 'variable_update',
  FactsExtracted: 'facts_extracted',
};

export function toExtractionIntegrationEvent(event: LoggedEvent): { subject: string; payload: unknown } | undefined {
  const name = EVENT_NAMES[event.type];
  if (!event.streamId.startsWith(CONTEXT_EXTRACTION_STREAM_PREFIX) || !name) return undefined;
  const customerId = event.streamId.slice(CONTEXT_EXTRACTION_STREAM_PREFIX.length);
  return {
    subject: subjectFor('memory', customerId, name),
    payload: {
      ...envelopeOf(event),
      type: `memory.${name}`,
      data: event.data,
    },
  };
}

const envelope = {
  id: '5d1c0a7e-2b8f-4c1d-9e3a-7f6b5a4c3d2e',
  version: 1 as const,
  stream: 'context-extraction:cust_42',
  position: 3120,
  occurred_at: '2026-11-23T10:00:01.000Z',
};

export const extractionEventContracts: IntegrationEventContract[] = [
  {
    type: 'memory.variable_update',
    description:
      "A context variable's value was extracted from a customer message, checked against its data_type and validation, and stored for the customer.",
    subjectPattern: 'tenet.v1.memory.{customer_id}.variable_update',
    schema: VariableUpdateV1,
    example: {
      ...envelope,
      type: 'memory.variable_update',
      offset: 0,
      data: {
        customerId: 'cust_42',
        sessionId: 's_8f2c',
        variableId: 'cv_order',
        name: 'order_number',
        value: '55555',
        confidence: 0.9,
        sourceMessageId: 'ev_1a2b',
        extractedAt: '2026-11-23T10:00:01.000Z',
      },
    },
  },
  {
    type: 'memory.facts_extracted',
    description:
      'Facts about the customer were extracted from a message; the memory store records them (a contradicting fact supersedes the current one).',
    subjectPattern: 'tenet.v1.memory.{customer_id}.facts_extracted',
    schema: FactsExtractedV1,
    example: {
      ...envelope,
      type: 'memory.facts_extracted',
      offset: 1,
      data: {
        customerId: 'cust_42',
        sessionId: 's_8f2c',
        sourceMessageId: 'ev_1a2b',
        extractedAt: '2026-11-23T10:00:01.000Z',
        facts: [{ factId: 'x-ev_1a2b-0', subject: 'customer', predicate: 'name', object: 'Alice', confidence: 0.9 }],
      },
    },
  },
];
