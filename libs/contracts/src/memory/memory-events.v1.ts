import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/**
 * A customer's semantic memory (docs/data-model.md#semantic-memory), published from the `customer-memory:<customerId>` stream. Facts are
 * never edited: a contradicting newer fact supersedes the old one, and forgetting is a tombstone. A consumer
 * that keeps facts must drop a fact's content on `fact_forgotten`.
 */
const FactSourceV1 = Type.Object(
  {
    kind: Type.Union([Type.Literal('conversation'), Type.Literal('operator'), Type.Literal('import')]),
    sessionId: Type.Optional(Type.String({ minLength: 1 })),
    messageId: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

export const FactRecordedV1 = envelopeSchema(
  'memory.fact_recorded',
  Type.Object(
    {
      factId: Type.String({ minLength: 1 }),
      customerId: Type.String({ minLength: 1 }),
      subject: Type.String({ minLength: 1, maxLength: 500 }),
      predicate: Type.String({ minLength: 1, maxLength: 500 }),
      object: Type.String({ minLength: 1, maxLength: 500 }),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      source: FactSourceV1,
      recordedAt: Type.Number({ description: 'epoch milliseconds' }),
    },
    { additionalProperties: false },
  ),
);
export type FactRecordedV1 = Static<typeof FactRecordedV1>;

export const FactSupersededV1 = envelopeSchema(
  'memory.fact_superseded',
  Type.Object(
    {
      factId: Type.String({ minLength: 1 }),
      customerId: Type.String({ minLength: 1 }),
      supersededBy: Type.String({ minLength: 1 }),
      at: Type.Number({ description: 'epoch milliseconds' }),
    },
    { additionalProperties: false },
  ),
);
export type FactSupersededV1 = Static<typeof FactSupersededV1>;

export const FactForgottenV1 = envelopeSchema(
  'memory.fact_forgotten',
  Type.Object(
    {
      factId: Type.String({ minLength: 1 }),
      customerId: Type.String({ minLength: 1 }),
      reason: Type.Optional(Type.String()),
      at: Type.Number({ description: 'epoch milliseconds' }),
    },
    { additionalProperties: false },
  ),
);
export type FactForgottenV1 = Static<typeof FactForgottenV1>;

export const CUSTOMER_MEMORY_STREAM_PREFIX = 'customer-memory:';
const EVENT_NAMES: Record<string, 'fact_recorded' | 'fact_superseded' | 'fact_forgotten'> = {
  FactRecorded: 'fact_recorded',
  FactSuperseded: 'fact_superseded',
  FactForgotten: 'fact_forgotten',
};

export function toMemoryIntegrationEvent(event: LoggedEvent): { subject: string; payload: unknown } | undefined {
  const name = EVENT_NAMES[event.type];
  if (!event.streamId.startsWith(CUSTOMER_MEMORY_STREAM_PREFIX) || !name) return undefined;
  const customerId = event.streamId.slice(CUSTOMER_MEMORY_STREAM_PREFIX.length);
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
  id: '0b7f3a9c-6a0e-4f4e-9c1e-2d5e8f1a3b4c',
  version: 1 as const,
  stream: 'customer-memory:cust_42',
  position: 2210,
  occurred_at: '2026-11-23T10:00:00.000Z',
};

export const memoryEventContracts: IntegrationEventContract[] = [
  {
    type: 'memory.fact_recorded',
    description: 'A fact about a customer was recorded (subject · predicate · object, confidence, where it came from).',
    subjectPattern: 'tenet.v1.memory.{customer_id}.fact_recorded',
    schema: FactRecordedV1,
    example: {
      ...envelope,
      type: 'memory.fact_recorded',
      offset: 3,
      data: {
        factId: 'f_lyon',
        customerId: 'cust_42',
        subject: 'customer',
        predicate: 'lives_in',
        object: 'Lyon',
        confidence: 0.9,
        source: { kind: 'conversation', sessionId: 's_8f2c' },
        recordedAt: 1795428000000,
      },
    },
  },
  {
    type: 'memory.fact_superseded',
    description: 'A newer contradicting fact replaced this one as the current value (the old fact stays, for "true at time T").',
    subjectPattern: 'tenet.v1.memory.{customer_id}.fact_superseded',
    schema: FactSupersededV1,
    example: {
      ...envelope,
      type: 'memory.fact_superseded',
      offset: 4,
      data: { factId: 'f_paris', customerId: 'cust_42', supersededBy: 'f_lyon', at: 1795428000000 },
    },
  },
  {
    type: 'memory.fact_forgotten',
    description: 'A fact was forgotten (tombstone): consumers must drop its content; it is absent from every answer, present or past.',
    subjectPattern: 'tenet.v1.memory.{customer_id}.fact_forgotten',
    schema: FactForgottenV1,
    example: {
      ...envelope,
      type: 'memory.fact_forgotten',
      offset: 5,
      data: { factId: 'f_lyon', customerId: 'cust_42', reason: 'customer request', at: 1795428060000 },
    },
  },
];
