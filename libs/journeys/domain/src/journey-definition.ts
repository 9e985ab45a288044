import type { JourneyRuleViolation } from './errors.js';

/**
 * A journey (docs/data-model.md#journeys): steps of a kind (chat, tool, fork, final) and transitions. Field names are the wire's
 * (snake_case), so a violation's `field` is the path a client sent: `steps[2].id`, `transitions[0].to`.
 *
 * Transitions are listed once at the journey level (`from`/`to`) rather than inside each step, so a diagram
 * and the decider read one list; a terminal step is the step kind `final`.
 */
export const STEP_KINDS = ['chat', 'tool', 'fork', 'final'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export interface JourneyStep {
  id: string;
  name: string;
  kind: StepKind;
  /** What the agent does at this step (required for chat steps). */
  instruction?: string;
  /** The agent tool a tool step runs. */
  tool?: string;
  /** Context variables that must be known before the journey may leave this step. */
  required_context: string[];
  /** Step-specific guideline ids. */
  guidelines: string[];
}

export interface JourneyTransition {
  from: string;
  to: string;
  /** Natural-language condition; absent = unconditional (the step's fallback). */
  condition?: string;
  priority: number;
}

export interface JourneyTimeouts {
  /** No customer activity for this long: the journey is abandoned (the customer may still come back). */
  abandon_after_secs: number;
  /** Abandoned for this long: the journey expires and a returning customer starts over. */
  expire_after_secs: number;
}

/**
 * What a failed tool step (its tool failed, timed out or cannot run) leads to (ADR 0030): `end` (the default) —
 * the journey is `Failed` and the customer is told; `handoff` — the same, and the session goes to a human
 * (mode manual) once the customer has been told; `step` — the journey goes on at `step` (e.g. a chat step that
 * offers another way).
 */
export const FAILURE_ACTIONS = ['end', 'handoff', 'step'] as const;
export type JourneyFailurePolicy = { action: 'end' } | { action: 'handoff' } | { action: 'step'; step: string };
export const DEFAULT_FAILURE_POLICY: JourneyFailurePolicy = { action: 'end' };

export interface JourneyDefinition {
  id: string;
  title: string;
  description: string;
  steps: JourneyStep[];
  transitions: JourneyTransition[];
  /** Required when there are steps; a journey without steps is Parlant's description-only journey. */
  initial_step?: string;
  timeouts: JourneyTimeouts;
  /** Absent: `DEFAULT_FAILURE_POLICY` (end). */
  on_failure?: JourneyFailurePolicy;
}

export const defaultJourneyTimeouts: JourneyTimeouts = { abandon_after_secs: 1_800, expire_after_secs: 86_400 };

/** Known names to check references against; a set left out is not checked (the caller has no such catalog). */
export interface JourneyReferences {
  tools?: ReadonlySet<string>;
  contextVariables?: ReadonlySet<string>;
  guidelines?: ReadonlySet<string>;
}

export const STEP_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const TRANSITION_PRIORITY = { min: -100, max: 100 };
const ABANDON_RANGE = { min: 60, max: 604_800 };
const EXPIRE_RANGE = { min: 60, max: 2_592_000 };

const length = (value: unknown, min: number, max: number): boolean =>
  typeof value === 'string' && value.length >= min && value.length <= max;
const integerIn = (value: unknown, range: { min: number; max: number }): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= range.min && value <= range.max;

export const terminalSteps = (journey: Pick<JourneyDefinition, 'steps'>): JourneyStep[] => journey.steps.filter((s) => s.kind === 'final');

export const outgoing = (journey: Pick<JourneyDefinition, 'transitions'>, stepId: string): JourneyTransition[] =>
  journey.transitions.filter((t) => t.from === stepId);

/**
 * Every journey rule (docs/data-model.md#journeys), returning all violations at once:
 *  1. id non-empty · 2. title 1-100 characters · 3. description 1-1000 characters
 *  4. initial_step references an existing step (required with steps, refused without)
 *  5. step ids unique (and 1-64 characters of [A-Za-z0-9_-]) · 6. transitions reference existing steps
 *  7. step guidelines reference existing guidelines · 8. transition priority an integer from -100 to 100
 * and the graph rules a process needs: every step reachable from the initial step, a final step reachable
 * from every step, final steps without outgoing transitions, other steps with at least one, forks with two or
 * more conditional branches, tool steps naming a defined tool, chat steps with an instruction, at most one
 * unconditional transition per step, no two transitions between the same steps.
 */
export function validateJourney(journey: JourneyDefinition, refs: JourneyReferences = {}): JourneyRuleViolation[] {
  const violations: JourneyRuleViolation[] = [];
  const fail = (field: string, rule: string): void => {
    violations.push({ field, rule });
  };

  if (!length(journey.id, 1, 64)) fail('id', 'must be 1-64 characters');
  if (!length(journey.title, 1, 100)) fail('title', 'must be 1-100 characters');
  if (!length(journey.description, 1, 1000)) fail('description', 'must be 1-1000 characters');
  if (!integerIn(journey.timeouts.abandon_after_secs, ABANDON_RANGE))
    fail('timeouts.abandon_after_secs', `must be an integer from ${ABANDON_RANGE.min} to ${ABANDON_RANGE.max}`);
  if (!integerIn(journey.timeouts.expire_after_secs, EXPIRE_RANGE))
    fail('timeouts.expire_after_secs', `must be an integer from ${EXPIRE_RANGE.min} to ${EXPIRE_RANGE.max}`);
  else if (journey.timeouts.expire_after_secs < journey.timeouts.abandon_after_secs)
    fail('timeouts.expire_after_secs', 'must not be shorter than timeouts.abandon_after_secs');

  const steps = new Map<string, JourneyStep>();
  journey.steps.forEach((step, i) => {
    const at = `steps[${i}]`;
    if (typeof step.id !== 'string' || !STEP_ID_PATTERN.test(step.id)) fail(`${at}.id`, 'must be 1-64 characters of [A-Za-z0-9_-]');
    else if (steps.has(step.id)) fail(`${at}.id`, `must be unique within the journey: ${step.id} is used twice`);
    else steps.set(step.id, step);
    if (!length(step.name, 1, 100)) fail(`${at}.name`, 'must be 1-100 characters');
    if (!(STEP_KINDS as readonly string[]).includes(step.kind)) fail(`${at}.kind`, `must be one of ${STEP_KINDS.join(', ')}`);
    if (step.instruction !== undefined && !length(step.instruction, 1, 2000)) fail(`${at}.instruction`, 'must be 1-2000 characters');
    if (step.kind === 'chat' && step.instruction === undefined) fail(`${at}.instruction`, 'is required for a chat step');
    if (step.kind === 'tool') {
      if (step.tool === undefined) fail(`${at}.tool`, 'is required for a tool step');
      else if (refs.tools && !refs.tools.has(step.tool))
        fail(`${at}.tool`, `must name a tool defined on the agent: ${step.tool} is not defined`);
    } else if (step.tool !== undefined) fail(`${at}.tool`, 'is allowed only on a tool step');
    step.required_context.forEach((name, j) => {
      if (refs.contextVariables && !refs.contextVariables.has(name))
        fail(`${at}.required_context[${j}]`, `must name a defined context variable: ${name} is not defined`);
    });
    step.guidelines.forEach((id, j) => {
      if (refs.guidelines && !refs.guidelines.has(id))
        fail(`${at}.guidelines[${j}]`, `must reference an existing guideline: ${id} does not exist`);
    });
  });

  const failure = journey.on_failure as { action?: unknown; step?: unknown } | undefined;
  if (failure !== undefined) {
    if (!(FAILURE_ACTIONS as readonly unknown[]).includes(failure.action))
      fail('on_failure.action', `must be one of ${FAILURE_ACTIONS.join(', ')}`);
    else if (failure.action === 'step') {
      if (typeof failure.step !== 'string' || !steps.has(failure.step))
        fail('on_failure.step', `must reference an existing step: ${String(failure.step)} does not exist`);
      else if (steps.get(failure.step)?.kind === 'tool')
        fail('on_failure.step', `must not be a tool step: ${failure.step} could fail again`);
    } else if (failure.step !== undefined) fail('on_failure.step', 'is allowed only with action step');
  }

  if (journey.steps.length === 0) {
    if (journey.initial_step !== undefined) fail('initial_step', 'must reference an existing step: the journey has no steps');
    if (journey.transitions.length > 0) fail('transitions', 'must be empty when the journey has no steps');
    return violations;
  }
  if (journey.initial_step === undefined) fail('initial_step', 'is required when the journey has steps');
  else if (!steps.has(journey.initial_step))
    fail('initial_step', `must reference an existing step: ${journey.initial_step} does not exist`);

  const pairs = new Set<string>();
  journey.transitions.forEach((t, i) => {
    const at = `transitions[${i}]`;
    if (!steps.has(t.from)) fail(`${at}.from`, `must reference an existing step: ${String(t.from)} does not exist`);
    if (!steps.has(t.to)) fail(`${at}.to`, `must reference an existing step: ${String(t.to)} does not exist`);
    if (t.condition !== undefined && !length(t.condition, 1, 1000)) fail(`${at}.condition`, 'must be 1-1000 characters');
    if (!integerIn(t.priority, TRANSITION_PRIORITY))
      fail(`${at}.priority`, `must be an integer from ${TRANSITION_PRIORITY.min} to ${TRANSITION_PRIORITY.max}`);
    const pair = `${t.from}\u0000${t.to}`;
    if (pairs.has(pair)) fail(`${at}`, `must not repeat another transition from ${t.from} to ${t.to}`);
    pairs.add(pair);
  });

  journey.steps.forEach((step, i) => {
    if (steps.get(step.id) !== step) return;
    const at = `steps[${i}]`;
    const out = outgoing(journey, step.id);
    if (step.kind === 'final' && out.length > 0)
      fail(`${at}.kind`, `a final step ends the journey: ${step.id} must have no outgoing transitions`);
    if (step.kind !== 'final' && out.length === 0)
      fail(`${at}`, `must have an outgoing transition or be of kind final: ${step.id} is a dead end`);
    if (step.kind === 'fork') {
      if (out.length < 2) fail(`${at}`, `a fork must have at least two outgoing transitions: ${step.id} has ${out.length}`);
      out.forEach((t) => {
        if (t.condition === undefined)
          fail(`transitions[${journey.transitions.indexOf(t)}].condition`, `is required on a branch of fork ${step.id}`);
      });
    } else if (out.filter((t) => t.condition === undefined).length > 1) {
      fail(`${at}`, `must have at most one unconditional outgoing transition: ${step.id} has several, so the next step is ambiguous`);
    }
  });

  if (journey.initial_step !== undefined && steps.has(journey.initial_step)) {
    // A failed tool step leads to on_failure's step (when it names one): an edge of the graph like a transition.
    const failureStep =
      failure?.action === 'step' && typeof failure.step === 'string' && steps.has(failure.step) ? failure.step : undefined;
    const toolSteps = journey.steps.filter((s) => s.kind === 'tool').map((s) => s.id);
    const reachable = closure([journey.initial_step], (id) => [
      ...outgoing(journey, id).map((t) => t.to),
      ...(failureStep !== undefined && toolSteps.includes(id) ? [failureStep] : []),
    ]);
    const canFinish = closure(
      terminalSteps(journey).map((s) => s.id),
      (id) => [...journey.transitions.filter((t) => t.to === id).map((t) => t.from), ...(id === failureStep ? toolSteps : [])],
    );
    if (terminalSteps(journey).length === 0) fail('steps', 'must include a final step so the journey can complete');
    journey.steps.forEach((step, i) => {
      if (steps.get(step.id) !== step) return;
      if (!reachable.has(step.id))
        fail(`steps[${i}]`, `must be reachable from the initial step ${journey.initial_step}: ${step.id} is not`);
      else if (terminalSteps(journey).length > 0 && !canFinish.has(step.id))
        fail(`steps[${i}]`, `must lead to a final step: from ${step.id} the journey can never complete`);
    });
  }
  return violations;
}

/** The ids reachable from `start` (inclusive) following `next`. */
function closure(start: readonly string[], next: (id: string) => string[]): Set<string> {
  const seen = new Set<string>(start);
  const queue = [...start];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const n of next(id)) {
      if (!seen.has(n)) {
        seen.add(n);
        queue.push(n);
      }
    }
  }
  return seen;
}

/** An agent's journeys have unique names (`journeys[i]` paths; docs/data-model.md#agents). */
export function validateAgentJourneys(
  journeys: readonly Pick<JourneyDefinition, 'id' | 'title'>[],
  field = 'journeys',
): JourneyRuleViolation[] {
  const violations: JourneyRuleViolation[] = [];
  const titles = new Set<string>();
  const ids = new Set<string>();
  journeys.forEach((j, i) => {
    if (ids.has(j.id)) violations.push({ field: `${field}[${i}]`, rule: `must not list journey ${j.id} twice` });
    else if (titles.has(j.title))
      violations.push({ field: `${field}[${i}]`, rule: `journey names must be unique within the agent: ${j.title} is used twice` });
    ids.add(j.id);
    titles.add(j.title);
  });
  return violations;
}
