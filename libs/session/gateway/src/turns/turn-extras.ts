import { Injectable } from '@nestjs/common';
import { AgentsRepository } from '../agents/agents.repository.js';
import { CannedResponsesRepository } from '../canned-responses/canned-responses.repository.js';
import { GuidelinesRepository } from '../guidelines/guidelines.repository.js';
import { RelationshipsRepository } from '../relationships/relationships.repository.js';
import type { TurnExtras, TurnExtrasSource } from './turn.service.js';

/** The agent's relationships, tools, matching settings, provider choice and canned responses for a turn. */
@Injectable()
export class AgentTurnExtras implements TurnExtrasSource {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly guidelines: GuidelinesRepository,
    private readonly relationships: RelationshipsRepository,
    private readonly canned: CannedResponsesRepository,
  ) {}

  async forTurn(agentId: string, guidelineIds: string[]): Promise<TurnExtras> {
    const [agent, all] = await Promise.all([this.agents.get(agentId), this.guidelines.forAgent(agentId)]);
    const ids = new Set(guidelineIds);
    const relationships = await this.relationships.forGuidelines(all.filter((g) => ids.has(g.id)));
    return {
      relationships: relationships.map(({ id, kind, source, target }) => ({ id, kind, source, target })),
      tools: (agent?.tools ?? []).map(({ name, description, parameters }) => ({ name, description, parameters })),
      ...(agent?.matching ? { settings: agent.matching } : {}),
      ...(agent?.llm ? { llm: agent.llm } : {}),
      cannedResponses: agent && agent.composition_mode !== 'fluid' ? await this.canned.forAgent(agentId) : [],
      ...(agent?.no_match_message ? { noMatchMessage: agent.no_match_message } : {}),
    };
  }
}
