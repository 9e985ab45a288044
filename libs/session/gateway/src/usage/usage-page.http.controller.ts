import { Controller, Get, Header, Inject, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiExcludeController } from '@nestjs/swagger';
import { METERING_USAGE_SUBJECT, type UsageSummaryRequestV1 } from '@tenet/contracts';
import type { MessageBus } from '@tenet/messaging';
import type { UsageSummary } from '@tenet/metering-domain';
import { MESSAGE_BUS } from '@tenet/platform-runtime';
import { AgentsRepository } from '../agents/agents.repository.js';
import { UnprocessableEntity } from '../http/validation.js';
import { WorkspaceDirectory } from '../workspaces/workspace-directory.js';
import { USAGE_RANGES, usageBuckets, usagePage, type AgentUsage, type UsageRange } from './usage-page.js';

/**
 * `GET /admin/usage?range=24h|7d|30d`: token spend per agent over time, by model, as a server-rendered page
 * (SVG charts and tables, no JavaScript and no build step). Every figure comes from the metering service's
 * usage summaries — the same answers as `GET /agents/{id}/usage` for each window — for the agents of the caller's
 * workspace.
 */
@ApiExcludeController()
@Controller('admin/usage')
export class UsagePageHttpController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly agents: AgentsRepository,
    private readonly workspaces: WorkspaceDirectory,
  ) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  async page(@Req() http: Request, @Query('range') range = '7d'): Promise<string> {
    if (!Object.hasOwn(USAGE_RANGES, range)) {
      throw new UnprocessableEntity([{ loc: ['query', 'range'], msg: `range must be one of ${Object.keys(USAGE_RANGES).join(', ')}`, type: 'value_error' }]);
    }
    const now = new Date();
    const buckets = usageBuckets(range as UsageRange, now);
    const window = { from: buckets[0]?.from ?? now.toISOString(), to: buckets.at(-1)?.to ?? now.toISOString() };
    const summary = (agentId: string, span: { from: string; to: string }) =>
      this.bus.request<UsageSummary, UsageSummaryRequestV1>(METERING_USAGE_SUBJECT, { agent_id: agentId, ...span }, { timeoutMs: 10_000 });
    const agents: AgentUsage[] = [];
    // The caller's workspace's agents only (ADR 0018).
    for (const agent of await this.workspaces.visibleTo(http, 'agents', await this.agents.list(), (a) => a.id)) {
      const [total, perBucket] = await Promise.all([summary(agent.id, window), Promise.all(buckets.map((bucket) => summary(agent.id, bucket)))]);
      agents.push({ id: agent.id, name: agent.name, total, buckets: perBucket });
    }
    agents.sort((a, b) => b.total.cost_estimate_usd - a.total.cost_estimate_usd || a.name.localeCompare(b.name));
    return usagePage(agents, buckets, range as UsageRange, now);
  }
}
