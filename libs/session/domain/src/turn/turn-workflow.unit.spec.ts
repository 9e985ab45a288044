import { deciderSpec } from '@tenet/testing';
import type { CompositionMode } from '@tenet/matching-domain';
import {
  decideTurn,
  evolveTurn,
  initialTurnState,
  stepTurn,
  turnErrorTypeOf,
  type AskedToolCall,
  type TurnInput,
  type TurnMessage,
  type TurnState,
} from './turn-workflow.js';

const spec = deciderSpec<TurnInput, TurnMessage, TurnState>({ decide: decideTurn, evolve: evolveTurn, initialState: initialTurnState });

const started: TurnInput = { type: 'TurnStarted', data: {} };
const prepared = (
  over: Partial<{ toolRoundLimit: number; journeys: boolean; memory: boolean; compositionMode: CompositionMode }> = {},
): TurnInput => ({
  type: 'TurnPrepared',
  data: { toolRoundLimit: 3, compositionMode: 'fluid', journeys: false, memory: false, ...over },
});
const call = (name: string, args = '{}', over: Partial<AskedToolCall> = {}): AskedToolCall => ({
  key: `${name}${args}`,
  toolName: name,
  toolId: `svc:${name}`,
  allowFailure: false,
  ...over,
});
const matched = (
  calls: AskedToolCall[] = [],
  over: Partial<{ disambiguation: boolean; compositionModes: (CompositionMode | undefined)[]; handoffGuidelineId: string }> = {},
): TurnInput => ({
  type: 'GuidelinesMatched',
  data: { toolCalls: calls, disambiguation: false, compositionModes: [], ...over },
});
const ran = (...results: { toolId: string; status: 'succeeded' | 'failed'; allowFailure?: boolean; errorCode?: string }[]): TurnInput => ({
  type: 'ToolsRan',
  data: { results: results.map((r) => ({ allowFailure: false, ...r })) },
});
const composedReply = { kind: 'ComposeReply', compositionMode: 'fluid', disambiguation: false } as const;
const afterReply = [{ kind: 'Meter', step: 'compose' }, { kind: 'Checkpoint' }, { kind: 'AppendReply' }, { kind: 'AwaitInput' }] as const;

