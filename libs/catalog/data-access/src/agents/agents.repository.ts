import { Inject, Injectable } from '@nestjs/common';
import { ServicesRepository } from '../services/services.repository.js';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { toolSchemaProblem } from '@tenet/json-schema';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { DEFAULT_FAILURE_REPLY } from '@tenet/session-domain';
import { validateAgentJourneys } from '@tenet/journeys-domain';
import { retrievalOf } from '@tenet/memory-domain';
import { budgetProblems, DEFAULT_BUDGET_EXHAUSTED_MESSAGE } from '@tenet/metering-domain';
import { ResourceStreams, type ValidationDetail, newId, assertNoViolations, violation } from '@tenet/edge';
import { DEFAULT_INTENT_SETTINGS, type IntentSettings } from '@tenet/intents-domain';
import { JourneysRepository } from '../journeys/journeys.repository.js';
import { patchList } from '../tags/tag.dto.js';
import {
  defaultAgentConfig,
  defaultAgentMatching,
  DEFAULT_NO_MATCH_MESSAGE,
  type AgentBudgetDto,
  type AgentConfigDto,
  type AgentSoulDto,
  type AgentStatus,
  type AgentCreationDto,
  type AgentMatchingDto,
  type AgentRetrievalDto,
  type AgentUpdateDto,
  type AgentView,
  type LlmProviderName,
  type ToolDefinitionDto,
  type ToolView,
} from './agent.dto.js';

const PREFIX = 'agent-';
/** Parlant's default (src/parlant/core/agents.py: `max_engine_iterations or 3`). */
const DEFAULT_MAX_ENGINE_ITERATIONS = 3;

type ProviderChoice = { provider: LlmProviderName; model?: string };

/**
 * What the agent's events carry. Updates carry resolved values (whole `config`, `matching`, `tools`, `tags`),
 * so replay never re-interprets a request; reads fill in defaults, so agents stored before a field existed
 * read with its default. (Older events may still carry `llm.fallback` and partial `config`/`matching`.)
 */
interface StoredAgent {
  id: string;
  name: string;
  description?: string;
  system_prompt?: string;
  max_engine_iterations?: number;
  composition_mode?: AgentView['composition_mode'];
  message_output_mode?: AgentView['message_output_mode'];
  tags?: string[];
  config?: AgentConfigDto;
  matching?: AgentMatchingDto;
  retrieval?: AgentRetrievalDto;
  /** Resolved on every write (whole), like `matching`. */
  intents?: Partial<IntentSettings>;
  tools?: ToolDefinitionDto[];
  journeys?: string[];
  llm?: ProviderChoice & { fallback?: ProviderChoice };
  fallback?: ProviderChoice | null;
  no_match_message?: string;
  failure_reply?: string;
  budget?: StoredBudget | null;
  status?: AgentStatus;
  soul?: AgentView['soul'];
  creation_utc: string;
  /** When a PATCH last changed the agent (absent before the first one, and in records written before this field). */
  updated_at?: string;
}

type StoredBudget = NonNullable<AgentView['budget']>;

/** Budget rules beyond the DTO's (exactly one of tokens and cost_usd, one limit per period and unit). */
function budgetViolations(budget: AgentBudgetDto | null | undefined): ValidationDetail[] {
  if (!budget) return [];
  return budgetProblems({ limits: budget.limits }).map((p) =>
    violation(
      p.field
        .split(/[.[\]]+/)
        .filter(Boolean)
        .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
      p.rule,
      'value_error',
    ),
  );
}

const storedBudget = (budget: AgentBudgetDto | null | undefined): StoredBudget | null =>
  budget
    ? {
        limits: budget.limits.map((l) => ({
          period: l.period,
          ...(l.tokens !== undefined ? { tokens: l.tokens } : {}),
          ...(l.cost_usd !== undefined ? { cost_usd: l.cost_usd } : {}),
        })),
        exhausted_message: budget.exhausted_message ?? DEFAULT_BUDGET_EXHAUSTED_MESSAGE,
        on_exhausted: budget.on_exhausted ?? 'message',
      }
    : null;

const storedSoul = (soul: AgentSoulDto | null | undefined): AgentView['soul'] =>
  soul
    ? {
        ...(soul.document !== undefined ? { document: soul.document } : {}),
        ...(soul.tone !== undefined ? { tone: soul.tone } : {}),
        restrictions: soul.restrictions ?? [],
        forbidden_topics: soul.forbidden_topics ?? [],
      }
    : null;

/** An archived agent is read-only (docs/data-model.md#agents): only its status may change (to bring it back). */
export class AgentArchivedError extends Error {
  readonly code = 'AGENT.ARCHIVED';
  constructor(readonly agentId: string) {
    super(`agent ${agentId} is archived and read-only; PATCH its status to active or inactive first`);
  }
}

