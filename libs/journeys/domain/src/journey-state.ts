import { JourneyDomainError } from './errors.js';
import {
  DEFAULT_FAILURE_POLICY,
  outgoing,
  type JourneyDefinition,
  type JourneyStep,
  type JourneyTransition,
} from './journey-definition.js';

/**
 * A session's progress through one journey (docs/data-model.md#journeys) as a decider: `decide(command, state)`
 * returns events, `evolve` folds them, `effectsOf` turns them into timer effects (data) for the app to hand to
 * the scheduling port. Times are epoch milliseconds given by the caller; nothing here reads a clock.
 *
 * The definition travels with each command (the engine loads the current one), so an edited journey applies
 * from the next turn on; a recorded step that no longer exists is reported, never guessed.
 *
 * Transitions from the current step are tried by priority (highest first), conditional before unconditional
 * at equal priority (an unconditional transition is the step's fallback), then in the order they were
 * declared; the first whose condition the matcher evaluated true — or that has none — is taken, provided the
 * step's `required_context` is known. One step per Advance: the customer answers one step at a time.
 */

/** A journey's status. `Failed`: a tool step failed and the journey's `on_failure` ended it (ADR 0030). */
export type JourneyStatus = 'Active' | 'Abandoned' | 'Completed' | 'Expired' | 'Failed';

type Event<T extends string, D> = { type: T; data: D };

export type JourneyActivated = Event<
  'journey_activated',
  { journeyId: string; sessionId: string; step?: string; resumed: boolean; at: number }
>;
export type JourneyTransitioned = Event<
  'journey_transitioned',
  {
    journeyId: string;
    from: string;
    to: string;
    /**
     * Why: a transition's condition held (or it had none), a fork branch was chosen, a tool step finished, an
     * earlier answer changed, or a tool step failed and the journey's `on_failure` names this step.
     */
    cause: 'condition' | 'branch' | 'tool' | 'backtrack' | 'failure';
    condition?: string;
    /** The context the journey knows once it is at `to` (the session's values it was given). */
    context: Record<string, unknown>;
    at: number;
  }
>;
export type JourneyCompleted = Event<'journey_completed', { journeyId: string; step?: string; at: number }>;
export type JourneyAbandoned = Event<'journey_abandoned', { journeyId: string; step?: string; reason: 'inactive' | 'expired'; at: number }>;

/** Why a step failed: a stable code (the tool executor's, e.g. `TOOLS.TIMEOUT`) and a customer-safe sentence (never the tool's own error text). */
export interface JourneyFailureReason {
  code: string;
  message: string;
}
export type JourneyFailed = Event<
  'journey_failed',
  { journeyId: string; step?: string; reason: JourneyFailureReason; outcome: 'end' | 'handoff'; at: number }
>;

export type JourneyEvent = JourneyActivated | JourneyTransitioned | JourneyCompleted | JourneyAbandoned | JourneyFailed;

/** Conditions as the matcher evaluated them this turn, keyed by the condition's text; absent = not evaluated (false). */
export type EvaluatedConditions = Readonly<Record<string, boolean>>;

export type JourneyCommand =
  | { type: 'Activate'; journey: JourneyDefinition; sessionId: string; now: number }
  | { type: 'Advance'; journey: JourneyDefinition; evaluated: EvaluatedConditions; context?: Record<string, unknown>; now: number }
  | { type: 'ChooseBranch'; journey: JourneyDefinition; to: string; now: number }
  | { type: 'CompleteToolStep'; journey: JourneyDefinition; result: unknown; evaluated?: EvaluatedConditions; now: number }
  /** The tool step's tool failed (or cannot run): the journey's `on_failure` decides what follows. */
  | { type: 'FailToolStep'; journey: JourneyDefinition; reason: JourneyFailureReason; now: number }
  /** The customer changed an answer given at `to` (or a decision taken there): go back and continue from it. */
  | { type: 'Backtrack'; journey: JourneyDefinition; to: string; now: number }
  /** Ends a journey that has no steps (Parlant's description-only journey); a stepped journey completes at a final step. */
  | { type: 'Complete'; journey: JourneyDefinition; now: number }
  /** The abandon timer fired. `lastActivityAt`: the customer's latest activity in the session, which may be newer than the last step change. */
  | { type: 'Abandon'; journey: JourneyDefinition; lastActivityAt: number; now: number }
  /** The expiry timer fired for an abandoned journey. */
  | { type: 'Expire'; journey: JourneyDefinition; now: number };

