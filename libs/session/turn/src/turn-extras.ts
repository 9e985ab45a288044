import { Injectable } from '@nestjs/common';
import {
  type AgentView,
  cannedTurnItem,
  CannedResponsesRepository,
  RelationshipsRepository,
  parseServiceToolId,
  serviceRef,
  ServicesRepository,
} from '@tenet/catalog-data-access';
import type { TurnDefinitions } from './turn-definitions.js';
import type { RunnableTool, TurnExtras, TurnExtrasSource, TurnGuideline } from './turn.service.js';

const toolItem = ({ name, description, parameters }: RunnableTool) => ({ name, description, parameters });

/** The agent's relationships, tools, matching settings, provider choice and canned responses for a turn. */
@Injectable()
export class AgentTurnExtras implements TurnExtrasSource {
  constructor(
    private readonly relationships: RelationshipsRepository,
    private readonly canned: CannedResponsesRepository,
    private readonly services: ServicesRepository,
  ) {}

  /**
   * Every tool the matcher may pick for the agent, and how each one runs: the agent's own tools (run on the
   * service they name, their own settings applied) and the registered services' tools its guidelines are associated
   * with (`service:tool`, the agent's `tool_timeout_secs`, no retries, failure not allowed). A tool with nowhere
   * to run is still offered to the matcher, so the turn can report it instead of silently skipping it.
   */
  private async toolsFor(agent: AgentView | undefined, guidelines: readonly TurnGuideline[]): Promise<RunnableTool[]> {
    const tools: RunnableTool[] = [];
    for (const tool of agent?.tools ?? []) {
      const bound = tool.service_name !== undefined ? await this.services.tool(tool.service_name, tool.name) : undefined;
      tools.push({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        timeout_secs: tool.timeout_secs,
        allow_failure: tool.allow_failure,
        ...(tool.retry_config ? { retry_config: tool.retry_config } : {}),
        ...(bound
          ? { service: serviceRef(bound.service), tool_name: tool.name }
          : {
              unrunnable:
                tool.service_name !== undefined
                  ? `service ${tool.service_name} is not registered or has no tool ${tool.name}`
                  : 'the agent tool names no service (set tools[].service_name)',
            }),
      });
    }
    const serviceIds = [...new Set(guidelines.flatMap((g) => g.tools ?? []).filter((id) => parseServiceToolId(id) !== undefined))];
    for (const id of serviceIds) {
      const ref = parseServiceToolId(id);
      const found = ref && (await this.services.tool(ref.service_name, ref.tool_name));
      if (!ref || !found) continue; // The guideline names a deleted service's tool: the matcher reports it (no tool of that name).
      tools.push({
        name: id,
        description: found.tool.description,
        parameters: found.tool.parameters,
        timeout_secs: agent?.config.tool_timeout_secs ?? 30,
        allow_failure: false,
        service: serviceRef(found.service),
        tool_name: found.tool.name,
      });
    }
    return tools;
  }

  async forTurn(agentId: string, guidelines: readonly TurnGuideline[], defs: TurnDefinitions): Promise<TurnExtras> {
    const { agent } = defs.current;
    const relationships = await this.relationships.forGuidelines(guidelines, (r) => defs.usable('relationship', r, (item) => item));
    // Templates are needed when the agent composes from them, or when a guideline may ask for a canned mode.
    const canned =
      agent !== undefined &&
      (agent.composition_mode !== 'fluid' || guidelines.some((g) => g.composition_mode !== undefined && g.composition_mode !== 'fluid'));
    // The runnable tools depend only on definitions (the agent, the services, the guidelines' `service:tool`
    // ids): built once per snapshot, so each tool's schema is checked once per definition, not per turn.
    const serviceTools = [...new Set(guidelines.flatMap((g) => g.tools ?? []))].sort();
    const runnable = await defs.current.derived(`runnable-tools:${JSON.stringify(serviceTools)}`, () => this.toolsFor(agent, guidelines));
    const tools = runnable.filter((tool) => defs.usable('tool', tool, toolItem));
    return {
      relationships: relationships.map(({ id, kind, source, target }) => ({ id, kind, source, target })),
      tools: tools.map(toolItem),
      runnableTools: tools,
      ...(agent?.matching ? { settings: agent.matching } : {}),
      // The agent's provider (absent: the configured one) and its fallback, which may be set on its own.
      ...(agent?.llm || agent?.fallback ? { llm: { ...(agent.llm ?? {}), ...(agent.fallback ? { fallback: agent.fallback } : {}) } } : {}),
      cannedResponses: canned ? await this.canned.forAgent(agentId, (c) => defs.usable('canned_response', c, cannedTurnItem)) : [],
      ...(agent?.no_match_message ? { noMatchMessage: agent.no_match_message } : {}),
    };
  }
}
