import { Injectable } from '@nestjs/common';
import {
  defaultJourneyTimeouts,
  validateJourney,
  type JourneyDefinition,
  type JourneyFailurePolicy,
  type JourneyReferences,
  type JourneyRuleViolation,
} from '@tenet/journeys-domain';
import { AgentsRepository } from '../agents/agents.repository.js';
import { ResourceIdTakenError, type ValidationDetail, newId, assertNoViolations, violation } from '@tenet/edge';
import { ContextVariablesRepository } from '../context-variables/context-variables.repository.js';
import { GuidelinesRepository } from '../guidelines/guidelines.repository.js';
import { AGENT_TAG_PREFIX, TagReferences } from '../tags/tag-references.js';
import { patchList } from '../tags/tag.dto.js';
import type {
  JourneyCreationDto,
  JourneyFailureDto,
  JourneyRecord,
  JourneyStepDto,
  JourneyTimeoutsDto,
  JourneyTransitionDto,
  JourneyUpdateDto,
} from './journey.dto.js';
import { JourneysRepository } from './journeys.repository.js';
import { serviceToolId, ServicesRepository } from '../services/services.repository.js';

/** `steps[2].required_context[0]` → `['body', 'steps', 2, 'required_context', 0]`, the loc Parlant's 422 carries. */
export const violationDetail = (v: JourneyRuleViolation): ValidationDetail =>
  violation(
    v.field
      .split(/[.[\]]/)
      .filter(Boolean)
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
    `${v.field} ${v.rule}`,
    'value_error.journey',
  );

const steps = (input: JourneyStepDto[]): JourneyDefinition['steps'] =>
  input.map((s) => ({
    id: s.id,
    name: s.name,
    kind: s.kind,
    ...(s.instruction !== undefined ? { instruction: s.instruction } : {}),
    ...(s.tool !== undefined ? { tool: s.tool } : {}),
    required_context: [...(s.required_context ?? [])],
    guidelines: [...(s.guidelines ?? [])],
  }));

const transitions = (input: JourneyTransitionDto[]): JourneyDefinition['transitions'] =>
  input.map((t) => ({
    from: t.from,
    to: t.to,
    ...(t.condition !== undefined ? { condition: t.condition } : {}),
    priority: t.priority ?? 0,
  }));

/** The policy as stored: only the fields its action has (a `step` given with another action is refused by validateJourney). */
const failurePolicy = (input: JourneyFailureDto): JourneyFailurePolicy =>
  (input.action === 'step' || input.step !== undefined
    ? { action: input.action, ...(input.step !== undefined ? { step: input.step } : {}) }
    : { action: input.action }) as JourneyFailurePolicy;

const timeouts = (base: JourneyDefinition['timeouts'], input: JourneyTimeoutsDto | undefined): JourneyDefinition['timeouts'] => ({
  abandon_after_secs: input?.abandon_after_secs ?? base.abandon_after_secs,
  expire_after_secs: input?.expire_after_secs ?? base.expire_after_secs,
});

/** The stored journey as the domain's definition (the decider and the engine read the same shape). */
export const journeyDefinition = (journey: JourneyRecord): JourneyDefinition => ({
  id: journey.id,
  title: journey.title,
  description: journey.description,
  steps: journey.steps,
  transitions: journey.transitions,
  ...(journey.initial_step !== undefined ? { initial_step: journey.initial_step } : {}),
  timeouts: journey.timeouts,
  ...(journey.on_failure !== undefined ? { on_failure: journey.on_failure } : {}),
});

/**
 * Journey definitions as Parlant keeps them: each condition is a guideline tagged `journey:<id>` (what the
 * matcher evaluates to activate the journey; `conditions` lists their ids), deleting the journey deletes the
 * condition guidelines no other resource tagged, and the journey-scoped guidelines (`journey_id`) with it.
 * Every journey rule (docs/data-model.md#journeys) is checked before anything is written.
 */
@Injectable()
export class JourneyCatalog {
  constructor(
    private readonly journeys: JourneysRepository,
    private readonly guidelines: GuidelinesRepository,
    private readonly agents: AgentsRepository,
    private readonly variables: ContextVariablesRepository,
    private readonly tagRefs: TagReferences,
    private readonly services: ServicesRepository,
  ) {}

  async create(input: JourneyCreationDto, now: Date): Promise<JourneyRecord> {
    const id = input.id ?? newId();
    if (await this.journeys.get(id)) throw new ResourceIdTakenError(`journey id ${id} is already taken`);
    const texts = [...new Set([...(input.conditions ?? []), ...(input.triggers ?? [])])];
    const draft: JourneyRecord = {
      id,
      title: input.title,
      description: input.description,
      conditions: [],
      tags: [...new Set(input.tags ?? [])],
      ...(input.composition_mode !== undefined ? { composition_mode: input.composition_mode } : {}),
      labels: [...new Set(input.labels ?? [])],
      priority: input.priority ?? 0,
      steps: steps(input.steps ?? []),
      transitions: transitions(input.transitions ?? []),
      ...(input.initial_step !== undefined ? { initial_step: input.initial_step } : {}),
      timeouts: timeouts(defaultJourneyTimeouts, input.timeouts),
      ...(input.on_failure ? { on_failure: failurePolicy(input.on_failure) } : {}),
      creation_utc: now.toISOString(),
      modified_utc: now.toISOString(),
    };
    const details = await this.tagRefs.check(draft.tags);
    if (input.conditions === undefined && input.triggers === undefined)
      details.push(violation(['conditions'], 'conditions (or triggers) is required', 'value_error.missing'));
    assertNoViolations([...details, ...(await this.problems(draft))]);
    const created = await this.guidelines.createJourneyConditions(id, texts, now);
    try {
      return await this.journeys.create({ ...draft, conditions: created.map((g) => g.id) });
    } catch (error) {
      await this.guidelines.detachFromJourney(
        created.map((g) => g.id),
        id,
      );
      throw error;
    }
  }