function evolve(current: StoredAgent | undefined, event: Pick<StoredEvent, 'type' | 'data'>): StoredAgent | undefined {
  switch (event.type) {
    case 'AgentCreated':
      return event.data as StoredAgent;
    case 'AgentUpdated': {
      if (!current) return undefined;
      const data = event.data as Partial<StoredAgent>;
      return {
        ...current,
        ...data,
        config: { ...current.config, ...data.config },
        matching: { ...current.matching, ...data.matching },
        retrieval: { ...current.retrieval, ...data.retrieval },
      };
    }
    case 'AgentDeleted':
      return undefined;
    default:
      return current;
  }
}

const choice = (c: { provider: LlmProviderName; model?: string | undefined }): ProviderChoice => ({
  provider: c.provider,
  ...(c.model !== undefined ? { model: c.model } : {}),
});
const fallbackOf = (agent: StoredAgent): ProviderChoice | null =>
  agent.fallback !== undefined ? agent.fallback : agent.llm?.fallback ? choice(agent.llm.fallback) : null;

function toolView(tool: ToolDefinitionDto, config: Required<AgentConfigDto>): ToolView {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    timeout_secs: tool.timeout_secs ?? config.tool_timeout_secs,
    allow_failure: tool.allow_failure ?? false,
    retry_config: tool.retry_config
      ? {
          max_attempts: tool.retry_config.max_attempts,
          delay_ms: tool.retry_config.delay_ms,
          backoff_multiplier: tool.retry_config.backoff_multiplier,
        }
      : null,
    metadata: tool.metadata ?? {},
    ...(tool.service_name !== undefined ? { service_name: tool.service_name } : {}),
  };
}

/** The wire view: Parlant's fields, then Tenet's, every default filled in. `llm.fallback` mirrors `fallback`. */
function view(agent: StoredAgent): AgentView {
  const config = { ...defaultAgentConfig, ...agent.config };
  const fallback = fallbackOf(agent);
  return {
    id: agent.id,
    name: agent.name,
    ...(agent.description !== undefined ? { description: agent.description } : {}),
    ...(agent.system_prompt !== undefined ? { system_prompt: agent.system_prompt } : {}),
    max_engine_iterations: agent.max_engine_iterations ?? DEFAULT_MAX_ENGINE_ITERATIONS,
    composition_mode: agent.composition_mode ?? 'fluid',
    message_output_mode: agent.message_output_mode ?? 'block',
    tags: agent.tags ?? [],
    journeys: agent.journeys ?? [],
    config,
    matching: { ...defaultAgentMatching, ...agent.matching },
    retrieval: retrievalOf(agent.retrieval),
    intents: { ...DEFAULT_INTENT_SETTINGS, ...agent.intents },
    tools: (agent.tools ?? []).map((tool) => toolView(tool, config)),
    ...(agent.llm ? { llm: { ...choice(agent.llm), ...(fallback ? { fallback } : {}) } } : {}),
    fallback,
    no_match_message: agent.no_match_message ?? DEFAULT_NO_MATCH_MESSAGE,
    failure_reply: agent.failure_reply ?? DEFAULT_FAILURE_REPLY,
    budget: agent.budget ?? null,
    status: agent.status ?? 'active',
    soul: agent.soul ?? null,
    creation_utc: agent.creation_utc,
    updated_at: agent.updated_at ?? agent.creation_utc,
  };
}

/**
 * Each tool's parameters compile as a JSON Schema of type "object" (with the
 * one tool-argument validator the matcher and the executor use, in the dialect its `$schema` names), metadata values are strings, and tool names are unique.
 */
function toolProblems(tools: readonly ToolDefinitionDto[] | undefined): ValidationDetail[] {
  const problems: ValidationDetail[] = [];
  const seen = new Set<string>();
  for (const [index, tool] of (tools ?? []).entries()) {
    if (seen.has(tool.name))
      problems.push(
        violation(['tools', index, 'name'], `tool name "${tool.name}" is used twice; tool names must be unique per agent`, 'value_error'),
      );
    seen.add(tool.name);
    if (tool.parameters['type'] !== 'object')
      problems.push(violation(['tools', index, 'parameters'], 'parameters must be a JSON Schema with type "object"', 'value_error'));
    else {
      const problem = toolSchemaProblem(tool.parameters);
      if (problem !== undefined)
        problems.push(violation(['tools', index, 'parameters'], `parameters is not a valid JSON Schema: ${problem}`, 'value_error'));
    }
    for (const [key, value] of Object.entries(tool.metadata ?? {})) {
      if (typeof value !== 'string')
        problems.push(violation(['tools', index, 'metadata', key], 'metadata values must be strings', 'type_error.str'));
    }
  }
  return problems;
}

