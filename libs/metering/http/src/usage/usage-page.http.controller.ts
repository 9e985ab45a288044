import { Controller, Get, Header, Inject, Optional, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { METERING_USAGE_SUBJECT, type UsageSummaryRequestV1 } from '@tenet/contracts';
import type { MessageBus } from '@tenet/messaging';
import type { UsageSummary } from '@tenet/metering-domain';
import { MESSAGE_BUS } from '@tenet/platform-runtime';
import { AgentsRepository } from '@tenet/catalog-data-access';
import { ExcludedControllerFromOpenApi, UnprocessableEntity, type ValidationDetail, WorkspaceDirectory } from '@tenet/edge';
import { INTENT_REPORTS, type IntentReportsPort } from './intent-reports.port.js';
import { bucketLabel, USAGE_RANGES, usageBuckets, usagePage, type AgentUsage, type UsageRange } from './usage-page.js';

/**
 * `GET /admin/usage?range=24h|7d|30d`: token spend per agent over time, by model, as a server-rendered page
 * (SVG charts and tables, no JavaScript and no build step). Every figure comes from the metering service's
 * usage summaries — the same answers as `GET /agents/{id}/usage` for each window — for the agents of the caller's
 * workspace.
 */
@ExcludedControllerFromOpenApi()
@Controller('admin/usage')
export class UsagePageHttpController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly agents: AgentsRepository,
    private readonly workspaces: WorkspaceDirectory,
    @Optional() @Inject(INTENT_REPORTS) private readonly intents?: IntentReportsPort,
  ) {}

  /** `format=json`: the same figures as JSON (`{ range, buckets, agents }`), for dashboards and scripts. */
  @Get()
  @Header('cache-control', 'no-store')
  async page(
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
    @Query('range') range = '7d',
    @Query('format') format = 'html',
  ): Promise<string | { range: string; buckets: unknown[]; agents: AgentUsage[]; intents: Record<string, unknown>[] }> {
    const problems: ValidationDetail[] = [];
    if (!Object.hasOwn(USAGE_RANGES, range))
      problems.push({ loc: ['query', 'range'], msg: `range must be one of ${Object.keys(USAGE_RANGES).join(', ')}`, type: 'value_error' });
    if (format !== 'html' && format !== 'json')
      problems.push({ loc: ['query', 'format'], msg: 'format must be one of html, json', type: 'value_error' });
    if (problems.length > 0) throw new UnprocessableEntity(problems);
    const now = new Date();
    const buckets = usageBuckets(range as UsageRange, now);
    const window = { from: buckets[0]?.from ?? now.toISOString(), to: buckets.at(-1)?.to ?? now.toISOString() };
    const summary = (agentId: string, span: { from: string; to: string }) =>
      this.bus.request<UsageSummary, UsageSummaryRequestV1>(METERING_USAGE_SUBJECT, { agent_id: agentId, ...span }, { timeoutMs: 10_000 });
    const agents: AgentUsage[] = [];
    // Intent counts and clarification rate per agent (ADR 0031), from the agents' classification streams.
    const intents: ({ agent_id: string; name: string } & Record<string, unknown>)[] = [];
    // The caller's workspace's agents only (ADR 0018).
    for (const agent of await this.workspaces.visibleTo(http, 'agents', await this.agents.list(), (a) => a.id)) {
      const [total, perBucket] = await Promise.all([
        summary(agent.id, window),
        Promise.all(buckets.map((bucket) => summary(agent.id, bucket))),
      ]);
      agents.push({ id: agent.id, name: agent.name, total, buckets: perBucket });
      if (this.intents) intents.push({ ...(await this.intents.forAgent(agent.id, buckets)), name: agent.name });
    }
    agents.sort((a, b) => b.total.cost_estimate_usd - a.total.cost_estimate_usd || a.name.localeCompare(b.name));
    if (format === 'json') return { range, buckets, agents, intents: intents.map(({ name: _name, ...report }) => report) };
    response.setHeader('content-type', 'text/html; charset=utf-8');
    return usagePage(
      agents,
      buckets,
      range as UsageRange,
      now,
      this.intents ? this.intents.section(intents, buckets, (b) => bucketLabel(b, range as UsageRange)) : '',
    );
  }
}
