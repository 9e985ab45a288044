import { effectiveCompositionMode, type CompositionMode } from '@tenet/matching-domain';

/**
 * One conversation turn as a workflow (emmett's shape): `decide(input, state)` returns the effects to carry
 * out next as data, `evolve` folds inputs (and effects) into the state. The gateway's runner executes each
 * effect through a port and feeds back what happened as the next input, so a turn reads top to bottom here:
 *
 *   TurnStarted → Checkpoint, Prepare → TurnPrepared → MatchGuidelines → GuidelinesMatched
 *     → (AwaitTool, RunTools → ToolsRan → CompleteTool, Checkpoint, MatchGuidelines → GuidelinesMatched)*
 *     → AwaitMemory → MemoryReady → AdvanceJourneys → JourneysAdvanced → ComposeReply → ReplyComposed
 *     → AppendReply, AwaitInput, HandOff? → Complete
 *
 * A checkpoint that finds a newer customer message or a session handed to a human feeds `TurnInterrupted`;
 * a refused budget `BudgetRefused`; anything that cannot complete `TurnFailed`, answered with the agent's
 * failure reply. The payloads (the matcher's replies, tool results) stay with the runner: the workflow
 * decides on what they mean. No clock, no I/O.
 */

/** What the customer-facing `message` of a failed turn says happened (`data.error_type`). */
export type TurnErrorType =
  | 'tool_failed'
  | 'tool_timeout'
  | 'journey_step_failed'
  | 'provider_unavailable'
  | 'provider_invalid_output'
  | 'deadline'
  | 'budget_exhausted'
  | 'budget_unavailable'
  | 'internal';

export const TURN_ERROR_TYPES: readonly TurnErrorType[] = [
  'tool_failed',
  'tool_timeout',
  'journey_step_failed',
  'provider_unavailable',
  'provider_invalid_output',
  'deadline',
  'budget_exhausted',
  'budget_unavailable',
  'internal',
];

/** What the customer is told when a turn cannot complete, unless the agent's `failure_reply` says otherwise. */
export const DEFAULT_FAILURE_REPLY = "I'm sorry, I couldn't complete that just now. Please try again in a moment.";

/** The customer-facing kind of a technical failure code (`LLM.*`, `TURN.*`, `TOOLS.*`, `BUDGET.*`). */
export function turnErrorTypeOf(code: string): TurnErrorType {
  if (code === 'TOOLS.TIMEOUT') return 'tool_timeout';
  if (code.startsWith('TOOLS.')) return 'tool_failed';
  if (code === 'JOURNEYS.STEP_FAILED') return 'journey_step_failed';
  if (code === 'LLM.INVALID_OUTPUT') return 'provider_invalid_output';
  if (code.startsWith('LLM.')) return 'provider_unavailable';
  if (code === 'TURN.TIMEOUT') return 'deadline';
  if (code === 'BUDGET.UNAVAILABLE') return 'budget_unavailable';
  if (code.startsWith('BUDGET.')) return 'budget_exhausted';
  return 'internal';
}

/** A tool call the matcher asked for, resolved against the agent's tools by the runner. */
export interface AskedToolCall {
  /** Identifies the call (tool and arguments): the same call is never run twice in one turn. */
  key: string;
  toolName: string;
  /** `service:tool`; absent when the tool has nowhere to run (reported on `ready`, never silently skipped). */
  toolId?: string;
  allowFailure: boolean;
}

export interface ToolRunResult {
  toolId: string;
  status: 'succeeded' | 'failed';
  allowFailure: boolean;
  /** The executor's code of a failed call (`TOOLS.TIMEOUT`, `TOOLS.FAILED`, …). */
  errorCode?: string;
}

type Message<T extends string, D> = { type: T; data: D };

export type TurnStarted = Message<'TurnStarted', Record<string, never>>;
export type TurnPrepared = Message<
  'TurnPrepared',
  {
    /** Tool rounds allowed: Parlant's 3, or fewer when the agent's `max_engine_iterations` is lower. */
    toolRoundLimit: number;
    /** The agent's own composition mode. */
    compositionMode: CompositionMode;
    journeys: boolean;
    memory: boolean;
  }