export interface StepHistoryEntry {
  step_id: string;
  entered_at: number;
  exited_at?: number;
}

export type JourneyState =
  | { status: 'NotStarted' }
  | {
      status: JourneyStatus;
      journeyId: string;
      sessionId: string;
      /** Absent for a journey without steps. */
      currentStep?: string;
      context: Record<string, unknown>;
      startedAt: number;
      lastTransitionAt: number;
      abandonedAt?: number;
      /** When the journey failed, and why (status `Failed`). */
      failedAt?: number;
      failure?: JourneyFailureReason & { step?: string };
      history: StepHistoryEntry[];
      /** Counts activations and step changes, so each arms a timer with its own id and older ones are recognised. */
      moves: number;
    };

type Started = Exclude<JourneyState, { status: 'NotStarted' }>;

export const initialJourneyState = (): JourneyState => ({ status: 'NotStarted' });

function started(state: JourneyState, journey: JourneyDefinition): Started {
  if (state.status === 'NotStarted') throw new JourneyDomainError('JOURNEY.NOT_ACTIVE', `journey ${journey.id} has not been activated`);
  if (state.journeyId !== journey.id)
    throw new JourneyDomainError('JOURNEY.WRONG_JOURNEY', `this state belongs to journey ${state.journeyId}, not ${journey.id}`);
  return state;
}

function active(state: JourneyState, journey: JourneyDefinition, command: string): Started {
  const current = started(state, journey);
  if (current.status !== 'Active')
    throw new JourneyDomainError('JOURNEY.NOT_ACTIVE', `${command} needs an active journey; ${journey.id} is ${current.status}`);
  return current;
}

function stepOf(journey: JourneyDefinition, id: string | undefined): JourneyStep | undefined {
  if (id === undefined) return undefined;
  const step = journey.steps.find((s) => s.id === id);
  if (!step)
    throw new JourneyDomainError('JOURNEY.UNKNOWN_STEP', `journey ${journey.id} has no step ${id} (was it removed from the definition?)`);
  return step;
}

/** Outgoing transitions in the order they are tried. */
export function transitionOrder(journey: JourneyDefinition, stepId: string): JourneyTransition[] {
  return outgoing(journey, stepId)
    .map((t, index) => ({ t, index }))
    .sort(
      (a, b) =>
        b.t.priority - a.t.priority || Number(a.t.condition === undefined) - Number(b.t.condition === undefined) || a.index - b.index,
    )
    .map(({ t }) => t);
}

/** The conditions the matcher should evaluate this turn: those of the current step's outgoing transitions. */
export function pendingConditions(journey: JourneyDefinition, state: JourneyState): string[] {
  return state.status === 'Active' ? stepConditions(journey, state.currentStep) : [];
}

/** Conditions of an abandoned journey's step: one of them holding means the customer came back to it (resume). */
export function resumeConditions(journey: JourneyDefinition, state: JourneyState): string[] {
  return state.status === 'Abandoned' ? stepConditions(journey, state.currentStep) : [];
}

const stepConditions = (journey: JourneyDefinition, stepId: string | undefined): string[] =>
  stepId === undefined
    ? []
    : [...new Set(transitionOrder(journey, stepId).flatMap((t) => (t.condition === undefined ? [] : [t.condition])))];

const missingContext = (step: JourneyStep, context: Record<string, unknown>): string[] =>
  step.required_context.filter((name) => context[name] === undefined || context[name] === null);

function firstHolding(journey: JourneyDefinition, stepId: string, evaluated: EvaluatedConditions): JourneyTransition | undefined {
  return transitionOrder(journey, stepId).find((t) => t.condition === undefined || evaluated[t.condition] === true);
}

/** The transition event, plus completion when it lands on a final step. */
function move(
  journey: JourneyDefinition,
  from: string,
  t: Pick<JourneyTransition, 'to' | 'condition'>,
  cause: JourneyTransitioned['data']['cause'],
  context: Record<string, unknown>,
  now: number,
): JourneyEvent[] {
  const data: JourneyTransitioned['data'] = { journeyId: journey.id, from, to: t.to, cause, context, at: now };
  if (t.condition !== undefined) data.condition = t.condition;
  const events: JourneyEvent[] = [{ type: 'journey_transitioned', data }];
  if (stepOf(journey, t.to)?.kind === 'final')
    events.push({ type: 'journey_completed', data: { journeyId: journey.id, step: t.to, at: now } });
  return events;
}

