import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/**
 * A customer message was classified into one of the agent's intents (ADR 0031, docs/data-model.md#intents): which one, how sure,
 * and what the turn did with it — `recognized` (its tool or journey ran), `clarify` (the agent asked which one;
 * `intent` is then `CLARIFICATION_NEEDED`) or `unknown` (the agent's fallback). Extracted parameter values are
 * left out: they are the customer's words, and the session's own events carry them to whoever may see them.
 */
export const IntentRecognizedV1 = envelopeSchema(
  'intent.recognized',
  Type.Object(
    {
      agent_id: Type.String({ minLength: 1 }),
      session_id: Type.String({ minLength: 1 }),
      intent: Type.String({ minLength: 1, description: 'The intent name, CLARIFICATION_NEEDED or UNKNOWN' }),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      outcome: Type.Union([Type.Literal('recognized'), Type.Literal('clarify'), Type.Literal('unknown')]),
      alternatives: Type.Array(
        Type.Object(
          { name: Type.String({ minLength: 1 }), confidence: Type.Number({ minimum: 0, maximum: 1 }) },
          { additionalProperties: false },
        ),
      ),
      parameter_names: Type.Array(Type.String({ minLength: 1 }), { description: 'The parameters extracted for the intent (names only)' }),
      leads_to: Type.Union([
        Type.Object({ tool: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        Type.Object({ journey_id: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        Type.Null(),
      ]),
      correlation_id: Type.String({ minLength: 1 }),
    },
    { additionalProperties: false },
  ),
);
export type IntentRecognizedV1 = Static<typeof IntentRecognizedV1>;
export type IntentRecognizedData = IntentRecognizedV1['data'];

/** Each agent's classifications are the `recognition-<agentId>` stream of the event log. */
export const intentRecognitionStreamId = (agentId: string): string => `recognition-${agentId}`;
export const INTENT_RECOGNIZED_EVENT_TYPE = 'IntentRecognized';

export function toIntentIntegrationEvent(event: LoggedEvent): { subject: string; payload: IntentRecognizedV1 } | undefined {
  if (!event.streamId.startsWith('recognition-') || event.type !== INTENT_RECOGNIZED_EVENT_TYPE) return undefined;
  const data = event.data as IntentRecognizedData;
  return {
    subject: subjectFor('intent', data.agent_id, 'recognized'),
    payload: {
      ...envelopeOf(event),
      type: 'intent.recognized',
      data,
    },
  };
}

export const intentEventContracts: IntegrationEventContract[] = [
  {
    type: 'intent.recognized',
    description:
      "A customer message was classified into one of the agent's intents (or CLARIFICATION_NEEDED / UNKNOWN), with its confidence and what the turn did.",
    subjectPattern: 'tenet.v1.intent.{agent_id}.recognized',
    schema: IntentRecognizedV1,
    example: {
      id: '0b7f6a3e-2f5c-4d1e-8a9b-3c2d1e0f9a87',
      type: 'intent.recognized',
      version: 1,
      stream: 'recognition-demo-support',
      offset: 12,
      position: 2210,
      occurred_at: '2026-11-28T01:30:00.000Z',
      data: {
        agent_id: 'demo-support',
        session_id: 's_8f2c',
        intent: 'track_order',
        confidence: 0.86,
        outcome: 'recognized',
        alternatives: [{ name: 'cancel_order', confidence: 0.2 }],
        parameter_names: ['order_id'],
        leads_to: { tool: 'lookup_order' },
        correlation_id: 'c_41d2',
      },
    } satisfies IntentRecognizedV1,
  },
];
