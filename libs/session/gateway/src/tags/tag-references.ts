import { Injectable } from '@nestjs/common';
import { AgentsRepository } from '../agents/agents.repository.js';
import type { ValidationDetail } from '../http/validation.js';
import { violation } from './rule-violation.js';
import { TagsRepository } from './tags.repository.js';

export const AGENT_TAG_PREFIX = 'agent:';
export const JOURNEY_TAG_PREFIX = 'journey:';

/**
 * Parlant's tag ids: a tag's own id, or the synthetic `agent:<agent id>` / `journey:<journey id>` tags that
 * scope an item to one agent or journey. A reference must name something that exists.
 */
@Injectable()
export class TagReferences {
  constructor(
    private readonly tags: TagsRepository,
    private readonly agents: AgentsRepository,
  ) {}

  /** Violations for every tag id in `tags` that names nothing; `loc` is `['body', ...path, index]`. */
  async check(tags: readonly string[], path: string[] = ['tags']): Promise<ValidationDetail[]> {
    const details: ValidationDetail[] = [];
    for (const [index, tag] of tags.entries()) {
      const problem = await this.problem(tag);
      if (problem) details.push(violation([...path, index], `${path[0] ?? 'tags'} ${problem}`, 'value_error.reference'));
    }
    return details;
  }

  private async problem(tag: string): Promise<string | undefined> {
    if (tag.startsWith(AGENT_TAG_PREFIX)) {
      const agentId = tag.slice(AGENT_TAG_PREFIX.length);
      return (await this.agents.get(agentId)) ? undefined : `must reference existing tags: agent ${agentId} does not exist`;
    }
    if (tag.startsWith(JOURNEY_TAG_PREFIX)) return `must reference existing tags: journey tags cannot be used, no journeys are defined`;
    return (await this.tags.get(tag)) ? undefined : `must reference existing tags: tag ${tag} does not exist`;
  }
}
