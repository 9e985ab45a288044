import { Injectable } from '@nestjs/common';
import { AgentsRepository } from '../agents/agents.repository.js';
import { CannedResponsesRepository } from '../canned-responses/canned-responses.repository.js';
import { RelationshipsRepository } from '../relationships/relationships.repository.js';
import type { TurnExtras, TurnExtrasSource, TurnGuideline } from './turn.service.js';

/** The agent's relationships, tools, matching settings, provider choice and canned responses for a turn. */
@Injectable()
export class AgentTurnExtras implements TurnExtrasSource {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly relationships: RelationshipsRepository,
    private readonly canned: CannedResponsesRepository,
  ) {}

  async forTurn(agentId: string, guidelines: readonly TurnGuideline[]): Promise<TurnExtras> {
    const [agent, relationships] = await Promise.all([this.agents.get(agentId), this.relationships.forGuidelines(guidelines)]);
    // Templates are needed when the agent composes from them, or when a guideline may ask for a canned mode.
    const canned = agent !== undefined && (agent.composition_mode !== 'fluid' || guidelines.some((g) => g.composition_mode !== undefined && g.composition_mode !== 'fluid'));
    return {
      relationships: relationships.map(({ id, kind, source, target }) => ({ id, kind, source, target })),
      tools: (agent?.tools ?? []).map(({ name, description, parameters }) => ({ name, description, parameters })),
      ...(agent?.matching ? { settings: agent.matching } : {}),
      // The agent's provider (absent: the configured one) and its fallback, which may be set on its own.
      ...(agent?.llm || agent?.fallback ? { llm: { ...(agent.llm ?? {}), ...(agent.fallback ? { fallback: agent.fallback } : {}) } } : {}),
      cannedResponses: canned ? await this.canned.forAgent(agentId) : [],
      ...(agent?.no_match_message ? { noMatchMessage: agent.no_match_message } : {}),
    };
  }
}
