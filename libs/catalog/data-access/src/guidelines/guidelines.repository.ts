import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { AgentsRepository } from '../agents/agents.repository.js';
import { parseServiceToolId, ServicesRepository, serviceToolId } from '../services/services.repository.js';
import { ContextVariablesRepository } from '../context-variables/context-variables.repository.js';
import { patchRecord } from '../customers/customer.dto.js';
import { type ValidationDetail, newId, ResourceStreams, assertNoViolations, violation } from '@tenet/edge';
import { AGENT_TAG_PREFIX, JOURNEY_TAG_PREFIX, TagReferences } from '../tags/tag-references.js';
import { JourneysRepository } from '../journeys/journeys.repository.js';
import { patchList } from '../tags/tag.dto.js';
import type { AgentView } from '../agents/agent.dto.js';
import type { AgentGuideline, GuidelineCreationDto, GuidelineUpdateDto, GuidelineView } from './guideline.dto.js';

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

/** Parlant's scoping: untagged applies to every agent; else it carries `agent:<id>` or one of the agent's tags. */
const appliesTo = (g: GuidelineView, agentId: string, agentTags: readonly string[]): boolean =>
  g.tags.length === 0 || g.tags.includes(AGENT_TAG_PREFIX + agentId) || g.tags.some((tag) => agentTags.includes(tag));

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
    private readonly journeys: JourneysRepository,
    private readonly services: ServicesRepository,
  ) {
    this.streams = new ResourceStreams(store, 'guideline-', 'Guideline', evolve);
  }

  /**
   * Parlant's journey conditions: one guideline per condition text, tagged `journey:<id>` (no action — the
   * matcher evaluates it, and a match activates the journey). Written before the journey itself, whose id the
   * caller has reserved; the texts were validated at the edge.
   */
  async createJourneyConditions(journeyId: string, conditions: readonly string[], now: Date): Promise<GuidelineView[]> {
    const created: GuidelineView[] = [];
    for (const condition of conditions) {
      const id = newId();
      created.push(
        await this.streams.create(id, {
          id,
          condition,
          criticality: 'medium',
          enabled: true,
          tags: [JOURNEY_TAG_PREFIX + journeyId],
          metadata: {},
          track: true,
          labels: [],
          priority: 0,
          tools: [],
          required_context: [],
          creation_utc: now.toISOString(),
        }),
      );
    }
    return created;
  }

  /** Tags existing guidelines as conditions of a journey (Parlant's `conditions.add`). */
  async attachToJourney(ids: readonly string[], journeyId: string): Promise<void> {
    for (const id of ids)
      await this.streams.update(id, (current) => ({
        ...current,
        tags: patchList(current.tags, { add: [JOURNEY_TAG_PREFIX + journeyId] }),
      }));
  }

  /** Parlant's rule: a condition guideline that only this journey tagged is deleted; otherwise it loses the journey's tag. */
  async detachFromJourney(ids: readonly string[], journeyId: string): Promise<void> {
    const tag = JOURNEY_TAG_PREFIX + journeyId;
    for (const id of ids) {
      const guideline = await this.streams.get(id);
      if (!guideline) continue;
      if (guideline.tags.length === 1 && guideline.tags[0] === tag) await this.streams.delete(id);
      else await this.streams.update(id, (current) => ({ ...current, tags: patchList(current.tags, { remove: [tag] }) }));
    }
  }

  /** Guidelines scoped to a deleted journey (`journey_id`) could never apply again: they go with it. */
  async deleteScopedTo(journeyId: string): Promise<void> {
    for (const g of await this.streams.list()) if (g.journey_id === journeyId) await this.streams.delete(g.id);
  }

  async create(input: GuidelineCreationDto, now: Date): Promise<GuidelineView> {
    const id = input.id ?? newId();
    const guideline: GuidelineView = {
      id,
      condition: input.condition,
      ...(present(input.action) ? { action: input.action } : {}),
      ...(present(input.description) ? { description: input.description } : {}),
      ...(present(input.title) ? { title: input.title } : {}),
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
      metadataPath: ['metadata'],
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
   * scoping). Highest priority first, then oldest first, so callers get a stable order. `continuous` is
   * Parlant's `metadata.continuous` (src/parlant/core/engines/alpha/guideline_matching/generic/
   * generic_guideline_matching_strategy.py): such a guideline re-applies whenever its condition holds.
   * `usable` screens each stored guideline before its tags are read (a turn leaves a malformed one out).
   */
  async forAgent(agentId: string, usable: (guideline: GuidelineView) => boolean = () => true): Promise<AgentGuideline[]> {
    const agent = await this.agents.get(agentId);
    // A journey's condition guidelines (tagged `journey:<id>`) apply wherever the journey does, so the matcher
    // evaluates them and a match can activate the journey; with journeys off they are left out.
    const journeyTags = agent ? (await this.journeys.forAgent(agent)).map((j) => JOURNEY_TAG_PREFIX + j.id) : [];
    const applicable = (await this.streams.list()).filter(
      (g) => usable(g) && appliesTo(g, agentId, [...(agent?.tags ?? []), ...journeyTags]),
    );
    return applicable
      .sort((a, b) => b.priority - a.priority || a.creation_utc.localeCompare(b.creation_utc) || a.id.localeCompare(b.id))
      .map((g) => ({ ...g, continuous: g.metadata['continuous'] === true }));
  }

  update(id: string, changes: GuidelineUpdateDto): Promise<GuidelineView | undefined> {
    return this.streams.change(id, async (current) => {
      const next: GuidelineView = { ...current };
      if (changes.condition !== undefined) next.condition = changes.condition;
      if (changes.action !== undefined) next.action = changes.action;
      if (changes.description !== undefined) next.description = changes.description;
      if (changes.title !== undefined) next.title = changes.title;
      if (changes.criticality !== undefined) next.criticality = changes.criticality;
      if (changes.enabled !== undefined) next.enabled = changes.enabled;
      if (changes.tags) next.tags = patchList(current.tags, changes.tags);
      if (changes.metadata) next.metadata = patchRecord(current.metadata, changes.metadata);
      if (changes.composition_mode !== undefined) next.composition_mode = changes.composition_mode;
      if (changes.labels) next.labels = patchList(current.labels, { add: changes.labels.upsert, remove: changes.labels.remove });
      if (changes.priority !== undefined) next.priority = changes.priority;
      if (changes.tools !== undefined) next.tools = [...new Set(changes.tools)];
      // Parlant's tool associations: a registered service's tool is `service:tool`; any other service name (Tenet's
      // own `tenet`, or a name used before services existed) names a tool defined on the agent by `tool_name`.
      const associated = await Promise.all((changes.tool_associations?.add ?? []).map((tool) => this.associationId(tool)));
      const removed = (
        await Promise.all(
          (changes.tool_associations?.remove ?? []).map(async (tool) => [
            serviceToolId(tool.service_name, tool.tool_name),
            await this.associationId(tool),
          ]),
        )
      ).flat();
      if (changes.tool_associations) next.tools = patchList(next.tools, { add: associated, remove: removed });
      if (changes.required_context !== undefined) next.required_context = [...new Set(changes.required_context)];
      if (changes.journey_id === null) delete next.journey_id;
      else if (changes.journey_id !== undefined) next.journey_id = changes.journey_id;
      if (changes.journey_step === null) delete next.journey_step;
      else if (changes.journey_step !== undefined) next.journey_step = changes.journey_step;
      await this.assertValid(next, {
        tags: { values: changes.tags?.add ?? [], path: ['tags', 'add'] },
        tools:
          associated.length > 0
            ? { values: associated, path: ['tool_associations', 'add'] }
            : { values: changes.tools ?? [], path: ['tools'] },
        requiredContext: changes.required_context,
        journeyChanged: changes.journey_id !== undefined || changes.journey_step !== undefined,
        ...(changes.metadata?.set !== undefined ? { metadataPath: ['metadata', 'set'] } : {}),
      });
      return [{ type: 'GuidelineUpdated', data: next }];
    });
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }

  /** How a guideline stores a Parlant tool association: `service:tool` for a registered service, else the agent tool's name. */
  private async associationId(tool: { service_name: string; tool_name: string }): Promise<string> {
    return (await this.services.get(tool.service_name)) ? serviceToolId(tool.service_name, tool.tool_name) : tool.tool_name;
  }

  /** The guideline's references (docs/data-model.md#guidelines); only what the request introduces is checked, so unrelated edits keep working. */
  private async assertValid(
    guideline: GuidelineView,
    refs: References & { journeyChanged?: boolean; metadataPath?: string[] },
  ): Promise<void> {
    const details: ValidationDetail[] = await this.tagRefs.check(refs.tags.values, refs.tags.path);
    // Parlant's continuous flag lives in metadata; anything but a boolean there would be silently ignored.
    // Tenet's hand-off flag (`metadata.handoff: true` switches the session to manual after the reply) likewise.
    for (const flag of ['continuous', 'handoff']) {
      if (refs.metadataPath && guideline.metadata[flag] !== undefined && typeof guideline.metadata[flag] !== 'boolean') {
        details.push(violation([...refs.metadataPath, flag], `metadata.${flag} must be a boolean`, 'type_error.bool'));
      }
    }
    // Tools are defined on agents (docs/data-model.md#tools). Each tool a guideline names must be defined on at least one
    // agent the guideline applies to (agent:<id> tag, or a tag the agent carries); an untagged guideline applies
    // to every agent, so any agent's tool will do.
    // A `service:tool` must be a tool of a registered service.
    if (refs.tools.values.length > 0) {
      const agents = (await this.agents.list()).filter((a) => guideline.tags.length === 0 || appliesTo(guideline, a.id, a.tags));
      const defined = new Set(agents.flatMap((a: AgentView) => a.tools.map((t) => t.name)));
      for (const [index, tool] of refs.tools.values.entries()) {
        const serviceTool = parseServiceToolId(tool);
        const field = refs.tools.path[0] ?? 'tools';
        if (serviceTool) {
          if (!(await this.services.get(serviceTool.service_name)))
            details.push(
              violation(
                [...refs.tools.path, index],
                `${field} must name a registered service: ${serviceTool.service_name} is not registered`,
                'value_error.reference',
              ),
            );
          else if (!(await this.services.tool(serviceTool.service_name, serviceTool.tool_name)))
            details.push(
              violation(
                [...refs.tools.path, index],
                `${field}: service ${serviceTool.service_name} has no tool named ${serviceTool.tool_name}`,
                'value_error.reference',
              ),
            );
        } else if (!defined.has(tool))
          details.push(
            violation(
              [...refs.tools.path, index],
              `${field} must name tools defined on the agent: ${tool} is not defined`,
              'value_error.reference',
            ),
          );
      }
    }
    if (refs.requiredContext && refs.requiredContext.length > 0) {
      const defined = await this.variables.names();
      refs.requiredContext.forEach((name, index) => {
        if (!defined.has(name))
          details.push(
            violation(
              ['required_context', index],
              `required_context must name a defined context variable: ${name} is not defined`,
              'value_error.reference',
            ),
          );
      });
    }
    if (refs.journeyChanged !== false) {
      // journey_id names an existing journey; journey_step one of its steps (a journey without
      // steps has none to name) and never without journey_id.
      const journey = guideline.journey_id !== undefined ? await this.journeys.get(guideline.journey_id) : undefined;
      if (guideline.journey_id !== undefined && !journey)
        details.push(
          violation(
            ['journey_id'],
            `journey_id must reference an existing journey: ${guideline.journey_id} does not exist`,
            'value_error.reference',
          ),
        );
      if (guideline.journey_step !== undefined && guideline.journey_id === undefined)
        details.push(violation(['journey_step'], 'journey_step requires journey_id', 'value_error.missing'));
      if (journey && guideline.journey_step !== undefined && !journey.steps.some((step) => step.id === guideline.journey_step)) {
        details.push(
          violation(
            ['journey_step'],
            `journey_step must name a step of journey ${journey.id}: ${guideline.journey_step} is not one`,
            'value_error.reference',
          ),
        );
      }
    }
    assertNoViolations(details);
  }
}