>;
export type GuidelinesMatched = Message<
  'GuidelinesMatched',
  {
    toolCalls: readonly AskedToolCall[];
    /** The matcher asks the customer to choose between guidelines: nothing runs, the reply asks. */
    disambiguation: boolean;
    /** The composition modes of the top matches (absent: the guideline sets none). */
    compositionModes: readonly (CompositionMode | undefined)[];
    /** A top match with `metadata.handoff: true`: the session goes to a human after the reply. */
    handoffGuidelineId?: string;
  }
>;
export type ToolsRan = Message<'ToolsRan', { results: readonly ToolRunResult[] }>;
export type MemoryReady = Message<'MemoryReady', Record<string, never>>;
export type JourneysAdvanced = Message<
  'JourneysAdvanced',
  {
    compositionMode?: CompositionMode;
    /** A journey failed this turn and its `on_failure` hands the session to a human: after the reply. */
    handoffJourneyId?: string;
  }
>;
export type ReplyComposed = Message<'ReplyComposed', Record<string, never>>;
export type TurnInterrupted = Message<'TurnInterrupted', { reason: 'newer_message' | 'handoff' }>;
export type BudgetRefused = Message<'BudgetRefused', Record<string, never>>;
export type TurnFailed = Message<
  'TurnFailed',
  {
    code: string;
    /** False when another gateway took the turn over (its lease was lost): that one answers. */
    answerCustomer: boolean;
  }
>;

export type TurnInput =
  | TurnStarted
  | TurnPrepared
  | GuidelinesMatched
  | ToolsRan
  | MemoryReady
  | JourneysAdvanced
  | ReplyComposed
  | TurnInterrupted
  | BudgetRefused
  | TurnFailed;

export type TurnOutcome = 'ready' | 'cancelled' | 'error' | 'budget_exceeded';

export type TurnEffect =
  /** Still the lease holder, no newer customer message, the session still in `auto` mode. */
  | { kind: 'Checkpoint' }
  | { kind: 'Prepare' }
  /** `round` 0 is the first match; later rounds carry the tool results so far. */
  | { kind: 'MatchGuidelines'; round: number }
  | { kind: 'Meter'; step: 'match' | 'compose' }
  | { kind: 'ReportUnrunnableTools'; toolNames: readonly string[] }
  /** Session lifecycle: AwaitingTool while the calls run (docs/data-model.md#sessions). */
  | { kind: 'AwaitTool'; toolIds: readonly string[] }
  | { kind: 'RunTools'; round: number; keys: readonly string[] }
  | { kind: 'CompleteTool' }
  | { kind: 'AwaitMemory' }
  | { kind: 'AdvanceJourneys' }
  | { kind: 'ComposeReply'; compositionMode: CompositionMode; disambiguation: boolean }
  | { kind: 'AppendReply' }
  | { kind: 'AwaitInput' }
  | { kind: 'HandOff'; guidelineId: string }
  /** A failed journey's `on_failure: handoff`, after the customer was told (a session out of `auto` cancels the reply). */
  | { kind: 'HandOffJourney'; journeyId: string }
  | { kind: 'AnswerBudgetExhausted' }
  /** The agent's failure reply, as a `message` carrying `data.error_type`. */
  | { kind: 'ReplyFailure'; errorType: TurnErrorType }
  /** The `error` status: the technical code (and the tool that failed), never a provider's text. */
  | { kind: 'AppendError'; code: string; toolId?: string }
  | { kind: 'AppendCancelled' }
  | { kind: 'Complete'; outcome: TurnOutcome };

export type TurnMessage = TurnInput | TurnEffect;

export type TurnPhase = 'NotStarted' | 'Preparing' | 'Matching' | 'RunningTools' | 'Remembering' | 'Advancing' | 'Composing' | 'Completed';

export interface TurnState {
  phase: TurnPhase;
  toolRoundLimit: number;
  toolRounds: number;
  /** Keys of the calls asked for so far. */
  asked: readonly string[];
  compositionMode: CompositionMode;
  journeys: boolean;
  memory: boolean;
  /** From the latest match. */
  disambiguation: boolean;
  matchedModes: readonly (CompositionMode | undefined)[];
  handoffGuidelineId?: string;
  handoffJourneyId?: string;
  journeyMode?: CompositionMode;
  /** The session is AwaitingTool (to be left whatever happens next). */
  awaitingTool: boolean;
}

