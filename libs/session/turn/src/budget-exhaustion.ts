import { Injectable } from '@nestjs/common';
import { DEFAULT_BUDGET_EXHAUSTED_MESSAGE } from '@tenet/metering-domain';
import { AgentsRepository } from '@tenet/catalog-data-access';
import { modeChange, SessionEventsService, SessionsRepository } from '@tenet/session-data-access';
import { AgentBudgets, budgetRefusalOf } from '@tenet/metering-http';

/**
 * How a turn ends when the matcher refused an LLM call because a budget is spent: no further call is made; the
 * customer gets the agent's `budget.exhausted_message` (or the session is handed to a human when `on_exhausted` is
 * `handoff`), `budget_exceeded` is published, and the turn's `ready` status names the budget.
 */
@Injectable()
export class BudgetExhaustion {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly sessions: SessionsRepository,
    private readonly events: SessionEventsService,
    private readonly budgets: AgentBudgets,
  ) {}

  /** Answers the turn whose step failed with `error`, a budget refusal (`budgetRefusalOf`). */
  async answer(sessionId: string, error: unknown, correlationId: string): Promise<'budget_exceeded'> {
    const refusal = budgetRefusalOf(error);
    if (!refusal) throw error;
    const session = await this.sessions.get(sessionId);
    const agent = session && (await this.agents.get(session.view.agent_id));
    const agentId = agent?.id ?? refusal.scope.owner.id;
    await this.budgets.refused(agentId, sessionId, refusal);
    const message = agent?.budget?.exhausted_message ?? DEFAULT_BUDGET_EXHAUSTED_MESSAGE;
    await this.events.append(
      sessionId,
      { kind: 'message', source: 'ai_agent', message, participant: { id: agentId, display_name: agent?.name ?? agentId } },
      correlationId,
    );
    const handoff = agent?.budget?.on_exhausted === 'handoff';
    await this.events.append(
      sessionId,
      {
        kind: 'status',
        source: 'ai_agent',
        status: 'ready',
        data: {
          budget_exceeded: {
            key: refusal.scope.key,
            period: refusal.scope.period,
            period_id: refusal.scope.period_id,
            unit: refusal.scope.unit,
            ...(refusal.scope.resets_at ? { resets_at: refusal.scope.resets_at } : {}),
          },
          ...(handoff ? { handed_off: true } : {}),
        },
      },
      correlationId,
    );
    if (handoff) await this.sessions.change(sessionId, (record) => ({ events: modeChange(record, 'manual', 'budget'), result: undefined }));
    return 'budget_exceeded';
  }
}
