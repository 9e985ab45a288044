import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { budgetProblems, DEFAULT_BUDGET_EXHAUSTED_MESSAGE } from '@tenet/metering-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import type { AgentBudgetDto, BudgetView } from './budget.dto.js';
import { crudEvolve, ResourceStreams } from '../resources/resource-streams.js';
import { assertNoViolations, violation } from '../http/rule-violation.js';

export interface WorkspaceView {
  id: string;
  budget: BudgetView;
}

/** Workspace settings (`workspace-<id>` streams): its token budget, per day or month, across all its agents. */
@Injectable()
export class WorkspacesRepository {
  private readonly streams: ResourceStreams<WorkspaceView>;

  constructor(@Inject(EVENT_STORE) store: EventStore) {
    this.streams = new ResourceStreams(store, 'workspace-', 'Workspace', crudEvolve<WorkspaceView>('Workspace'));
  }

  async get(id: string): Promise<WorkspaceView> {
    return (await this.streams.get(id)) ?? { id, budget: null };
  }

  async setBudget(id: string, budget: AgentBudgetDto | null | undefined): Promise<WorkspaceView> {
    if (budget) {
      assertNoViolations([
        ...budgetProblems({ limits: budget.limits }).map((p) =>
          violation(
            p.field
              .split(/[.[\]]+/)
              .filter(Boolean)
              .map((x) => (/^\d+$/.test(x) ? Number(x) : x)),
            p.rule,
            'value_error',
          ),
        ),
        ...budget.limits.flatMap((l, i) =>
          l.period === 'session'
            ? [violation(['budget', 'limits', i, 'period'], 'a workspace budget is per day or month, not per session', 'value_error')]
            : [],
        ),
      ]);
    }
    const stored: WorkspaceView['budget'] = budget
      ? {
          limits: budget.limits.map((l) => ({
            period: l.period,
            ...(l.tokens !== undefined ? { tokens: l.tokens } : {}),
            ...(l.cost_usd !== undefined ? { cost_usd: l.cost_usd } : {}),
          })),
          exhausted_message: budget.exhausted_message ?? DEFAULT_BUDGET_EXHAUSTED_MESSAGE,
          on_exhausted: budget.on_exhausted ?? 'message',
        }
      : null;
    const updated = await this.streams.update(id, () => ({ budget: stored }));
    if (updated) return updated;
    await this.streams.create(id, { id, budget: stored }).catch(async () => this.streams.update(id, () => ({ budget: stored })));
    return this.get(id);
  }
}