export const initialTurnState = (): TurnState => ({
  phase: 'NotStarted',
  toolRoundLimit: 0,
  toolRounds: 0,
  asked: [],
  compositionMode: 'fluid',
  journeys: false,
  memory: false,
  disambiguation: false,
  matchedModes: [],
  awaitingTool: false,
});

/** The calls of a match that are new to the turn (none while the matcher asks the customer to choose, none past the round limit). */
function newCalls(state: TurnState, match: GuidelinesMatched['data']): AskedToolCall[] {
  if (match.disambiguation || state.toolRounds >= state.toolRoundLimit) return [];
  const seen = new Set(state.asked);
  return match.toolCalls.filter((call) => !seen.has(call.key) && (seen.add(call.key), true));
}

const finished = (state: TurnState): boolean => state.phase === 'Completed';

/** After the tool rounds: memory, then journeys, then the reply — each only when the turn has it. */
function afterTools(state: TurnState): TurnEffect[] {
  if (state.memory) return [{ kind: 'AwaitMemory' }];
  return afterMemory(state);
}

function afterMemory(state: TurnState): TurnEffect[] {
  if (state.journeys) return [{ kind: 'AdvanceJourneys' }];
  return compose(state, undefined);
}

/** After the reply: a guideline that hands off wins; else a failed journey whose `on_failure` hands off. */
function handOff(state: TurnState): TurnEffect[] {
  if (state.handoffGuidelineId) return [{ kind: 'HandOff', guidelineId: state.handoffGuidelineId }];
  if (state.handoffJourneyId) return [{ kind: 'HandOffJourney', journeyId: state.handoffJourneyId }];
  return [];
}

function compose(state: TurnState, journeyMode: CompositionMode | undefined): TurnEffect[] {
  // Parlant: the most restrictive canned mode a matched guideline (or the active journey) asks for overrides the agent's own.
  const compositionMode = effectiveCompositionMode(state.compositionMode, [...state.matchedModes, journeyMode]);
  return [{ kind: 'ComposeReply', compositionMode, disambiguation: state.disambiguation }];
}

function onMatched(state: TurnState, match: GuidelinesMatched['data']): TurnEffect[] {
  const meter: TurnEffect[] = [{ kind: 'Meter', step: 'match' }, { kind: 'Checkpoint' }];
  if (match.disambiguation || state.toolRounds >= state.toolRoundLimit)
    return [...meter, ...afterTools({ ...state, disambiguation: match.disambiguation, matchedModes: match.compositionModes })];
  const calls = newCalls(state, match);
  const unrunnable = calls.filter((call) => call.toolId === undefined).map((call) => call.toolName);
  const runnable = calls.filter((call) => call.toolId !== undefined);
  const report: TurnEffect[] = unrunnable.length > 0 ? [{ kind: 'ReportUnrunnableTools', toolNames: unrunnable }] : [];
  if (runnable.length === 0)
    return [...meter, ...report, ...afterTools({ ...state, disambiguation: false, matchedModes: match.compositionModes })];
  return [
    ...meter,
    ...report,
    { kind: 'AwaitTool', toolIds: runnable.map((call) => call.toolId ?? '') },
    { kind: 'RunTools', round: state.toolRounds, keys: runnable.map((call) => call.key) },
  ];
}

function onToolsRan(state: TurnState, results: readonly ToolRunResult[]): TurnEffect[] {
  const fatal = results.find((result) => result.status === 'failed' && !result.allowFailure);
  if (fatal)
    return failure({ ...state, awaitingTool: false }, fatal.errorCode ?? 'TOOLS.FAILED', true, fatal.toolId, [{ kind: 'CompleteTool' }]);
  return [{ kind: 'CompleteTool' }, { kind: 'Checkpoint' }, { kind: 'MatchGuidelines', round: state.toolRounds + 1 }];
}

/** The turn cannot complete: the customer is told (the agent's failure reply), the `error` status keeps the code. */
function failure(state: TurnState, code: string, answerCustomer: boolean, toolId?: string, before: TurnEffect[] = []): TurnEffect[] {
  return [
    ...before,
    ...(state.awaitingTool ? [{ kind: 'CompleteTool' } as const] : []),
    ...(answerCustomer ? [{ kind: 'ReplyFailure', errorType: turnErrorTypeOf(code) } as const] : []),
    { kind: 'AppendError', code, ...(toolId ? { toolId } : {}) },
    { kind: 'Complete', outcome: 'error' },
  ];
}