export function decide(command: JourneyCommand, state: JourneyState): JourneyEvent[] {
  const { journey, now } = command;
  switch (command.type) {
    case 'Activate': {
      if (state.status !== 'NotStarted' && state.journeyId !== journey.id) started(state, journey);
      if (state.status === 'Active') return [];
      if (state.status === 'Abandoned') {
        // The customer came back before expiry: continue from the recorded step.
        const data: JourneyActivated['data'] = { journeyId: journey.id, sessionId: state.sessionId, resumed: true, at: now };
        if (state.currentStep !== undefined) data.step = stepOf(journey, state.currentStep)?.id as string;
        return [{ type: 'journey_activated', data }];
      }
      // Never started, completed or expired: start over at the initial step.
      const data: JourneyActivated['data'] = { journeyId: journey.id, sessionId: command.sessionId, resumed: false, at: now };
      if (journey.initial_step !== undefined) data.step = stepOf(journey, journey.initial_step)?.id as string;
      return [{ type: 'journey_activated', data }];
    }
    case 'Advance': {
      const current = active(state, journey, command.type);
      const step = stepOf(journey, current.currentStep);
      if (!step || step.kind === 'final') return [];
      if (step.kind === 'tool')
        throw new JourneyDomainError(
          'JOURNEY.AT_TOOL_STEP',
          `step ${step.id} runs tool ${step.tool ?? ''}; complete it with CompleteToolStep`,
        );
      const context = { ...current.context, ...command.context };
      if (missingContext(step, context).length > 0) return [];
      const next = firstHolding(journey, step.id, command.evaluated);
      return next ? move(journey, step.id, next, 'condition', context, now) : [];
    }
    case 'ChooseBranch': {
      const current = active(state, journey, command.type);
      const step = stepOf(journey, current.currentStep);
      if (!step || step.kind !== 'fork')
        throw new JourneyDomainError('JOURNEY.NOT_A_FORK', `the journey is at ${step?.id ?? 'no step'}, which is not a fork`);
      const branch = outgoing(journey, step.id).find((t) => t.to === command.to);
      if (!branch) throw new JourneyDomainError('JOURNEY.INVALID_BRANCH', `fork ${step.id} has no branch to ${command.to}`);
      return move(journey, step.id, branch, 'branch', current.context, now);
    }
    case 'CompleteToolStep': {
      const current = active(state, journey, command.type);
      const step = stepOf(journey, current.currentStep);
      if (!step || step.kind !== 'tool')
        throw new JourneyDomainError('JOURNEY.NOT_A_TOOL_STEP', `the journey is at ${step?.id ?? 'no step'}, which is not a tool step`);
      const next = firstHolding(journey, step.id, command.evaluated ?? {});
      if (!next)
        throw new JourneyDomainError(
          'JOURNEY.INVALID_BRANCH',
          `no transition from tool step ${step.id} holds; evaluate its conditions first`,
        );
      return move(journey, step.id, next, 'tool', { ...current.context, [step.id]: command.result }, now);
    }
    case 'FailToolStep': {
      const current = active(state, journey, command.type);
      const step = stepOf(journey, current.currentStep);
      if (!step || step.kind !== 'tool')
        throw new JourneyDomainError('JOURNEY.NOT_A_TOOL_STEP', `the journey is at ${step?.id ?? 'no step'}, which is not a tool step`);
      const policy = journey.on_failure ?? DEFAULT_FAILURE_POLICY;
      if (policy.action === 'step') {
        stepOf(journey, policy.step);
        return move(journey, step.id, { to: policy.step }, 'failure', current.context, now);
      }
      return [
        {
          type: 'journey_failed',
          data: {
            journeyId: journey.id,
            step: step.id,
            reason: { code: command.reason.code, message: command.reason.message },
            outcome: policy.action,
            at: now,
          },
        },
      ];
    }
    case 'Backtrack': {
      const current = active(state, journey, command.type);
      stepOf(journey, command.to);
      if (command.to === current.currentStep || !current.history.some((h) => h.step_id === command.to)) {
        throw new JourneyDomainError(
          'JOURNEY.NOT_VISITED',
          `can only go back to an earlier step; ${command.to} was not visited before ${current.currentStep ?? ''}`,
        );
      }
      return [
        {
          type: 'journey_transitioned',
          data: {
            journeyId: journey.id,
            from: current.currentStep as string,
            to: command.to,
            cause: 'backtrack',
            context: current.context,
            at: now,
          },
        },
      ];
    }
    case 'Complete': {
      const current = active(state, journey, command.type);
      if (journey.steps.length > 0)
        throw new JourneyDomainError(
          'JOURNEY.NOT_AT_FINAL_STEP',
          `journey ${journey.id} completes by reaching a final step; it is at ${current.currentStep ?? 'no step'}`,
        );
      return [{ type: 'journey_completed', data: { journeyId: journey.id, at: now } }];
    }
    case 'Abandon': {
      if (state.status !== 'Active') return [];
      const current = started(state, journey);
      // Timers are at-least-once and race with activity: an early or stale one is a no-op, not an error.
      if (now < abandonDueAt(current, journey, command.lastActivityAt)) return [];
      return [{ type: 'journey_abandoned', data: withStep({ journeyId: journey.id, reason: 'inactive', at: now }, current.currentStep) }];
    }
    case 'Expire': {
      if (state.status !== 'Abandoned') return [];
      const current = started(state, journey);
      if (now < (current.abandonedAt ?? current.lastTransitionAt) + journey.timeouts.expire_after_secs * 1000) return [];
      return [{ type: 'journey_abandoned', data: withStep({ journeyId: journey.id, reason: 'expired', at: now }, current.currentStep) }];
    }
    default: {
      const exhaustive: never = command;
      throw new JourneyDomainError('JOURNEY.NOT_ACTIVE', `unknown command ${JSON.stringify(exhaustive)}`);
    }
  }
}

