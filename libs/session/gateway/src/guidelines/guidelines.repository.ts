import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { AgentsRepository } from '../agents/agents.repository.js';
import { ContextVariablesRepository } from '../context-variables/context-variables.repository.js';
import { patchRecord } from '../customers/customer.dto.js';
import type { ValidationDetail } from '../http/validation.js';
import { newId } from '../ids.js';
import { ResourceStreams } from '../catalog/resource-streams.js';
import { assertNoViolations, violation } from '../tags/rule-violation.js';
import { AGENT_TAG_PREFIX, TagReferences } from '../tags/tag-references.js';
import { patchList } from '../tags/tag.dto.js';
import type { GuidelineCreationDto, GuidelineUpdateDto, GuidelineView } from './guideline.dto.js';

/** Updates carry the whole resulting guideline, so clearing an optional field (`journey_step: null`) replays exactly. */
function evolve(current: GuidelineView | undefined, event: Pick<StoredEvent, 'type' | 'data'>): GuidelineView | undefined {
  switch (event.type) {
    case 'GuidelineCreated':
      return event.data as GuidelineView;
    case 'GuidelineUpdated':
      return current && (event.data as GuidelineView);
    case 'GuidelineDeleted':
      return undefined;
    default:
      return current;
  }
}

const present = <V>(value: V | null | undefined): value is V => value !== null && value !== undefined;

/** What a change introduces that must be checked against other resources. */
interface References {
  tags: { values: readonly string[]; path: string[] };
  tools: { values: readonly string[]; path: string[] };
  requiredContext?: readonly string[] | undefined;
}

