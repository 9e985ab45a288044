import { Injectable } from '@nestjs/common';
import { GuidelinesRepository } from '../guidelines/guidelines.repository.js';
import type { GuidelineSource } from '../turns/turn.service.js';
import { WorkspaceDirectory } from './workspace-directory.js';

/**
 * The guidelines a turn sees: the agent's (tagged `agent:<id>`) and the untagged ones — of the agent's workspace
 * only (issue 14: untagged guidelines apply within their workspace).
 */
@Injectable()
export class WorkspaceGuidelineSource implements GuidelineSource {
  constructor(
    private readonly guidelines: GuidelinesRepository,
    private readonly directory: WorkspaceDirectory,
  ) {}

  async forAgent(agentId: string): ReturnType<GuidelineSource['forAgent']> {
    const [all, workspace] = await Promise.all([this.guidelines.forAgent(agentId), this.directory.ownerOf('agents', agentId)]);
    return this.directory.visible(workspace, 'guidelines', all, (g) => g.id);
  }
}