  async update(id: string, changes: JourneyUpdateDto, now: Date): Promise<JourneyRecord | undefined> {
    const conditionPatch = {
      add: [...(changes.conditions?.add ?? []), ...(changes.triggers?.add ?? [])],
      remove: [...(changes.conditions?.remove ?? []), ...(changes.triggers?.remove ?? [])],
    };
    let before: string[] = [];
    const updated = await this.journeys.replace(id, async (current) => {
      before = current.conditions;
      const next: JourneyRecord = { ...current, modified_utc: now.toISOString() };
      if (changes.title !== undefined) next.title = changes.title;
      if (changes.description !== undefined) next.description = changes.description;
      if (changes.composition_mode !== undefined) next.composition_mode = changes.composition_mode;
      if (changes.priority !== undefined) next.priority = changes.priority;
      if (changes.tags) next.tags = patchList(current.tags, changes.tags);
      if (changes.labels) next.labels = patchList(current.labels, { add: changes.labels.upsert, remove: changes.labels.remove });
      next.conditions = patchList(current.conditions, conditionPatch);
      if (changes.steps !== undefined) next.steps = steps(changes.steps);
      if (changes.transitions !== undefined) next.transitions = transitions(changes.transitions);
      if (changes.initial_step === null) delete next.initial_step;
      else if (changes.initial_step !== undefined) next.initial_step = changes.initial_step;
      if (changes.timeouts !== undefined) next.timeouts = timeouts(current.timeouts, changes.timeouts);
      if (changes.on_failure === null) delete next.on_failure;
      else if (changes.on_failure !== undefined) next.on_failure = failurePolicy(changes.on_failure);
      const details = await this.tagRefs.check(changes.tags?.add ?? [], ['tags', 'add']);
      const field = changes.conditions?.add !== undefined ? 'conditions' : 'triggers';
      for (const [index, guidelineId] of conditionPatch.add.entries()) {
        if (!(await this.guidelines.get(guidelineId)))
          details.push(
            violation(
              [field, 'add', index],
              `${field}.add must reference existing guidelines: ${guidelineId} does not exist`,
              'value_error.reference',
            ),
          );
      }
      if (changes.steps !== undefined) details.push(...(await this.stepsStillReferenced(next)));
      assertNoViolations([...details, ...(await this.problems(next))]);
      return next;
    });
    if (!updated) return undefined;
    const added = updated.conditions.filter((g) => !before.includes(g));
    const removed = before.filter((g) => !updated.conditions.includes(g));
    await this.guidelines.attachToJourney(added, id);
    await this.guidelines.detachFromJourney(removed, id);
    return updated;
  }

  async delete(id: string): Promise<boolean> {
    const journey = await this.journeys.deleted(id);
    if (!journey) return false;
    await this.guidelines.detachFromJourney(journey.conditions, id);
    await this.guidelines.deleteScopedTo(id);
    await this.agents.forgetJourney(id);
    return true;
  }

  /** A deleted guideline leaves every journey's `conditions` and steps' `guidelines`, so none names nothing. */
  async forgetGuideline(guidelineId: string, now: Date): Promise<void> {
    for (const journey of await this.journeys.list()) {
      if (!journey.conditions.includes(guidelineId) && !journey.steps.some((s) => s.guidelines.includes(guidelineId))) continue;
      await this.journeys.replace(journey.id, async (current) => ({
        ...current,
        conditions: current.conditions.filter((id) => id !== guidelineId),
        steps: current.steps.map((s) => ({ ...s, guidelines: s.guidelines.filter((id) => id !== guidelineId) })),
        modified_utc: now.toISOString(),
      }));
    }
  }

  /** A guideline scoped to a step (`journey_step`) would silently never apply again if that step went away. */
  private async stepsStillReferenced(journey: JourneyRecord): Promise<ValidationDetail[]> {
    const steps = new Set(journey.steps.map((s) => s.id));
    return (await this.guidelines.list())
      .filter((g) => g.journey_id === journey.id && g.journey_step !== undefined && !steps.has(g.journey_step))
      .map((g) =>
        violation(
          ['steps'],
          `steps must keep step ${g.journey_step ?? ''}: guideline ${g.id} is scoped to it (journey_step); change or delete the guideline first`,
          'value_error.reference',
        ),
      );
  }

  /** The journey's references against the catalogs: tools of the agents the journey applies to, context variables, guidelines. */
  private async problems(journey: JourneyRecord): Promise<ValidationDetail[]> {
    const agents = (await this.agents.list()).filter(
      (a) =>
        journey.tags.length === 0 ||
        journey.tags.includes(AGENT_TAG_PREFIX + a.id) ||
        journey.tags.some((t) => a.tags.includes(t)) ||
        a.journeys.includes(journey.id),
    );
    const refs: JourneyReferences = {
      // A tool step runs an agent's tool by name, or a registered service's tool as `service:tool` (Parlant's ids).
      tools: new Set([
        ...agents.flatMap((a) => a.tools.map((t) => t.name)),
        ...(await this.services.list()).flatMap((s) => s.tools.map((t) => serviceToolId(s.name, t.name))),
      ]),
      contextVariables: await this.variables.names(),
      guidelines: new Set((await this.guidelines.list()).map((g) => g.id)),
    };
    return validateJourney(journeyDefinition(journey), refs).map(violationDetail);
  }
}
