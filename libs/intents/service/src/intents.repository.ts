import { randomUUID } from 'node:crypto';
import { crudEvolve, ResourceIdTakenError, ResourceStreams, type EventStore } from '@tenet/event-store';
import { intentAppliesTo, intentsOverlap, RESERVED_INTENT_NAMES, type IntentView } from '@tenet/intents-domain';
import { toolSchemaProblem } from '@tenet/json-schema';
import { parseServiceTool, type CatalogReferences } from './catalog-references.js';
import type { IntentCreationDto, IntentUpdateDto } from './intent.dto.js';

/** One broken rule: `loc` as FastAPI (and the gateway) names it. */
export interface IntentViolation {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A rule that needs more than the body to check was broken; nothing was written. */
export class IntentRuleViolation extends Error {
  readonly code = 'INTENTS.RULE_VIOLATION';
  constructor(readonly details: IntentViolation[]) {
    super(details.map((d) => d.msg).join('; '));
  }
}

/** The id asked for is taken (by a live or deleted intent). */
export class IntentIdTaken extends Error {
  readonly code = 'INTENTS.ID_TAKEN';
}

const violation = (path: (string | number)[], msg: string, type: string): IntentViolation => ({ loc: ['body', ...path], msg, type });

const patchList = (current: readonly string[], patch: { add?: string[] | undefined; remove?: string[] | undefined }): string[] => {
  const removed = new Set(patch.remove ?? []);
  return [...new Set([...current, ...(patch.add ?? [])])].filter((item) => !removed.has(item));
};

/** What a change introduces that must be checked against the catalog (only that, so unrelated edits keep working). */
interface Introduced {
  tags: { values: readonly string[]; path: (string | number)[] };
  name: boolean;
  tool: boolean;
  journey: boolean;
  parameters: boolean;
}

/**
 * Intents, one `intent-<id>` stream each (IntentCreated / IntentUpdated / IntentDeleted; updates carry the whole
 * resulting intent, so clearing a field replays exactly) — the way the gateway's definition resources are stored.
 */
export class IntentsRepository {
  private readonly streams: ResourceStreams<IntentView>;

  constructor(
    store: EventStore,
    private readonly catalog: CatalogReferences,
  ) {
    this.streams = new ResourceStreams(store, 'intent-', 'Intent', crudEvolve<IntentView>('Intent'));
  }

  /** Throws `IntentRuleViolation` or `IntentIdTaken`. `workspace`: the caller's (uniqueness is per agent within it). */
  async create(input: IntentCreationDto, now: Date, workspace: string | undefined): Promise<IntentView> {
    const id = input.id ?? randomUUID();
    const intent: IntentView = {
      id,
      name: input.name,
      description: input.description ?? '',
      examples: input.examples ?? [],
      keywords: input.keywords ?? [],
      parameters: input.parameters ?? null,
      tool: input.tool ?? null,
      journey_id: input.journey_id ?? null,
      tags: [...new Set(input.tags ?? [])],
      creation_utc: now.toISOString(),
    };
    await this.assertValid(intent, workspace, {
      tags: { values: intent.tags, path: ['tags'] },
      name: true,
      tool: true,
      journey: true,
      parameters: true,
    });
    try {
      return await this.streams.create(id, intent);
    } catch (error) {
      if (error instanceof ResourceIdTakenError) throw new IntentIdTaken(error.message);
      throw error;
    }
  }

  get(id: string): Promise<IntentView | undefined> {
    return this.streams.get(id);
  }

  /** All intents, or those carrying any of `tagIds`. */
  async list(tagIds: readonly string[] = []): Promise<IntentView[]> {
    const all = (await this.streams.list()).sort((a, b) => a.creation_utc.localeCompare(b.creation_utc) || a.id.localeCompare(b.id));
    return tagIds.length === 0 ? all : all.filter((i) => i.tags.some((t) => tagIds.includes(t)));
  }

  /** The intents that apply to an agent, of the agent's workspace only, oldest first. */
  async forAgent(agentId: string): Promise<IntentView[]> {
    const agent = await this.catalog.agent(agentId);
    if (!agent) return [];
    const workspace = await this.catalog.ownerOf('agents', agentId);
    const applicable = (await this.list()).filter((i) => intentAppliesTo(i, agentId, agent.tags ?? []));
    const owned = await Promise.all(applicable.map(async (i) => (await this.catalog.ownerOf('intents', i.id)) === workspace));
    return applicable.filter((_, index) => owned[index]);
  }

