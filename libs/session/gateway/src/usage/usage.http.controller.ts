import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { usageStreamId, type LlmUsageData } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { summarizeUsage, type UsageSummary } from '@tenet/metering-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { AgentsRepository } from '../agents/agents.repository.js';
import { notFound, UnprocessableEntity, type ValidationDetail } from '../http/validation.js';

/** Token spend per agent: `GET /agents/{id}/usage?from&to` (ISO-8601, `to` exclusive). */
@Controller('agents/:agentId/usage')
export class UsageHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly agents: AgentsRepository,
  ) {}

  @Get()
  async usage(@Param('agentId') agentId: string, @Query('from') from?: string, @Query('to') to?: string): Promise<UsageSummary & { agent_id: string; from?: string; to?: string }> {
    const problems: ValidationDetail[] = [];
    const instant = (name: string, value: string | undefined): string | undefined => {
      if (value === undefined) return undefined;
      const ms = Date.parse(value);
      if (Number.isNaN(ms)) {
        problems.push({ loc: ['query', name], msg: `${name} must be an ISO-8601 timestamp`, type: 'value_error' });
        return undefined;
      }
      return new Date(ms).toISOString();
    };
    const range = { from: instant('from', from), to: instant('to', to) };
    if (problems.length > 0) throw new UnprocessableEntity(problems);
    if (!(await this.agents.get(agentId))) throw notFound('agent', agentId);
    const records = (await this.store.readStream(usageStreamId(agentId))).map((event) => ({ ...(event.data as LlmUsageData), at: event.recordedAt }));
    return {
      agent_id: agentId,
      ...(range.from !== undefined ? { from: range.from } : {}),
      ...(range.to !== undefined ? { to: range.to } : {}),
      ...summarizeUsage(records, range.from, range.to),
    };
  }
}
