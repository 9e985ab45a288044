import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/** One LLM call's token record (docs/data-model.md#budgets), with its cost estimated from the price table. */
export const LlmUsageRecordedV1 = envelopeSchema(
  'metering.llm_usage_recorded',
  Type.Object(
    {
      agent_id: Type.String({ minLength: 1 }),
      session_id: Type.Optional(Type.String({ minLength: 1 })),
      purpose: Type.String({ minLength: 1, description: 'What the call was for, e.g. match_guidelines, compose_reply' }),
      provider: Type.String({ minLength: 1 }),
      model: Type.String({ minLength: 1 }),
      input_tokens: Type.Integer({ minimum: 0 }),
      output_tokens: Type.Integer({ minimum: 0 }),
      cost_estimate_usd: Type.Number({ minimum: 0 }),
      latency_ms: Type.Number({ minimum: 0 }),
      fallback_from: Type.Optional(
        Type.String({ minLength: 1, description: "provider/model of the primary that failed when the agent's fallback provider answered" }),
      ),
    },
    { additionalProperties: false },
  ),
);
export type LlmUsageRecordedV1 = Static<typeof LlmUsageRecordedV1>;
export type LlmUsageData = LlmUsageRecordedV1['data'];

/** Usage of an agent's LLM calls is the `usage-<agentId>` stream of the event log. */
export const usageStreamId = (agentId: string): string => `usage-${agentId}`;
export const LLM_USAGE_EVENT_TYPE = 'LlmUsageRecorded';

export function toUsageIntegrationEvent(event: LoggedEvent): { subject: string; payload: LlmUsageRecordedV1 } | undefined {
  if (!event.streamId.startsWith('usage-') || event.type !== LLM_USAGE_EVENT_TYPE) return undefined;
  const data = event.data as LlmUsageData;
  return {
    subject: subjectFor('metering', data.agent_id, 'llm_usage_recorded'),
    payload: {
      ...envelopeOf(event),
      type: 'metering.llm_usage_recorded',
      data,
    },
  };
}

export const meteringEventContracts: IntegrationEventContract[] = [
  {
    type: 'metering.llm_usage_recorded',
    description: 'An LLM call was made for an agent: provider, model, input/output tokens and estimated cost (its token record).',
    subjectPattern: 'tenet.v1.metering.{agent_id}.llm_usage_recorded',
    schema: LlmUsageRecordedV1,
    example: {
      id: '5d0c9f5e-3f0e-4d59-9a51-1f3d2c1b0a99',
      type: 'metering.llm_usage_recorded',
      version: 1,
      stream: 'usage-demo-support',
      offset: 41,
      position: 1044,
      occurred_at: '2026-11-22T10:30:01.250Z',
      data: {
        agent_id: 'demo-support',
        session_id: 's_8f2c',
        purpose: 'match_guidelines',
        provider: 'openai',
        model: 'gpt-4o-mini',
        input_tokens: 812,
        output_tokens: 96,
        cost_estimate_usd: 0.0001794,
        latency_ms: 640,
      },
    } satisfies LlmUsageRecordedV1,
  },
];
