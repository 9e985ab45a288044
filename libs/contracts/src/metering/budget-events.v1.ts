import type { Static } from '@sinclair/typebox';
import { Type } from '../schema-builder.js';
import { envelopeSchema, type IntegrationEventContract, envelopeOf, type LoggedEvent } from '../envelope.js';
import { subjectFor } from '../subjects.js';

/** An agent's budget events are its `budget-<agentId>` stream of the event log (the log is the outbox). */
export const budgetStreamId = (agentId: string): string => `budget-${agentId}`;
export const BUDGET_EVENT_TYPES = { warning: 'BudgetWarningReached', exceeded: 'BudgetExceeded' } as const;

const BudgetData = Type.Object(
  {
    agent_id: Type.String({ minLength: 1 }),
    session_id: Type.Optional(Type.String({ minLength: 1, description: 'The session whose call reached or was refused by the budget' })),
    scope: Type.Object(
      {
        key: Type.String({
          minLength: 1,
          description: 'The budget counter, e.g. agent:<id>:day:tokens, session:<id>:tokens, workspace:<id>:month:usd',
        }),
        owner: Type.Union([Type.Literal('agent'), Type.Literal('session'), Type.Literal('workspace')]),
        owner_id: Type.String({ minLength: 1 }),
        period: Type.Union([Type.Literal('session'), Type.Literal('day'), Type.Literal('month')]),
        period_id: Type.String({ minLength: 1, description: 'The UTC day (2026-11-26), month (2026-11) or `session`' }),
        unit: Type.Union([Type.Literal('tokens'), Type.Literal('usd')]),
      },
      { additionalProperties: false },
    ),
    limit: Type.Number({ minimum: 0, description: 'In tokens, or in USD for a cost limit' }),
    used: Type.Number({ minimum: 0, description: "Spent in the period when the event was recorded, in the limit's unit" }),
    resets_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const BudgetWarningV1 = envelopeSchema('budget.budget_warning', BudgetData);
export const BudgetExceededV1 = envelopeSchema('budget.budget_exceeded', BudgetData);
export type BudgetEventData = Static<typeof BudgetData>;
export type BudgetEventV1 = Static<typeof BudgetWarningV1> | Static<typeof BudgetExceededV1>;

export function toBudgetIntegrationEvent(event: LoggedEvent): { subject: string; payload: BudgetEventV1 } | undefined {
  if (!event.streamId.startsWith('budget-')) return undefined;
  const name =
    event.type === BUDGET_EVENT_TYPES.warning
      ? 'budget_warning'
      : event.type === BUDGET_EVENT_TYPES.exceeded
        ? 'budget_exceeded'
        : undefined;
  if (!name) return undefined;
  const data = event.data as BudgetEventData;
  return {
    subject: subjectFor('budget', data.agent_id, name),
    payload: {
      ...envelopeOf(event),
      type: `budget.${name}` as 'budget.budget_warning',
      data,
    },
  };
}

const example = (type: 'budget.budget_warning' | 'budget.budget_exceeded', used: number) => ({
  id: '01JD7Z1Q9V2W3X4Y5Z6A7B8C9F',
  type,
  version: 1 as const,
  stream: 'budget-demo-support',
  offset: 0,
  position: 2001,
  occurred_at: '2026-11-26T15:02:11.000Z',
  data: {
    agent_id: 'demo-support',
    session_id: 's_8f2c',
    scope: {
      key: 'agent:demo-support:day:tokens',
      owner: 'agent' as const,
      owner_id: 'demo-support',
      period: 'day' as const,
      period_id: '2026-11-26',
      unit: 'tokens' as const,
    },
    limit: 50_000,
    used,
    resets_at: '2026-11-27T00:00:00.000Z',
  },
});

export const budgetEventContracts: IntegrationEventContract[] = [
  {
    type: 'budget.budget_warning',
    description:
      "An agent's LLM calls reached 80 % of one of its token budgets (per session, per day, per month, or its workspace's month). Published once per budget and period.",
    subjectPattern: 'tenet.v1.budget.{agent_id}.budget_warning',
    schema: BudgetWarningV1,
    example: example('budget.budget_warning', 40_312),
  },
  {
    type: 'budget.budget_exceeded',
    description:
      "One of an agent's token budgets is spent: no further LLM call is made for it until the period resets (the customer gets the agent's configured budget message, or the session is handed to a human). Published once per budget and period.",
    subjectPattern: 'tenet.v1.budget.{agent_id}.budget_exceeded',
    schema: BudgetExceededV1,
    example: example('budget.budget_exceeded', 50_210),
  },
];
