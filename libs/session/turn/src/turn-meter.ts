import { Injectable } from '@nestjs/common';
import type { CallUsageV1 } from '@tenet/contracts';
import { AgentBudgets } from '@tenet/metering-http';
import { UsageStreamSink } from '@tenet/metering-http';

export type PricedCall = CallUsageV1 & { cost_estimate_usd: number };

/** Records each LLM call of a turn in the log (published to metering by the relay) with its estimated cost. */
@Injectable()
export class TurnMeter {
  constructor(
    private readonly usage: UsageStreamSink,
    private readonly budgets: AgentBudgets,
  ) {}

  async record(agentId: string, sessionId: string, usage: readonly CallUsageV1[]): Promise<PricedCall[]> {
    // One append for the reply's calls (each its own usage event): one write instead of one per call.
    const costs = await this.usage.recordCalls(agentId, sessionId, usage);
    if (usage.length > 0) await this.budgets.afterCalls(agentId, sessionId);
    return usage.map((call, index) => ({ ...call, cost_estimate_usd: costs[index] ?? 0 }));
  }

  /** The estimated cost of a call (for a budget hold before the turn's first call). */
  costOf(provider: string, model: string, inputTokens: number, outputTokens: number): number {
    return this.usage.costOf(provider, model, inputTokens, outputTokens);
  }
}