const sameChoice = (a: ProviderChoice | null | undefined, b: ProviderChoice | null | undefined): boolean =>
  (a ?? null) === (b ?? null) || (!!a && !!b && a.provider === b.provider && (a.model ?? '') === (b.model ?? ''));

/**
 * The fallback provider (docs/data-model.md#fallback): given once (top-level `fallback`, or `llm.fallback`), and a different model from
 * the agent's own provider (the offline provider has only one). `loc` names the field the request set.
 */
function fallbackProblems(
  request: { llm?: AgentCreationDto['llm']; fallback?: AgentCreationDto['fallback'] },
  llm: ProviderChoice | undefined,
  fallback: ProviderChoice | null,
): ValidationDetail[] {
  if (request.fallback !== undefined && request.llm?.fallback && !sameChoice(request.fallback, choice(request.llm.fallback))) {
    return [violation(['fallback'], 'fallback and llm.fallback disagree; give the fallback once', 'value_error')];
  }
  if (!llm || !fallback) return [];
  const same = fallback.provider === llm.provider && (llm.provider === 'offline' || (fallback.model ?? '') === (llm.model ?? ''));
  if (!same) return [];
  const loc = request.fallback !== undefined ? ['fallback'] : request.llm?.fallback ? ['llm', 'fallback'] : ['llm'];
  return [violation(loc, 'the fallback must differ from the primary provider and model', 'value_error')];
}

