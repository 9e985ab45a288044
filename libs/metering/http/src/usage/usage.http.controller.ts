import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { METERING_USAGE_SUBJECT, type UsageSummaryRequestV1 } from '@tenet/contracts';
import type { MessageBus } from '@tenet/messaging';
import type { UsageSummary } from '@tenet/metering-domain';
import { traced, traceHeaders } from '@tenet/observability';
import { MESSAGE_BUS } from '@tenet/platform-runtime';
import { isISO8601 } from '@tenet/platform-runtime/validation';
import { AgentsRepository } from '@tenet/catalog-data-access';
import { notFound, UnprocessableEntity, type ValidationDetail } from '@tenet/edge';
import { EVALUATIONS_USAGE_ID } from '@tenet/metering-domain';

const EARLIEST = Date.parse('0000-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Token spend per agent: `GET /agents/{id}/usage?from&to` (ISO-8601, `to` exclusive), answered by the metering
 * service from its token records. Records arrive through the published usage events, so a call made a moment
 * ago may take a moment to be counted. `GET /agents/_evaluations/usage` is the spend of evaluations.
 */
@Controller('agents/:agentId/usage')
export class UsageHttpController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly agents: AgentsRepository,
  ) {}

  @Get()
  async usage(
    @Param('agentId') agentId: string,
    @Query('from') from?: string,
    @Query('to') to?: string,
  ): Promise<UsageSummary & { agent_id: string; from?: string; to?: string }> {
    const problems: ValidationDetail[] = [];
    const instant = (name: string, value: string | undefined): string | undefined => {
      if (value === undefined) return undefined;
      const ms = Date.parse(value);
      if (Number.isNaN(ms)) {
        problems.push({ loc: ['query', name], msg: `${name} must be an ISO-8601 timestamp`, type: 'value_error' });
        return undefined;
      }
      // ISO-8601 without expanded years: anything outside 0000-9999 cannot be stored or compared as text.
      if (ms < EARLIEST || ms > LATEST) {
        problems.push({ loc: ['query', name], msg: `${name} must be between 0000-01-01 and 9999-12-31`, type: 'value_error.range' });
        return undefined;
      }
      // Strict: a date that does not exist (2024-02-30) is refused, not rolled over into the next month.
      if (!isISO8601(value, { strict: true })) {
        problems.push({
          loc: ['query', name],
          msg: `${name} must be an ISO-8601 timestamp of a date that exists`,
          type: 'value_error.date',
        });
        return undefined;
      }
      return new Date(ms).toISOString();
    };
    const range = { from: instant('from', from), to: instant('to', to) };
    if (range.from !== undefined && range.to !== undefined && range.to < range.from)
      problems.push({ loc: ['query', 'to'], msg: 'to must not be before from', type: 'value_error.range' });
    if (problems.length > 0) throw new UnprocessableEntity(problems);
    // `_evaluations`: the calls evaluations made, which belong to no agent.
    if (agentId !== EVALUATIONS_USAGE_ID && !(await this.agents.get(agentId))) throw notFound('agent', agentId);
    const request: UsageSummaryRequestV1 = {
      agent_id: agentId,
      ...(range.from !== undefined ? { from: range.from } : {}),
      ...(range.to !== undefined ? { to: range.to } : {}),
    };
    const summary = await traced('tenet.usage.summary', { 'tenet.agent_id': agentId }, () =>
      this.bus.request<UsageSummary>(METERING_USAGE_SUBJECT, request, { timeoutMs: 10_000, headers: traceHeaders() }),
    );
    return {
      agent_id: agentId,
      ...(range.from !== undefined ? { from: range.from } : {}),
      ...(range.to !== undefined ? { to: range.to } : {}),
      ...summary,
    };
  }
}