export function decideTurn(input: TurnInput, state: TurnState): TurnEffect[] {
  if (finished(state)) return [];
  switch (input.type) {
    case 'TurnStarted':
      return [{ kind: 'Checkpoint' }, { kind: 'Prepare' }];
    case 'TurnPrepared':
      return [{ kind: 'MatchGuidelines', round: 0 }];
    case 'GuidelinesMatched':
      return onMatched(state, input.data);
    case 'ToolsRan':
      return onToolsRan(state, input.data.results);
    case 'MemoryReady':
      return afterMemory(state);
    case 'JourneysAdvanced':
      return [{ kind: 'Checkpoint' }, ...compose(state, input.data.compositionMode)];
    case 'ReplyComposed':
      return [
        { kind: 'Meter', step: 'compose' },
        { kind: 'Checkpoint' },
        { kind: 'AppendReply' },
        { kind: 'AwaitInput' },
        ...handOff(state),
        { kind: 'Complete', outcome: 'ready' },
      ];
    case 'TurnInterrupted':
      return [
        ...(state.awaitingTool ? [{ kind: 'CompleteTool' } as const] : []),
        { kind: 'AppendCancelled' },
        { kind: 'Complete', outcome: 'cancelled' },
      ];
    case 'BudgetRefused':
      return [
        ...(state.awaitingTool ? [{ kind: 'CompleteTool' } as const] : []),
        { kind: 'AnswerBudgetExhausted' },
        { kind: 'Complete', outcome: 'budget_exceeded' },
      ];
    case 'TurnFailed':
      return failure(state, input.data.code, input.data.answerCustomer);
    default: {
      const exhaustive: never = input;
      throw new Error(`unknown turn input ${JSON.stringify(exhaustive)}`);
    }
  }
}

function evolveInput(state: TurnState, input: TurnInput): TurnState {
  switch (input.type) {
    case 'TurnStarted':
      return { ...state, phase: 'Preparing' };
    case 'TurnPrepared':
      return { ...state, phase: 'Matching', ...input.data };
    case 'GuidelinesMatched': {
      const calls = newCalls(state, input.data);
      const { disambiguation, compositionModes, handoffGuidelineId } = input.data;
      const next: TurnState = {
        ...state,
        disambiguation,
        matchedModes: compositionModes,
        asked: [...state.asked, ...calls.map((c) => c.key)],
      };
      // The hand-off follows the latest match only.
      delete next.handoffGuidelineId;
      return handoffGuidelineId ? { ...next, handoffGuidelineId } : next;
    }
    case 'ToolsRan':
      return { ...state, toolRounds: state.toolRounds + 1 };
    case 'MemoryReady':
      return { ...state, phase: state.journeys ? 'Advancing' : 'Composing' };
    case 'JourneysAdvanced':
      return {
        ...state,
        phase: 'Composing',
        ...(input.data.compositionMode ? { journeyMode: input.data.compositionMode } : {}),
        ...(input.data.handoffJourneyId ? { handoffJourneyId: input.data.handoffJourneyId } : {}),
      };
    case 'ReplyComposed':
    case 'TurnInterrupted':
    case 'BudgetRefused':
    case 'TurnFailed':
      return state;
    default:
      return state;
  }
}

function evolveEffect(state: TurnState, effect: TurnEffect): TurnState {
  switch (effect.kind) {
    case 'AwaitTool':
      return { ...state, phase: 'RunningTools', awaitingTool: true };
    case 'CompleteTool':
      return { ...state, phase: 'Matching', awaitingTool: false };
    case 'AwaitMemory':
      return { ...state, phase: 'Remembering' };
    case 'AdvanceJourneys':
      return { ...state, phase: 'Advancing' };
    case 'ComposeReply':
      return { ...state, phase: 'Composing' };
    case 'Complete':
      return { ...state, phase: 'Completed', awaitingTool: false };
    default:
      return state;
  }
}

export function evolveTurn(state: TurnState, message: TurnMessage): TurnState {
  return 'kind' in message ? evolveEffect(state, message) : evolveInput(state, message);
}

/** Folds an input and the effects decided for it: what the runner does after each step. */
export function stepTurn(state: TurnState, input: TurnInput): { state: TurnState; effects: TurnEffect[] } {
  const effects = decideTurn(input, state);
  return { state: effects.reduce(evolveTurn, evolveTurn(state, input)), effects };
}
