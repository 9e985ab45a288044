import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { ResourceStreams } from '../catalog/resource-streams.js';
import { newId } from '../ids.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { assertNoViolations, violation } from '../tags/rule-violation.js';
import { defaultAgentConfig, defaultAgentMatching, type AgentCreationDto, type AgentUpdateDto, type AgentView, type ToolDefinitionDto } from './agent.dto.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const PREFIX = 'agent-';

type AgentEvent =
  | { type: 'AgentCreated'; data: AgentView }
  | { type: 'AgentUpdated'; data: Partial<AgentView> }
  | { type: 'AgentDeleted'; data: Record<string, never> };

function evolve(current: AgentView | undefined, event: Pick<StoredEvent, 'type' | 'data'>): AgentView | undefined {
  const e = event as AgentEvent;
  switch (e.type) {
    case 'AgentCreated':
      return withDefaults(e.data);
    case 'AgentUpdated':
      return current && withDefaults({ ...current, ...e.data, config: { ...current.config, ...(e.data.config ?? {}) }, matching: { ...defaultAgentMatching, ...current.matching, ...(e.data.matching ?? {}) } });
    case 'AgentDeleted':
      return undefined;
    default:
      return current;
  }
}

/** Agents stored before the matching fields existed read with their defaults. */
const withDefaults = (agent: AgentView): AgentView => ({ ...agent, matching: { ...defaultAgentMatching, ...(agent.matching ?? {}) }, tools: agent.tools ?? [] });

const ajv = addFormats(new Ajv2020({ strict: false }));

/** Seed 000 §3 rule 3 and §1 rule 4: each tool's parameters compile as a JSON Schema of type "object"; names are unique. */
function toolProblems(tools: readonly ToolDefinitionDto[] | undefined) {
  const problems = [];
  const seen = new Set<string>();
  for (const [index, tool] of (tools ?? []).entries()) {
    if (seen.has(tool.name)) problems.push(violation(['tools', index, 'name'], `tool name "${tool.name}" is used twice; tool names must be unique per agent`, 'value_error'));
    seen.add(tool.name);
    if (tool.parameters['type'] !== 'object') problems.push(violation(['tools', index, 'parameters'], 'parameters must be a JSON Schema with type "object"', 'value_error'));
    else {
      try {
        ajv.compile(tool.parameters);
      } catch (error) {
        problems.push(violation(['tools', index, 'parameters'], `parameters is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`, 'value_error'));
      }
    }
  }
  return problems;
}

/** Seed 002: a fallback must be a different model; the offline provider has only one. */
function llmProblems(llm: AgentCreationDto['llm']) {
  const fallback = llm?.fallback;
  if (!llm || !fallback) return [];
  const same = fallback.provider === llm.provider && (llm.provider === 'offline' || (fallback.model ?? '') === (llm.model ?? ''));
  return same ? [violation(['llm', 'fallback'], 'llm.fallback must differ from the primary provider and model', 'value_error')] : [];
}

/** Agents are event-sourced: one stream per agent (`agent-<id>`), read models folded from it. */
@Injectable()
export class AgentsRepository {
  private readonly streams: ResourceStreams<AgentView>;

  constructor(@Inject(EVENT_STORE) store: EventStore) {
    this.streams = new ResourceStreams(store, PREFIX, 'Agent', evolve);
  }

  /** Throws `ResourceIdTakenError` when the id is taken. */
  create(input: AgentCreationDto, now: Date): Promise<AgentView> {
    assertNoViolations([...toolProblems(input.tools), ...llmProblems(input.llm)]);
    const id = input.id ?? newId();
    return this.streams.create(id, {
      id,
      name: input.name,
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.system_prompt !== undefined ? { system_prompt: input.system_prompt } : {}),
      max_engine_iterations: input.max_engine_iterations ?? 1,
      composition_mode: input.composition_mode ?? 'fluid',
      message_output_mode: input.message_output_mode ?? 'block',
      tags: input.tags ?? [],
      config: { ...defaultAgentConfig, ...(input.config ?? {}) },
      matching: { ...defaultAgentMatching, ...(input.matching ?? {}) },
      tools: input.tools ?? [],
      ...(input.llm ? { llm: input.llm } : {}),
      ...(input.no_match_message !== undefined ? { no_match_message: input.no_match_message } : {}),
      creation_utc: now.toISOString(),
    });
  }

  get(id: string): Promise<AgentView | undefined> {
    return this.streams.get(id);
  }

  list(): Promise<AgentView[]> {
    return this.streams.list();
  }

  /** Optimistic: the update is appended only if nobody changed the agent since it was read. */
  update(id: string, changes: AgentUpdateDto): Promise<AgentView | undefined> {
    return this.streams.update(id, () => {
      assertNoViolations([...toolProblems(changes.tools), ...llmProblems(changes.llm)]);
      return { ...changes } as Partial<AgentView>;
    });
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }
}
