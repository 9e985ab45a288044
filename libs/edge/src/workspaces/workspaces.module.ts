import { Module } from '@nestjs/common';
import { EdgeAccessModule } from '../auth/edge-access.module.js';
import { WorkspacesHttpController } from './workspaces.http.controller.js';
import { WorkspacesRepository } from './workspaces.repository.js';

/** Workspace settings (`GET/PUT /workspaces/{id}`: the workspace budget) and the repository budgets read them from. */
@Module({
  imports: [EdgeAccessModule],
  controllers: [WorkspacesHttpController],
  providers: [WorkspacesRepository],
  exports: [WorkspacesRepository],
})
export class WorkspacesModule {}
