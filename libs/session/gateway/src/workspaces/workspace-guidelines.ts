import { Injectable } from '@nestjs/common';
import { GuidelinesRepository } from '@tenet/catalog-data-access';
import type { GuidelineSource } from '../turns/turn.service.js';
import { WorkspaceDirectory } from '@tenet/edge';

/**
 * The guidelines a turn sees: the agent's (tagged `agent:<id>`) and the untagged ones — of the agent's workspace
 * only (untagged guidelines apply within their workspace: docs/data-model.md#workspaces).
 */
@Injectable()
export class WorkspaceGuidelineSource implements GuidelineSource {
  constructor(
    private readonly guidelines: GuidelinesRepository,
    private readonly directory: WorkspaceDirectory,
  ) {}

  async forAgent(agentId: string, usable: Parameters<GuidelineSource['forAgent']>[1] = () => true): ReturnType<GuidelineSource['forAgent']> {
    const workspace = await this.directory.ownerOf('agents', agentId);
    // Only the workspace's own guidelines are screened: a bad one elsewhere is never reported to this agent's turns.
    const own = new Set((await this.directory.visible(workspace, 'guidelines', await this.guidelines.list(), (g) => g.id)).map((g) => g.id));
    return this.guidelines.forAgent(agentId, (g) => own.has(g.id) && usable(g));
  }
}