const withStep = <D extends object>(data: D, step: string | undefined): D & { step?: string } =>
  step === undefined ? data : { ...data, step };

/** When an active journey counts as abandoned: `abandon_after_secs` after the later of its last step change and the customer's last activity. */
export const abandonDueAt = (state: Started, journey: Pick<JourneyDefinition, 'timeouts'>, lastActivityAt = 0): number =>
  Math.max(state.lastTransitionAt, lastActivityAt) + journey.timeouts.abandon_after_secs * 1000;

export function evolve(state: JourneyState, event: JourneyEvent): JourneyState {
  const exitLast = (history: StepHistoryEntry[], at: number): StepHistoryEntry[] =>
    history.map((h, i) => (i === history.length - 1 && h.exited_at === undefined ? { ...h, exited_at: at } : h));
  if (event.type === 'journey_activated') {
    const { journeyId, sessionId, step, resumed, at } = event.data;
    if (resumed && state.status !== 'NotStarted') {
      const { abandonedAt: _dropped, ...rest } = state;
      return { ...rest, status: 'Active', lastTransitionAt: at, moves: state.moves + 1 };
    }
    const next: Started = {
      status: 'Active',
      journeyId,
      sessionId,
      context: {},
      startedAt: at,
      lastTransitionAt: at,
      history: step === undefined ? [] : [{ step_id: step, entered_at: at }],
      moves: state.status === 'NotStarted' ? 1 : state.moves + 1,
    };
    if (step !== undefined) next.currentStep = step;
    return next;
  }
  if (state.status === 'NotStarted') return state;
  switch (event.type) {
    case 'journey_transitioned': {
      const { to, at, cause, context } = event.data;
      let history = exitLast(state.history, at);
      // Going back forgets the steps after the revisited one: they will be walked again with the new answer.
      if (cause === 'backtrack') history = history.slice(0, history.map((h) => h.step_id).lastIndexOf(to));
      return {
        ...state,
        currentStep: to,
        context,
        lastTransitionAt: at,
        history: [...history, { step_id: to, entered_at: at }],
        moves: state.moves + 1,
      };
    }
    case 'journey_completed':
      return { ...state, status: 'Completed', history: exitLast(state.history, event.data.at) };
    case 'journey_abandoned':
      return event.data.reason === 'inactive'
        ? { ...state, status: 'Abandoned', abandonedAt: event.data.at }
        : { ...state, status: 'Expired' };
    case 'journey_failed': {
      const { step, reason, at } = event.data;
      return {
        ...state,
        status: 'Failed',
        failedAt: at,
        failure: { code: reason.code, message: reason.message, ...(step !== undefined ? { step } : {}) },
        history: exitLast(state.history, at),
      };
    }
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

export const foldJourney = (events: readonly JourneyEvent[], from: JourneyState = initialJourneyState()): JourneyState =>
  events.reduce(evolve, from);

/** Timer effects as data; the app dispatches them to the scheduling port (BullMQ or in-process). */
export type JourneyEffect =
  | { kind: 'Schedule'; timer: 'abandon' | 'expire'; sessionId: string; journeyId: string; jobId: string; delayMs: number }
  | { kind: 'Cancel'; timer: 'abandon' | 'expire'; sessionId: string; journeyId: string; jobId: string };

export const journeyTimerId = (timer: 'abandon' | 'expire', sessionId: string, journeyId: string, moves: number): string =>
  `journey-${timer}-${sessionId}-${journeyId}-${moves}`;

/**
 * The timer a journey should have pending at `now`, from its state alone: an active journey's abandon timer at
 * `abandonDueAt` (the later of its last step change and the customer's last activity), an abandoned one's expiry.
 * Serves where no event was decided — a stale abandon timer (the customer was active since, so the journey is not
 * abandoned yet, but must be later) and the start-up rebuild of timers a scheduler lost. Its id is the move's id
 * when the due time is the move's own, else suffixed with the due time, so a timer still firing under the move's
 * id is never deduplicated against it; duplicates are harmless (a timer in the wrong state is a no-op).
 */
export function pendingJourneyTimer(
  state: JourneyState,
  journey: Pick<JourneyDefinition, 'timeouts'>,
  now: number,
  lastActivityAt = 0,
): JourneyEffect | undefined {
  if (state.status === 'Active') {
    const due = abandonDueAt(state, journey, lastActivityAt);
    const moveId = journeyTimerId('abandon', state.sessionId, state.journeyId, state.moves);
    return {
      kind: 'Schedule',
      timer: 'abandon',
      sessionId: state.sessionId,
      journeyId: state.journeyId,
      jobId: due === abandonDueAt(state, journey) ? moveId : `${moveId}-at-${due}`,
      delayMs: Math.max(0, due - now),
    };
  }
  if (state.status === 'Abandoned') {
    const due = (state.abandonedAt ?? state.lastTransitionAt) + journey.timeouts.expire_after_secs * 1000;
    return {
      kind: 'Schedule',
      timer: 'expire',
      sessionId: state.sessionId,
      journeyId: state.journeyId,
      jobId: journeyTimerId('expire', state.sessionId, state.journeyId, state.moves),
      delayMs: Math.max(0, due - now),
    };
  }
  return undefined;
}

/**
 * Effects of events just decided against `before`: every activation or step change arms a fresh abandon timer
 * (deterministic id per move, so re-arming never collides with one already firing) and cancels the previous;
 * abandonment arms the expiry timer; completion and expiry cancel what is left.
 */
export function effectsOf(
  before: JourneyState,
  events: readonly JourneyEvent[],
  journey: Pick<JourneyDefinition, 'timeouts'>,
): JourneyEffect[] {
  const effects: JourneyEffect[] = [];
  let state = before;
  for (const event of events) {
    const previous = state;
    state = evolve(state, event);
    if (state.status === 'NotStarted') continue;
    const { sessionId, journeyId } = state;
    const timer = (kind: 'Schedule' | 'Cancel', which: 'abandon' | 'expire', moves: number, delayMs = 0): JourneyEffect =>
      kind === 'Schedule'
        ? { kind, timer: which, sessionId, journeyId, jobId: journeyTimerId(which, sessionId, journeyId, moves), delayMs }
        : { kind, timer: which, sessionId, journeyId, jobId: journeyTimerId(which, sessionId, journeyId, moves) };
    const previousMoves = previous.status === 'NotStarted' ? undefined : previous.moves;
    switch (event.type) {
      case 'journey_activated':
      case 'journey_transitioned':
        if (previousMoves !== undefined) {
          effects.push(timer('Cancel', previous.status === 'Abandoned' ? 'expire' : 'abandon', previousMoves));
        }
        effects.push(timer('Schedule', 'abandon', state.moves, journey.timeouts.abandon_after_secs * 1000));
        break;
      case 'journey_completed':
      case 'journey_failed':
        effects.push(timer('Cancel', 'abandon', state.moves));
        break;
      case 'journey_abandoned':
        effects.push(
          event.data.reason === 'inactive'
            ? timer('Schedule', 'expire', state.moves, journey.timeouts.expire_after_secs * 1000)
            : timer('Cancel', 'expire', state.moves),
        );
        break;
      default:
        break;
    }
  }
  return effects;
}
