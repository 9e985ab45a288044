import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Inject, Param, Patch, Post, Put, Query, Req } from '@nestjs/common';
import { MATCH_FIELDS } from '@tenet/channels-domain';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { invalid, notFound, workspaceOf } from '../http-errors.js';
import { SessionGatewayClient } from '../sessions/session-gateway.client.js';
import { BindingCreationDto, BindingUpdateDto, DefaultAgentDto, ResolveQueryDto, type BindingView } from './binding.dto.js';
import { BindingRuleError, BindingsRepository } from './bindings.repository.js';

/**
 * `/bindings` (docs/data-model.md#bindings): routing rules from a platform conversation to an agent of the caller's workspace, the
 * workspace's default agent, and `/bindings/resolve`, which says which rule wins for a conversation and why.
 */
@Controller('bindings')
export class BindingsHttpController {
  constructor(
    private readonly bindings: BindingsRepository,
    @Inject(SessionGatewayClient) private readonly gateway: SessionGatewayClient,
  ) {}

  @Get()
  list(@Req() request: Request): Promise<BindingView[]> {
    return this.bindings.list(workspaceOf(request));
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  async create(@Body() body: BindingCreationDto, @Req() request: Request): Promise<BindingView> {
    await this.assertAgent(body.agent_id, request, ['body', 'agent_id']);
    const view: BindingView = {
      id: `bnd_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
      workspace_id: workspaceOf(request),
      agent_id: body.agent_id,
      ...Object.fromEntries(MATCH_FIELDS.map((field) => [field, body[field] ?? null])),
      creation_utc: new Date().toISOString(),
    } as BindingView;
    return this.ruled(() => this.bindings.create(view));
  }

  @Get('default-agent')
  async defaultAgent(@Req() request: Request): Promise<{ agent_id: string | null }> {
    return { agent_id: (await this.bindings.defaultAgent(workspaceOf(request))) ?? null };
  }

  @Put('default-agent')
  async setDefaultAgent(@Body() body: DefaultAgentDto, @Req() request: Request): Promise<{ agent_id: string }> {
    await this.assertAgent(body.agent_id, request, ['body', 'agent_id']);
    await this.bindings.setDefaultAgent(workspaceOf(request), body.agent_id);
    return { agent_id: body.agent_id };
  }

  @Delete('default-agent')
  @HttpCode(HttpStatus.NO_CONTENT)
  async clearDefaultAgent(@Req() request: Request): Promise<void> {
    await this.bindings.setDefaultAgent(workspaceOf(request), undefined);
  }

  /** Which binding wins for a conversation, the rank it won by, and why each binding did or did not apply. */
  @Get('resolve')
  async resolve(@Query() query: ResolveQueryDto, @Req() request: Request): Promise<Record<string, unknown>> {
    const resolution = await this.bindings.resolve(workspaceOf(request), query);
    return {
      outcome: resolution.outcome,
      agent_id: resolution.outcome === 'refused' ? null : resolution.agent_id,
      binding_id: resolution.outcome === 'binding' ? resolution.binding.id : null,
      rank: resolution.outcome === 'binding' ? resolution.rank : resolution.outcome === 'default' ? 'default_agent' : null,
      reason: resolution.reason,
      considered: resolution.considered,
    };
  }

  @Get(':bindingId')
  async get(@Param('bindingId') id: string, @Req() request: Request): Promise<BindingView> {
    const binding = await this.bindings.get(workspaceOf(request), id);
    if (!binding) throw notFound('binding', id);
    return binding;
  }

  @Patch(':bindingId')
  async update(@Param('bindingId') id: string, @Body() body: BindingUpdateDto, @Req() request: Request): Promise<BindingView> {
    const workspace = workspaceOf(request);
    if (!(await this.bindings.get(workspace, id))) throw notFound('binding', id);
    if (body.agent_id !== undefined) await this.assertAgent(body.agent_id, request, ['body', 'agent_id']);
    const changes: Partial<BindingView> = {};
    if (body.agent_id !== undefined) changes.agent_id = body.agent_id;
    for (const field of MATCH_FIELDS) if (body[field] !== undefined) changes[field] = body[field] ?? null;
    const updated = await this.ruled(() => this.bindings.update(workspace, id, changes));
    if (!updated) throw notFound('binding', id);
    return updated;
  }

  @Delete(':bindingId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async delete(@Param('bindingId') id: string, @Req() request: Request): Promise<void> {
    if (!(await this.bindings.delete(workspaceOf(request), id))) throw notFound('binding', id);
  }

  /** The agent must exist — asked of the session gateway with the caller's own credentials, so "exists" means "in the caller's workspace". */
  private async assertAgent(agentId: string, request: Request, loc: string[]): Promise<void> {
    if (!(await this.gateway.agentVisible(agentId, request.headers.authorization)))
      throw invalid(
        loc,
        `agent_id must name an existing agent of this workspace; ${agentId} does not exist`,
        'value_error.missing_reference',
      );
  }

  private async ruled<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof BindingRuleError) throw invalid([error.field], error.message);
      throw error;
    }
  }
}