/** Agents are event-sourced: one stream per agent (`agent-<id>`), read models folded from it. */
@Injectable()
export class AgentsRepository {
  private readonly streams: ResourceStreams<StoredAgent>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly journeys: JourneysRepository,
    private readonly services: ServicesRepository,
  ) {
    this.streams = new ResourceStreams(store, PREFIX, 'Agent', evolve);
  }

  /** `journeys` names existing journeys, each once, with unique names (docs/data-model.md#agents). */
  private async journeyProblems(ids: readonly string[] | undefined): Promise<ValidationDetail[]> {
    if (ids === undefined) return [];
    const problems: ValidationDetail[] = [];
    const found: { id: string; title: string }[] = [];
    for (const [index, id] of ids.entries()) {
      const journey = await this.journeys.get(id);
      if (journey) found.push(journey);
      else
        problems.push(
          violation(['journeys', index], `journeys must reference existing journeys: ${id} does not exist`, 'value_error.reference'),
        );
    }
    if (problems.length > 0) return problems;
    return validateAgentJourneys(found).map((v) =>
      violation(['journeys', Number(/\[(\d+)\]/.exec(v.field)?.[1] ?? 0)], `journeys ${v.rule}`, 'value_error'),
    );
  }

  /** A deleted journey leaves every agent's `journeys` list. */
  async forgetJourney(journeyId: string): Promise<void> {
    for (const agent of await this.streams.list()) {
      if (agent.journeys?.includes(journeyId))
        await this.streams.update(agent.id, (current) => ({ journeys: (current.journeys ?? []).filter((id) => id !== journeyId) }));
    }
  }

  /** A tool bound to a service must name a registered service that offers a tool of the same name. */
  private async serviceProblems(tools: readonly ToolDefinitionDto[] | undefined): Promise<ValidationDetail[]> {
    const problems: ValidationDetail[] = [];
    for (const [index, tool] of (tools ?? []).entries()) {
      if (tool.service_name === undefined) continue;
      const service = await this.services.get(tool.service_name);
      if (!service)
        problems.push(
          violation(
            ['tools', index, 'service_name'],
            `tools[].service_name must name a registered service: ${tool.service_name} is not registered`,
            'value_error.reference',
          ),
        );
      else if (!service.tools.some((t) => t.name === tool.name))
        problems.push(
          violation(
            ['tools', index, 'service_name'],
            `service ${tool.service_name} has no tool named ${tool.name}`,
            'value_error.reference',
          ),
        );
    }
    return problems;
  }

  /** Throws `RuleViolationError` (tools, fallback) or `ResourceIdTakenError`; nothing is written then. */
  async create(input: AgentCreationDto, now: Date): Promise<AgentView> {
    const llm = input.llm ? choice(input.llm) : undefined;
    const fallback =
      input.fallback !== undefined ? input.fallback && choice(input.fallback) : input.llm?.fallback ? choice(input.llm.fallback) : null;
    assertNoViolations([
      ...toolProblems(input.tools),
      ...fallbackProblems(input, llm, fallback),
      ...budgetViolations(input.budget),
      ...(await this.serviceProblems(input.tools)),
      ...(await this.journeyProblems(input.journeys)),
    ]);
    const id = input.id ?? newId();
    const agent: StoredAgent = {
      id,
      name: input.name,
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.system_prompt !== undefined ? { system_prompt: input.system_prompt } : {}),
      max_engine_iterations: input.max_engine_iterations ?? DEFAULT_MAX_ENGINE_ITERATIONS,
      composition_mode: input.composition_mode ?? 'fluid',
      message_output_mode: input.message_output_mode ?? 'block',
      tags: [...new Set(input.tags ?? [])],
      config: { ...defaultAgentConfig, ...input.config },
      matching: { ...defaultAgentMatching, ...input.matching },
      ...(input.retrieval ? { retrieval: retrievalOf(input.retrieval) } : {}),
      ...(input.intents ? { intents: { ...DEFAULT_INTENT_SETTINGS, ...input.intents } } : {}),
      tools: input.tools ?? [],
      ...(input.journeys ? { journeys: [...input.journeys] } : {}),
      ...(llm ? { llm } : {}),
      fallback,
      ...(input.no_match_message !== undefined ? { no_match_message: input.no_match_message } : {}),
      ...(input.failure_reply !== undefined ? { failure_reply: input.failure_reply } : {}),
      budget: storedBudget(input.budget),
      status: input.status ?? 'active',
      soul: storedSoul(input.soul),
      creation_utc: now.toISOString(),
    };
    return view(await this.streams.create(id, agent));
  }

  async get(id: string): Promise<AgentView | undefined> {
    const agent = await this.streams.get(id);
    return agent && view(agent);
  }

  async list(): Promise<AgentView[]> {
    return (await this.streams.list()).map(view);
  }

  /**
   * Parlant's PATCH: only what the request names changes (`config`/`matching` merge field by field, `tags` is
   * `{add, remove}`, `fallback: null` clears). Optimistic: appended only if nobody changed the agent since it
   * was read. `undefined` when there is no such agent.
   */
  async update(id: string, changes: AgentUpdateDto, now: Date): Promise<AgentView | undefined> {
    const serviceProblems = await this.serviceProblems(changes.tools);
    const updated = await this.streams.update(id, async (current) => {
      const llm = changes.llm ? choice(changes.llm) : current.llm && choice(current.llm);
      const fallback =
        changes.fallback !== undefined
          ? changes.fallback && choice(changes.fallback)
          : changes.llm?.fallback
            ? choice(changes.llm.fallback)
            : fallbackOf(current);
      if (current.status === 'archived' && Object.keys(changes).some((field) => field !== 'status')) throw new AgentArchivedError(id);
      assertNoViolations([
        ...toolProblems(changes.tools),
        ...fallbackProblems(changes, llm, fallback),
        ...budgetViolations(changes.budget),
        ...serviceProblems,
        ...(await this.journeyProblems(changes.journeys)),
      ]);
      const data: Partial<StoredAgent> = {};
      if (changes.name !== undefined) data.name = changes.name;
      if (changes.description !== undefined) data.description = changes.description;
      if (changes.system_prompt !== undefined) data.system_prompt = changes.system_prompt;
      if (changes.max_engine_iterations !== undefined) data.max_engine_iterations = changes.max_engine_iterations;
      if (changes.composition_mode !== undefined) data.composition_mode = changes.composition_mode;
      if (changes.message_output_mode !== undefined) data.message_output_mode = changes.message_output_mode;
      if (changes.tags) data.tags = patchList(current.tags ?? [], changes.tags);
      if (changes.config) data.config = { ...defaultAgentConfig, ...current.config, ...changes.config };
      if (changes.matching) data.matching = { ...defaultAgentMatching, ...current.matching, ...changes.matching };
      if (changes.retrieval) data.retrieval = retrievalOf({ ...current.retrieval, ...changes.retrieval });
      if (changes.intents) data.intents = { ...DEFAULT_INTENT_SETTINGS, ...current.intents, ...changes.intents };
      if (changes.tools) data.tools = changes.tools;
      if (changes.journeys) data.journeys = [...changes.journeys];
      if (llm && changes.llm) data.llm = llm;
      if (changes.fallback !== undefined || changes.llm) data.fallback = fallback;
      if (changes.no_match_message !== undefined) data.no_match_message = changes.no_match_message;
      if (changes.failure_reply !== undefined) data.failure_reply = changes.failure_reply;
      if (changes.budget !== undefined) data.budget = storedBudget(changes.budget);
      if (changes.status !== undefined) data.status = changes.status;
      if (changes.soul !== undefined) data.soul = storedSoul(changes.soul);
      data.updated_at = now.toISOString();
      return data;
    });
    return updated && view(updated);
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }
}