/** Guidelines are event-sourced like agents: one `guideline-<id>` stream each. */
@Injectable()
export class GuidelinesRepository {
  private readonly streams: ResourceStreams<GuidelineView>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly tagRefs: TagReferences,
    private readonly variables: ContextVariablesRepository,
    private readonly agents: AgentsRepository,
  ) {
    this.streams = new ResourceStreams(store, 'guideline-', 'Guideline', evolve);
  }

  async create(input: GuidelineCreationDto, now: Date): Promise<GuidelineView> {
    const id = input.id ?? newId();
    const guideline: GuidelineView = {
      id,
      condition: input.condition,
      ...(present(input.action) ? { action: input.action } : {}),
      ...(present(input.description) ? { description: input.description } : {}),
      criticality: input.criticality ?? 'medium',
      enabled: input.enabled ?? true,
      tags: [...new Set(input.tags ?? [])],
      metadata: input.metadata ?? {},
      ...(present(input.composition_mode) ? { composition_mode: input.composition_mode } : {}),
      track: input.track ?? true,
      labels: [...new Set(input.labels ?? [])],
      priority: input.priority ?? 0,
      tools: [...new Set(input.tools ?? [])],
      required_context: [...new Set(input.required_context ?? [])],
      ...(present(input.journey_id) ? { journey_id: input.journey_id } : {}),
      ...(present(input.journey_step) ? { journey_step: input.journey_step } : {}),
      creation_utc: now.toISOString(),
    };
    await this.assertValid(guideline, {
      tags: { values: guideline.tags, path: ['tags'] },
      tools: { values: input.tools ?? [], path: ['tools'] },
      requiredContext: input.required_context ?? [],
    });
    return this.streams.create(id, guideline);
  }

  get(id: string): Promise<GuidelineView | undefined> {
    return this.streams.get(id);
  }

  async list(filter: { tagId?: string | undefined } = {}): Promise<GuidelineView[]> {
    const all = await this.streams.list();
    return filter.tagId === undefined ? all : all.filter((guideline) => guideline.tags.includes(filter.tagId as string));
  }

  /**
   * The guidelines that apply to an agent, enabled and disabled (the matcher filters): untagged ones apply to
   * every agent; tagged ones apply when they carry `agent:<agentId>` or one of the agent's own tags (Parlant's
   * scoping). Highest priority first, then oldest first, so callers get a stable order.
   */
  async forAgent(agentId: string): Promise<GuidelineView[]> {
    const agent = await this.agents.get(agentId);
    const scopes = new Set([AGENT_TAG_PREFIX + agentId, ...(agent?.tags ?? [])]);
    const applicable = (await this.streams.list()).filter((g) => g.tags.length === 0 || g.tags.some((tag) => scopes.has(tag)));
    return applicable.sort((a, b) => b.priority - a.priority || a.creation_utc.localeCompare(b.creation_utc) || a.id.localeCompare(b.id));
  }

  update(id: string, changes: GuidelineUpdateDto): Promise<GuidelineView | undefined> {
    return this.streams.change(id, async (current) => {
      const next: GuidelineView = { ...current };
      if (changes.condition !== undefined) next.condition = changes.condition;
      if (changes.action !== undefined) next.action = changes.action;
      if (changes.description !== undefined) next.description = changes.description;
      if (changes.criticality !== undefined) next.criticality = changes.criticality;
      if (changes.enabled !== undefined) next.enabled = changes.enabled;
      if (changes.tags) next.tags = patchList(current.tags, changes.tags);
      if (changes.metadata) next.metadata = patchRecord(current.metadata, changes.metadata);
      if (changes.composition_mode !== undefined) next.composition_mode = changes.composition_mode;
      if (changes.labels) next.labels = patchList(current.labels, { add: changes.labels.upsert, remove: changes.labels.remove });
      if (changes.priority !== undefined) next.priority = changes.priority;
      if (changes.tools !== undefined) next.tools = [...new Set(changes.tools)];
      if (changes.required_context !== undefined) next.required_context = [...new Set(changes.required_context)];
      if (changes.journey_id === null) delete next.journey_id;
      else if (changes.journey_id !== undefined) next.journey_id = changes.journey_id;
      if (changes.journey_step === null) delete next.journey_step;
      else if (changes.journey_step !== undefined) next.journey_step = changes.journey_step;
      const associated = (changes.tool_associations?.add ?? []).map((tool) => `${tool.service_name}/${tool.tool_name}`);
      await this.assertValid(next, {
        tags: { values: changes.tags?.add ?? [], path: ['tags', 'add'] },
        tools: associated.length > 0 ? { values: associated, path: ['tool_associations', 'add'] } : { values: changes.tools ?? [], path: ['tools'] },
        requiredContext: changes.required_context,
        journeyChanged: changes.journey_id !== undefined || changes.journey_step !== undefined,
      });
      return [{ type: 'GuidelineUpdated', data: next }];
    });
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }

  /** Seed 000 §2 reference rules; only what the request introduces is checked, so unrelated edits keep working. */
  private async assertValid(guideline: GuidelineView, refs: References & { journeyChanged?: boolean }): Promise<void> {
    const details: ValidationDetail[] = await this.tagRefs.check(refs.tags.values, refs.tags.path);
    // Seed 000 §2: tools are defined on agents (§3). A guideline tagged agent:<id> may name that agent's tools;
    // an untagged one applies to every agent and may name a tool any agent defines.
    if (refs.tools.values.length > 0) {
      const agentIds = guideline.tags.filter((t) => t.startsWith(AGENT_TAG_PREFIX)).map((t) => t.slice(AGENT_TAG_PREFIX.length));
      const agents = agentIds.length > 0 ? (await Promise.all(agentIds.map((id) => this.agents.get(id)))).flatMap((a) => (a ? [a] : [])) : await this.agents.list();
      const defined = new Set(agents.flatMap((a) => (a.tools ?? []).map((t) => t.name)));
      refs.tools.values.forEach((tool, index) => {
        if (!defined.has(tool)) details.push(violation([...refs.tools.path, index], `${refs.tools.path[0] ?? 'tools'} must name tools defined on the agent: ${tool} is not defined`, 'value_error.reference'));
      });
    }
    if (refs.requiredContext && refs.requiredContext.length > 0) {
      const defined = await this.variables.names();
      refs.requiredContext.forEach((name, index) => {
        if (!defined.has(name)) details.push(violation(['required_context', index], `required_context must name a defined context variable: ${name} is not defined`, 'value_error.reference'));
      });
    }
    if (refs.journeyChanged !== false) {
      // No journey store exists yet, so no journey can be referenced.
      if (guideline.journey_id !== undefined) details.push(violation(['journey_id'], `journey_id must reference an existing journey: no journeys are defined (${guideline.journey_id})`, 'value_error.reference'));
      if (guideline.journey_step !== undefined && guideline.journey_id === undefined) details.push(violation(['journey_step'], 'journey_step requires journey_id', 'value_error.missing'));
    }
    assertNoViolations(details);
  }
}