describe('turn workflow', () => {
  it('starts with a checkpoint and the preparation, then matches', () => {
    spec
      .given([])
      .when(started)
      .then([{ kind: 'Checkpoint' }, { kind: 'Prepare' }]);
    spec
      .given([started])
      .when(prepared())
      .then([{ kind: 'MatchGuidelines', round: 0 }]);
  });

  it('no match: meters, checks, composes in the agent mode, then appends the reply and waits for the customer', () => {
    spec
      .given([started, prepared()])
      .when(matched())
      .then([{ kind: 'Meter', step: 'match' }, { kind: 'Checkpoint' }, composedReply]);
    spec
      .given([started, prepared(), matched(), composedReply])
      .when({ type: 'ReplyComposed', data: {} })
      .then([...afterReply, { kind: 'Complete', outcome: 'ready' }]);
  });

  it('runs the asked tools while the session is AwaitingTool, then matches again with the results', () => {
    spec
      .given([started, prepared()])
      .when(matched([call('lookup')]))
      .then([
        { kind: 'Meter', step: 'match' },
        { kind: 'Checkpoint' },
        { kind: 'AwaitTool', toolIds: ['svc:lookup'] },
        { kind: 'RunTools', round: 0, keys: ['lookup{}'] },
      ]);
    spec
      .given([started, prepared(), matched([call('lookup')]), { kind: 'AwaitTool', toolIds: ['svc:lookup'] }])
      .when(ran({ toolId: 'svc:lookup', status: 'succeeded' }))
      .then([{ kind: 'CompleteTool' }, { kind: 'Checkpoint' }, { kind: 'MatchGuidelines', round: 1 }]);
  });

  it('never runs the same call twice, and stops the tool rounds at the limit', () => {
    const round = (name: string): TurnMessage[] => [
      matched([call(name)]),
      { kind: 'AwaitTool', toolIds: [`svc:${name}`] },
      ran({ toolId: `svc:${name}`, status: 'succeeded' }),
      { kind: 'CompleteTool' },
    ];
    // The same call asked again: nothing new runs.
    spec
      .given([started, prepared(), ...round('a')])
      .when(matched([call('a')]))
      .then([{ kind: 'Meter', step: 'match' }, { kind: 'Checkpoint' }, composedReply]);
    // Three rounds ran (the limit): a fourth call is not run, nor reported.
    spec
      .given([started, prepared(), ...round('a'), ...round('b'), ...round('c')])
      .when(matched([call('d')]))
      .then([{ kind: 'Meter', step: 'match' }, { kind: 'Checkpoint' }, composedReply]);
    // An agent with max_engine_iterations 1 gets one round.
    spec
      .given([started, prepared({ toolRoundLimit: 1 }), ...round('a')])
      .when(matched([call('b')]))
      .then([{ kind: 'Meter', step: 'match' }, { kind: 'Checkpoint' }, composedReply]);
  });

  it('reports a tool that has nowhere to run instead of skipping it silently', () => {
    spec
      .given([started, prepared()])
      .when(matched([call('ghost', '{}', { toolId: undefined }), call('lookup')]))
      .then([
        { kind: 'Meter', step: 'match' },
        { kind: 'Checkpoint' },
        { kind: 'ReportUnrunnableTools', toolNames: ['ghost'] },
        { kind: 'AwaitTool', toolIds: ['svc:lookup'] },
        { kind: 'RunTools', round: 0, keys: ['lookup{}'] },
      ]);
  });

  it('a failed tool that does not allow failure fails the turn: the session leaves AwaitingTool, the customer gets the failure reply', () => {
    const running: TurnMessage[] = [started, prepared(), matched([call('pay')]), { kind: 'AwaitTool', toolIds: ['svc:pay'] }];
    spec
      .given(running)
      .when(ran({ toolId: 'svc:pay', status: 'failed', errorCode: 'TOOLS.HTTP_ERROR' }))
      .then([
        { kind: 'CompleteTool' },
        { kind: 'ReplyFailure', errorType: 'tool_failed' },
        { kind: 'AppendError', code: 'TOOLS.HTTP_ERROR', toolId: 'svc:pay' },
        { kind: 'Complete', outcome: 'error' },
      ]);
    spec
      .given(running)
      .when(ran({ toolId: 'svc:pay', status: 'failed', errorCode: 'TOOLS.TIMEOUT' }))
      .then([
        { kind: 'CompleteTool' },
        { kind: 'ReplyFailure', errorType: 'tool_timeout' },
        { kind: 'AppendError', code: 'TOOLS.TIMEOUT', toolId: 'svc:pay' },
        { kind: 'Complete', outcome: 'error' },
      ]);
  });

  it('a failed tool with allow_failure goes on: its result is matched on like any other', () => {
    spec
      .given([started, prepared(), matched([call('pay', '{}', { allowFailure: true })]), { kind: 'AwaitTool', toolIds: ['svc:pay'] }])
      .when(ran({ toolId: 'svc:pay', status: 'failed', allowFailure: true, errorCode: 'TOOLS.HTTP_ERROR' }))
      .then([{ kind: 'CompleteTool' }, { kind: 'Checkpoint' }, { kind: 'MatchGuidelines', round: 1 }]);
  });

  it('journeys: advanced after memory, with a checkpoint; the journey step may ask for a canned mode', () => {
    const withJourneys = [started, prepared({ journeys: true, memory: true })];
    spec
      .given(withJourneys)
      .when(matched())
      .then([{ kind: 'Meter', step: 'match' }, { kind: 'Checkpoint' }, { kind: 'AwaitMemory' }]);
    spec
      .given([...withJourneys, matched(), { kind: 'AwaitMemory' }])
      .when({ type: 'MemoryReady', data: {} })
      .then([{ kind: 'AdvanceJourneys' }]);
    // Journey start or advance without a mode of its own: the agent's.
    spec
      .given([...withJourneys, matched(), { type: 'MemoryReady', data: {} }])
      .when({ type: 'JourneysAdvanced', data: {} })
      .then([{ kind: 'Checkpoint' }, composedReply]);
    // A step that asks for strict canned replies overrides the agent's fluid mode.
    spec
      .given([...withJourneys, matched(), { type: 'MemoryReady', data: {} }])
      .when({ type: 'JourneysAdvanced', data: { compositionMode: 'strict_canned' } })
      .then([{ kind: 'Checkpoint' }, { kind: 'ComposeReply', compositionMode: 'strict_canned', disambiguation: false }]);
  });

  it('a journey tool step that fails is answered with the failure reply', () => {
    spec
      .given([started, prepared({ journeys: true }), matched(), { kind: 'AdvanceJourneys' }])
      .when({ type: 'TurnFailed', data: { code: 'JOURNEYS.STEP_FAILED', answerCustomer: true } })
      .then([
        { kind: 'ReplyFailure', errorType: 'journey_step_failed' },
        { kind: 'AppendError', code: 'JOURNEYS.STEP_FAILED' },
        { kind: 'Complete', outcome: 'error' },
      ]);
  });

  it('disambiguation: no tool runs, the reply asks the customer to choose', () => {
    spec
      .given([started, prepared()])
      .when(matched([call('lookup')], { disambiguation: true }))
      .then([
        { kind: 'Meter', step: 'match' },
        { kind: 'Checkpoint' },
        { kind: 'ComposeReply', compositionMode: 'fluid', disambiguation: true },
      ]);
  });

  it('canned mode: the most restrictive mode of the agent and the matched guidelines', () => {
    spec
      .given([started, prepared()])
      .when(matched([], { compositionModes: [undefined, 'composited_canned', 'strict_canned'] }))
      .then([
        { kind: 'Meter', step: 'match' },
        { kind: 'Checkpoint' },
        { kind: 'ComposeReply', compositionMode: 'strict_canned', disambiguation: false },
      ]);
    spec
      .given([started, prepared({ compositionMode: 'strict_canned' })])
      .when(matched([], { compositionModes: ['fluid'] }))
      .then([
        { kind: 'Meter', step: 'match' },
        { kind: 'Checkpoint' },
        { kind: 'ComposeReply', compositionMode: 'strict_canned', disambiguation: false },
      ]);
  });

  it('budget exhausted: the agent answers with its budget message, before or during the turn', () => {
    spec
      .given([started])
      .when({ type: 'BudgetRefused', data: {} })
      .then([{ kind: 'AnswerBudgetExhausted' }, { kind: 'Complete', outcome: 'budget_exceeded' }]);
    spec
      .given([started, prepared(), matched([call('a')]), { kind: 'AwaitTool', toolIds: ['svc:a'] }])
      .when({ type: 'BudgetRefused', data: {} })
      .then([{ kind: 'CompleteTool' }, { kind: 'AnswerBudgetExhausted' }, { kind: 'Complete', outcome: 'budget_exceeded' }]);
  });

  it('hand-off mid-turn or a newer customer message cancels the turn, and nothing follows', () => {
    spec
      .given([started, prepared(), matched()])
      .when({ type: 'TurnInterrupted', data: { reason: 'handoff' } })
      .then([{ kind: 'AppendCancelled' }, { kind: 'Complete', outcome: 'cancelled' }]);
    spec
      .given([started, prepared(), matched([call('a')]), { kind: 'AwaitTool', toolIds: ['svc:a'] }])
      .when({ type: 'TurnInterrupted', data: { reason: 'newer_message' } })
      .then([{ kind: 'CompleteTool' }, { kind: 'AppendCancelled' }, { kind: 'Complete', outcome: 'cancelled' }]);
    spec
      .given([started, { kind: 'AppendCancelled' }, { kind: 'Complete', outcome: 'cancelled' }])
      .when(matched())
      .thenNothingHappens();
  });

  it('a guideline that hands off applies after the reply', () => {
    spec
      .given([started, prepared(), matched([], { handoffGuidelineId: 'g-human' }), composedReply])
      .when({ type: 'ReplyComposed', data: {} })
      .then([...afterReply, { kind: 'HandOff', guidelineId: 'g-human' }, { kind: 'Complete', outcome: 'ready' }]);
  });

  it('a journey that failed with on_failure handoff hands the session off after the reply; a guideline hand-off wins', () => {
    const advanced = { type: 'JourneysAdvanced', data: { handoffJourneyId: 'j-refund' } } as const;
    spec
      .given([started, prepared({ journeys: true }), matched(), { type: 'MemoryReady', data: {} }, advanced, composedReply])
      .when({ type: 'ReplyComposed', data: {} })
      .then([...afterReply, { kind: 'HandOffJourney', journeyId: 'j-refund' }, { kind: 'Complete', outcome: 'ready' }]);
    spec
      .given([
        started,
        prepared({ journeys: true }),
        matched([], { handoffGuidelineId: 'g-human' }),
        { type: 'MemoryReady', data: {} },
        advanced,
        composedReply,
      ])
      .when({ type: 'ReplyComposed', data: {} })
      .then([...afterReply, { kind: 'HandOff', guidelineId: 'g-human' }, { kind: 'Complete', outcome: 'ready' }]);
  });

  it('provider down, deadline, lease lost: the technical code stays on the error status', () => {
    spec
      .given([started, prepared()])
      .when({ type: 'TurnFailed', data: { code: 'LLM.UNAVAILABLE', answerCustomer: true } })
      .then([
        { kind: 'ReplyFailure', errorType: 'provider_unavailable' },
        { kind: 'AppendError', code: 'LLM.UNAVAILABLE' },
        { kind: 'Complete', outcome: 'error' },
      ]);
    spec
      .given([started])
      .when({ type: 'TurnFailed', data: { code: 'TURN.TIMEOUT', answerCustomer: true } })
      .then([
        { kind: 'ReplyFailure', errorType: 'deadline' },
        { kind: 'AppendError', code: 'TURN.TIMEOUT' },
        { kind: 'Complete', outcome: 'error' },
      ]);
    spec
      .given([started])
      .when({ type: 'TurnFailed', data: { code: 'TURN.FAILED', answerCustomer: false } })
      .then([
        { kind: 'AppendError', code: 'TURN.FAILED' },
        { kind: 'Complete', outcome: 'error' },
      ]);
  });

  it('maps technical codes to what the customer is told', () => {
    expect(
      [
        'TOOLS.TIMEOUT',
        'TOOLS.FAILED',
        'LLM.RATE_LIMITED',
        'LLM.INVALID_OUTPUT',
        'TURN.TIMEOUT',
        'BUDGET.UNAVAILABLE',
        'BUDGET.EXCEEDED',
        'X',
      ].map(turnErrorTypeOf),
    ).toEqual([
      'tool_timeout',
      'tool_failed',
      'provider_unavailable',
      'provider_invalid_output',
      'deadline',
      'budget_unavailable',
      'budget_exhausted',
      'internal',
    ]);
  });

  it('stepTurn folds the input and its effects', () => {
    const first = stepTurn(initialTurnState(), started);
    const second = stepTurn(stepTurn(first.state, prepared()).state, matched([call('a')]));
    expect(second.state).toMatchObject({ phase: 'RunningTools', awaitingTool: true, asked: ['a{}'] });
  });
});
