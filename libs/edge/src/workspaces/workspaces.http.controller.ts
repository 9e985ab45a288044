import { Body, Controller, Get, Patch, Req } from '@nestjs/common';
import type { Request } from 'express';
import { IsObject, IsOptional, ValidateNested } from '@tenet/platform-runtime/validation';
import { Type } from 'class-transformer';
import { callerOf } from '../auth/caller.js';
import { DEFAULT_WORKSPACE } from '../auth/credentials.repository.js';
import { AgentBudgetDto } from './budget.dto.js';
import { httpCall } from '../http/rule-violation.js';
import { WorkspacesRepository, type WorkspaceView } from './workspaces.repository.js';

export class WorkspaceUpdateDto {
  /** The workspace's token budgets (day or month), charged by every agent of the workspace; `null` removes them. */
  @IsOptional() @IsObject() @ValidateNested() @Type(() => AgentBudgetDto) budget?: AgentBudgetDto | null;
}

/** The caller's own workspace: `GET /workspace`, and `PATCH /workspace` (admin) for its token budget. */
@Controller('workspace')
export class WorkspacesHttpController {
  constructor(private readonly workspaces: WorkspacesRepository) {}

  @Get()
  read(@Req() request: Request): Promise<WorkspaceView> {
    return this.workspaces.get(callerOf(request)?.workspaceId ?? DEFAULT_WORKSPACE);
  }

  @Patch()
  update(@Body() body: WorkspaceUpdateDto, @Req() request: Request): Promise<WorkspaceView> {
    return httpCall(() => this.workspaces.setBudget(callerOf(request)?.workspaceId ?? DEFAULT_WORKSPACE, body.budget));
  }
}
