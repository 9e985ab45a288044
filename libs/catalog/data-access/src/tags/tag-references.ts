import { Injectable } from '@nestjs/common';
import { AgentsRepository } from '../agents/agents.repository.js';
import { JourneysRepository } from '../journeys/journeys.repository.js';
import { type ValidationDetail, violation } from '@tenet/edge';
import { TagsRepository } from './tags.repository.js';

import { AGENT_TAG_PREFIX, JOURNEY_TAG_PREFIX } from './tag-prefixes.js';

export { AGENT_TAG_PREFIX, JOURNEY_TAG_PREFIX };

/** An item applies to an agent when tagged `agent:<id>`, or when no `agent:` tag scopes it to any agent. */
export const scopedToAgent = (tags: readonly string[], agentId: string): boolean =>
  tags.includes(`${AGENT_TAG_PREFIX}${agentId}`) || !tags.some((t) => t.startsWith(AGENT_TAG_PREFIX));

/**
 * Parlant's tag ids: a tag's own id, or the synthetic `agent:<agent id>` / `journey:<journey id>` tags that
 * scope an item to one agent or journey. A reference must name something that exists.
 */
@Injectable()
export class TagReferences {
  constructor(
    private readonly tags: TagsRepository,
    private readonly agents: AgentsRepository,
    private readonly journeys: JourneysRepository,
  ) {}

  /** Violations for every tag id in `tags` that names nothing; `loc` is `['body', ...path, index]`. */
  async check(tags: readonly string[], path: string[] = ['tags']): Promise<ValidationDetail[]> {
    const details: ValidationDetail[] = [];
    for (const [index, tag] of tags.entries()) {
      const missing = await this.missing(tag);
      if (missing)
        details.push(violation([...path, index], `${path[0] ?? 'tags'} must reference existing tags: ${missing}`, 'value_error.reference'));
    }
    return details;
  }

  /** Why a tag id names nothing (`undefined` when it names a tag, or the `agent:`/`journey:` tag of an existing agent or journey). */
  async missing(tag: string): Promise<string | undefined> {
    if (tag.startsWith(AGENT_TAG_PREFIX)) {
      const agentId = tag.slice(AGENT_TAG_PREFIX.length);
      return (await this.agents.get(agentId)) ? undefined : `agent ${agentId} does not exist`;
    }
    if (tag.startsWith(JOURNEY_TAG_PREFIX)) {
      const journeyId = tag.slice(JOURNEY_TAG_PREFIX.length);
      return (await this.journeys.get(journeyId)) ? undefined : `journey ${journeyId} does not exist`;
    }
    return (await this.tags.get(tag)) ? undefined : `tag ${tag} does not exist`;
  }
}