  /** `undefined` when there is no such intent. Throws `IntentRuleViolation`. */
  update(id: string, changes: IntentUpdateDto, workspace: string | undefined): Promise<IntentView | undefined> {
    return this.streams.change(id, async (current) => {
      const next: IntentView = { ...current };
      if (changes.name !== undefined) next.name = changes.name;
      if (changes.description !== undefined) next.description = changes.description;
      if (changes.examples !== undefined) next.examples = changes.examples;
      if (changes.keywords !== undefined) next.keywords = changes.keywords;
      if (changes.parameters !== undefined) next.parameters = changes.parameters;
      if (changes.tool !== undefined) next.tool = changes.tool;
      if (changes.journey_id !== undefined) next.journey_id = changes.journey_id;
      if (changes.tags) next.tags = patchList(current.tags, changes.tags);
      await this.assertValid(next, workspace, {
        tags: { values: changes.tags?.add ?? [], path: ['tags', 'add'] },
        // A rename, or new tags, may meet an intent of the same name; new tags may leave the tool's agents.
        name: changes.name !== undefined || changes.tags !== undefined,
        tool: changes.tool !== undefined || changes.tags !== undefined,
        journey: changes.journey_id !== undefined,
        parameters: changes.parameters !== undefined,
      });
      return [{ type: 'IntentUpdated', data: next }];
    });
  }

  delete(id: string): Promise<boolean> {
    return this.streams.delete(id);
  }

  private async assertValid(intent: IntentView, workspace: string | undefined, introduced: Introduced): Promise<void> {
    const details: IntentViolation[] = [];
    if (introduced.name && RESERVED_INTENT_NAMES.has(intent.name))
      details.push(violation(['name'], `name ${intent.name} is reserved for the classifier's own outcomes`, 'value_error'));
    for (const [index, tag] of introduced.tags.values.entries()) {
      const missing = await this.catalog.missingTag(tag);
      if (missing)
        details.push(violation([...introduced.tags.path, index], `tags must reference existing tags: ${missing}`, 'value_error.reference'));
    }
    if (intent.tool !== null && intent.journey_id !== null && (introduced.tool || introduced.journey)) {
      details.push(
        violation(
          [introduced.tool ? 'tool' : 'journey_id'],
          'an intent leads to a tool or a journey, not both: give one of tool and journey_id',
          'value_error',
        ),
      );
    }
    if (introduced.parameters && intent.parameters !== null) {
      const problem =
        intent.parameters['type'] !== 'object' ? 'parameters must be a JSON Schema of type object' : toolSchemaProblem(intent.parameters);
      if (problem)
        details.push(
          violation(
            ['parameters'],
            problem.startsWith('parameters') ? problem : `parameters must be a valid JSON Schema: ${problem}`,
            'value_error',
          ),
        );
    }
    if (introduced.journey && intent.journey_id !== null && !(await this.catalog.journeyExists(intent.journey_id))) {
      details.push(
        violation(
          ['journey_id'],
          `journey_id must reference an existing journey: ${intent.journey_id} does not exist`,
          'value_error.reference',
        ),
      );
    }
    const agents = details.length === 0 && (introduced.tool || introduced.name) ? await this.agentsInScope(workspace) : [];
    const serviceTool = intent.tool !== null ? parseServiceTool(intent.tool) : undefined;
    if (introduced.tool && serviceTool && details.length === 0) {
      // Parlant's `service:tool`: a tool of a service registered in the caller's workspace.
      const ours = workspace === undefined || (await this.catalog.ownerOf('services', serviceTool.service)) === workspace;
      if (!ours || !(await this.catalog.serviceHasTool(serviceTool.service, serviceTool.tool))) {
        details.push(
          violation(
            ['tool'],
            `tool must name a tool defined on the agent or a registered service's tool (service:tool): ${intent.tool} is neither`,
            'value_error.reference',
          ),
        );
      }
    } else if (introduced.tool && intent.tool !== null && details.length === 0) {
      const reached = agents.filter((a) => intentAppliesTo(intent, a.id, a.tags ?? []));
      if (!reached.some((a) => (a.tools ?? []).some((t) => t.name === intent.tool))) {
        details.push(
          violation(
            ['tool'],
            `tool must name a tool defined on an agent the intent applies to: ${intent.tool} is not defined`,
            'value_error.reference',
          ),
        );
      }
    }
    if (introduced.name && details.length === 0) {
      const tagsOf = new Map(agents.map((a) => [a.id, a.tags ?? []]));
      const sameName = (await this.list()).filter((other) => other.id !== intent.id && other.name === intent.name);
      for (const other of sameName) {
        if (workspace !== undefined && (await this.catalog.ownerOf('intents', other.id)) !== workspace) continue;
        if (intentsOverlap(intent, other, (agentId) => tagsOf.get(agentId) ?? [])) {
          details.push(
            violation(
              ['name'],
              `name must be unique per agent: intent ${other.id} is already named ${intent.name} for an agent this one applies to`,
              'value_error.unique',
            ),
          );
          break;
        }
      }
    }
    if (details.length > 0) throw new IntentRuleViolation(details);
  }

  /** The agents of the caller's workspace (all of them when no guard ran). */
  private async agentsInScope(workspace: string | undefined) {
    const all = await this.catalog.allAgents();
    if (workspace === undefined) return all;
    const owned = await Promise.all(all.map(async (a) => (await this.catalog.ownerOf('agents', a.id)) === workspace));
    return all.filter((_, index) => owned[index]);
  }
}
