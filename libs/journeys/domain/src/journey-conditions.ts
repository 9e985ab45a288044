import { pendingConditions, resumeConditions, type JourneyState } from './journey-state.js';
import type { JourneyDefinition } from './journey-definition.js';

type Started = Exclude<JourneyState, { status: 'NotStarted' }>;

/** Journey conditions are evaluated as guidelines whose ids start with this (the turn leaves them out of the ranking). */
export const JOURNEY_CONDITION_ID_PREFIX = 'journey_';
export const isJourneyConditionId = (id: string): boolean => id.startsWith(JOURNEY_CONDITION_ID_PREFIX);

/**
 * A journey condition the turn asks the matcher to evaluate, as a guideline without an action (so it never
 * acts, and the matcher's one batched call evaluates it with the agent's guidelines — journeys add no LLM call):
 * - `transition`: an outgoing transition of an active journey's current step (the customer answered the step);
 * - `resume`: the same for a journey the customer abandoned (answering it resumes the journey);
 * - `backtrack`: a branch not taken at an earlier step (the customer changed that answer: go back there).
 * Ids are deterministic (journey, kind, step, index), so recorded provider answers replay.
 */
export interface JourneyCondition {
  id: string;
  journeyId: string;
  kind: 'transition' | 'resume' | 'backtrack';
  condition: string;
  /** The step the condition leaves from (backtrack: the step to go back to). */
  from: string;
  to: string;
  /** The target is a tool step: the matcher extracts its tool's arguments from the same message. */
  tool?: string;
}

/** The conditions one journey asks the matcher to evaluate, given its state in the session. */
export function journeyConditions(journey: JourneyDefinition, state: JourneyState): JourneyCondition[] {
  if (state.status !== 'Active' && state.status !== 'Abandoned') return [];
  const current = (state as Started).currentStep;
  if (current === undefined) return [];
  const stepKind = (id: string) => journey.steps.find((s) => s.id === id);
  const toolOf = (id: string): string | undefined => {
    const step = stepKind(id);
    return step?.kind === 'tool' ? step.tool : undefined;
  };
  const kind = state.status === 'Active' ? 'transition' : 'resume';
  const pending = state.status === 'Active' ? pendingConditions(journey, state) : resumeConditions(journey, state);
  const out: JourneyCondition[] = [];
  journey.transitions.forEach((t, index) => {
    if (t.from !== current || t.condition === undefined || !pending.includes(t.condition)) return;
    const tool = toolOf(t.to);
    out.push({
      id: `${JOURNEY_CONDITION_ID_PREFIX}${journey.id}_${kind}_${index}`,
      journeyId: journey.id,
      kind,
      condition: t.condition,
      from: t.from,
      to: t.to,
      ...(tool !== undefined ? { tool } : {}),
    });
  });
  if (state.status !== 'Active') return out;
  // Branches not taken at the steps already walked (the step after each in the history is the one taken).
  const walked = (state as Started).history.map((h) => h.step_id);
  walked.slice(0, -1).forEach((stepId, i) => {
    const taken = walked[i + 1];
    journey.transitions.forEach((t, index) => {
      if (t.from !== stepId || t.to === taken || t.condition === undefined || out.some((c) => c.condition === t.condition)) return;
      out.push({
        id: `${JOURNEY_CONDITION_ID_PREFIX}${journey.id}_backtrack_${index}`,
        journeyId: journey.id,
        kind: 'backtrack',
        condition: t.condition,
        from: stepId,
        to: t.to,
      });
    });
  });
  return out;
}

/**
 * What the matcher's answer means for the journeys: the conditions that held (`matchedIds`), each condition's
 * text as evaluated (true when any condition with that text held), and the first branch not taken that now holds —
 * the customer changed an earlier answer, so the journey goes back to the step that branch leaves.
 */
export function evaluateJourneyConditions(
  conditions: readonly JourneyCondition[],
  matchedIds: ReadonlySet<string>,
): { held: JourneyCondition[]; evaluated: Record<string, boolean>; backtrack: JourneyCondition | undefined } {
  const held = conditions.filter((c) => matchedIds.has(c.id));
  const evaluated: Record<string, boolean> = {};
  for (const c of conditions) evaluated[c.condition] = evaluated[c.condition] === true || held.includes(c);
  return { held, evaluated, backtrack: held.find((c) => c.kind === 'backtrack') };
}
