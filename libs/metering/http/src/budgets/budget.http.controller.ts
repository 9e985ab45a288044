import { Controller, Get, Param, Query } from '@nestjs/common';
import { AgentsRepository } from '@tenet/catalog-data-access';
import { notFound } from '@tenet/edge';
import { AgentBudgets, type BudgetStatusView } from './agent-budgets.js';

/**
 * `GET /agents/{id}/budget[?session_id=]`: each of the agent's token budgets with its limit, what is used (and held
 * by calls in flight) in the current period, and when the period resets. Usage is read from the budget store the
 * calls are charged to, so it is current to the last settled call.
 */
@Controller('agents/:agentId/budget')
export class BudgetHttpController {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly budgets: AgentBudgets,
  ) {}

  @Get()
  async read(
    @Param('agentId') agentId: string,
    @Query('session_id') sessionId?: string,
  ): Promise<{
    agent_id: string;
    session_id?: string;
    budgets: BudgetStatusView[];
    exhausted_message: string | null;
    on_exhausted: string | null;
  }> {
    const agent = await this.agents.get(agentId);
    if (!agent) throw notFound('agent', agentId);
    return {
      agent_id: agentId,
      ...(sessionId ? { session_id: sessionId } : {}),
      budgets: await this.budgets.status(agent, sessionId || undefined),
      exhausted_message: agent.budget?.exhausted_message ?? null,
      on_exhausted: agent.budget?.on_exhausted ?? null,
    };
  }
}
