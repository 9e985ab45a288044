import type { AdvanceJourneysReplyV1, AdvanceJourneysRequestV1, MatchGuidelinesReplyV1 } from '@tenet/contracts';
import type { StoredEvent } from '@tenet/event-store';
import type { JourneyRecord } from '@tenet/catalog-data-access';
import { isJourneyConditionId } from '@tenet/journeys-domain';
import { JourneyTurn, stepFailure } from './turn-journeys.js';

const step = (id: string, kind: 'chat' | 'tool' | 'fork' | 'final', extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  kind,
  required_context: [],
  guidelines: [],
  ...(kind === 'chat' || kind === 'fork' ? { instruction: `do ${id}` } : {}),
  ...extra,
});

const returns: JourneyRecord = {
  id: 'returns',
  title: 'Returns',
  description: 'A return',
  conditions: ['g-return'],
  tags: [],
  labels: [],
  priority: 0,
  steps: [
    step('ask_order', 'chat'),
    step('lookup', 'tool', { tool: 'orders:get' }),
    step('decide', 'fork'),
    step('refund', 'chat'),
    step('exchange', 'chat'),
    step('done', 'final'),
  ],
  transitions: [
    { from: 'ask_order', to: 'lookup', condition: 'gave the order number', priority: 0 },
    { from: 'lookup', to: 'decide', priority: 0 },
    { from: 'decide', to: 'refund', condition: 'wants a refund', priority: 1 },
    { from: 'decide', to: 'exchange', condition: 'wants an exchange', priority: 0 },
    { from: 'refund', to: 'done', priority: 0 },
    { from: 'exchange', to: 'done', priority: 0 },
  ],
  initial_step: 'ask_order',
  timeouts: { abandon_after_secs: 600, expire_after_secs: 6000 },
  creation_utc: '2026-11-26T00:00:00.000Z',
  modified_utc: '2026-11-26T00:00:00.000Z',
};

let offset = 0;
const record = (event: string, data: Record<string, unknown>): StoredEvent =>
  ({
    id: `e${offset}`,
    streamId: 'session-s1',
    offset: offset++,
    position: offset,
    type: 'journey_transition',
    data: { session_id: 's1', source: 'system', correlation_id: 'c0', data: { ...data, event, journey_id: 'returns' } },
    metadata: {},
    recordedAt: '2026-11-26T10:00:00.000Z',
  }) as StoredEvent;
const activated = record('journey_activated', { journeyId: 'returns', sessionId: 's1', step: 'ask_order', resumed: false, at: 1 });
const moved = (from: string, to: string, at: number) =>
  record('journey_transitioned', { journeyId: 'returns', from, to, cause: 'condition', context: {}, at });

const appended: unknown[][] = [];
const armed: unknown[] = [];
const events = { appendRecords: async (_session: string, records: unknown[]) => void appended.push(records) } as never;
const timers = { armSoon: (effects: unknown[]) => void armed.push(...effects) } as never;
const turnWith = (stream: StoredEvent[]) => new JourneyTurn('s1', [returns], stream, events, timers);

const emptyReply = (extra: Partial<AdvanceJourneysReplyV1> = {}): AdvanceJourneysReplyV1 => ({
  events: [],
  states: [],
  pending_conditions: [],
  effects: [],
  rejected: [],
  ...extra,
});
const result = (ids: string[], params: Record<string, Record<string, unknown>> = {}): MatchGuidelinesReplyV1['result'] =>
  ({
    matches: ids.map((id) => ({
      guideline_id: id,
      condition: id,
      relevance_score: 1,
      confidence: 1,
      priority: 0,
      criticality: 'medium',
      reasoning: '',
      tools: [],
      tool_parameters: params[id] ?? {},
    })),
    top_matches: [],
    tools_to_execute: [],
  }) as unknown as MatchGuidelinesReplyV1['result'];

describe('JourneyTurn', () => {
  beforeEach(() => {
    appended.length = 0;
    armed.length = 0;
  });

  it('asks nothing of a session without a journey in progress, and names no active journey', () => {
    const turn = turnWith([]);
    expect(turn.guidelines()).toEqual([]);
    expect(turn.activeJourney).toBeUndefined();
  });

  it("adds the current step's transitions as condition-only guidelines, journey-scoped to the lead journey, with the tool of a tool step they lead to", () => {
    const turn = turnWith([activated]);
    expect(turn.activeJourney).toEqual({ journey_id: 'returns', step_id: 'ask_order' });
    expect(turn.guidelines()).toEqual([
      {
        id: 'journey_returns_transition_0',
        condition: 'gave the order number',
        priority: 0,
        enabled: true,
        tools: ['orders:get'],
        required_context: [],
        continuous: true,
        journey_id: 'returns',
      },
    ]);
    expect(isJourneyConditionId('journey_returns_transition_0')).toBe(true);
  });

  it('adds the branches not taken at steps already walked (backtrack), and an abandoned journey’s step conditions unscoped (resume)', () => {
    const atRefund = turnWith([activated, moved('ask_order', 'lookup', 2), moved('lookup', 'decide', 3), moved('decide', 'refund', 4)]);
    expect(atRefund.guidelines().map((g) => [g.id, g.condition])).toEqual([['journey_returns_backtrack_3', 'wants an exchange']]);
    const abandoned = turnWith([
      activated,
      record('journey_abandoned', { journeyId: 'returns', step: 'ask_order', reason: 'inactive', at: 9 }),
    ]);
    expect(abandoned.activeJourney).toBeUndefined();
    expect(abandoned.guidelines()).toEqual([
      expect.objectContaining({ id: 'journey_returns_resume_0', condition: 'gave the order number' }),
    ]);
    expect(abandoned.guidelines()[0]).not.toHaveProperty('journey_id');
  });

  it('re-ranks the match result without the journey conditions, so they take no top-N place', () => {
    const turn = turnWith([activated]);
    const ranked = turn.withoutConditions(result(['journey_returns_transition_0', 'a', 'b']), 1);
    expect(ranked.matches.map((m) => m.guideline_id)).toEqual(['a', 'b']);
    expect(ranked.top_matches.map((m) => m.guideline_id)).toEqual(['a']);
  });

  it('sends no request when no journey is recorded or matched', async () => {
    const requests: AdvanceJourneysRequestV1[] = [];
    const progress = await turnWith([]).advance(async (r) => (requests.push(r), emptyReply()), {
      correlationId: 'c1',
      matches: [result(['x'])],
      context: {},
      now: 5,
      runTool: async () => undefined,
    });
    expect(requests).toEqual([]);
    expect(progress).toMatchObject({ matched: [], states: [], events: [] });
  });

  it('reports what matched and was evaluated, appends the engine’s events, arms its timers and composes the new step’s instruction', async () => {
    const requests: AdvanceJourneysRequestV1[] = [];
    const reply = emptyReply({
      events: [
        {
          journey_id: 'returns',
          event: { type: 'journey_activated', data: { journeyId: 'returns', sessionId: 's1', step: 'ask_order', resumed: false, at: 5 } },
        },
      ],
      states: [{ journey_id: 'returns', status: 'Active', step_id: 'ask_order', step_history: ['ask_order'] }],
      active_journey: { journey_id: 'returns', step_id: 'ask_order' },
      effects: [{ kind: 'Schedule', timer: 'abandon', session_id: 's1', journey_id: 'returns', job_id: 'j1', delay_ms: 600_000 }],
    });
    const progress = await turnWith([]).advance(async (r) => (requests.push(r), reply), {
      correlationId: 'c1',
      matches: [result(['g-return'])],
      context: { name: 'Sam' },
      now: 5,
      runTool: async () => undefined,
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      session_id: 's1',
      matched: ['returns'],
      recorded: { returns: [] },
      context: { name: 'Sam' },
      now: 5,
    });
    expect(appended).toEqual([
      [
        expect.objectContaining({
          type: 'journey_transition',
          data: expect.objectContaining({
            correlation_id: 'c1',
            data: expect.objectContaining({ event: 'journey_activated', journey_id: 'returns' }),
          }),
        }),
      ],
    ]);
    expect(armed).toEqual(reply.effects);
    expect(progress).toMatchObject({
      matched: ['returns'],
      instruction: { guideline_id: 'journey_returns_step_ask_order', action: 'do ask_order' },
      events: [{ journey_id: 'returns', event: 'journey_activated', step: 'ask_order', resumed: false }],
    });
  });

  it('runs a reached tool step with the arguments extracted for its transition, then asks the engine again with the result', async () => {
    const requests: AdvanceJourneysRequestV1[] = [];
    const ran: [string, Record<string, unknown>][] = [];
    const first = emptyReply({
      events: [
        {
          journey_id: 'returns',
          event: {
            type: 'journey_transitioned',
            data: { journeyId: 'returns', from: 'ask_order', to: 'lookup', cause: 'condition', context: {}, at: 6 },
          },
        },
      ],
      tool_step: { journey_id: 'returns', step_id: 'lookup', tool: 'orders:get' },
    });
    const second = emptyReply({
      states: [{ journey_id: 'returns', status: 'Active', step_id: 'decide', step_history: ['ask_order', 'lookup', 'decide'] }],
      active_journey: { journey_id: 'returns', step_id: 'decide' },
    });
    const progress = await turnWith([activated]).advance(async (r) => (requests.push(r), requests.length === 1 ? first : second), {
      correlationId: 'c2',
      matches: [result(['journey_returns_transition_0'], { journey_returns_transition_0: { 'orders:get': { order_id: '55555' } } })],
      context: { tier: 'gold' },
      now: 6,
      runTool: async (tool, args) => (ran.push([tool, args]), { tool_id: tool, status: 'succeeded', result: { status: 'shipped' } }),
    });
    expect(requests[0]?.evaluated).toEqual({ 'gave the order number': true });
    expect(ran).toEqual([['orders:get', { tier: 'gold', order_id: '55555' }]]);
    expect(requests[1]).toMatchObject({
      matched: [],
      tool_result: { journey_id: 'returns', step_id: 'lookup', result: { status: 'shipped' } },
    });
    // The second request knows the first one's events as recorded.
    expect(requests[1]?.recorded['returns']).toHaveLength(2);
    expect(progress).toMatchObject({
      active: { journey_id: 'returns', step_id: 'decide' },
      tool_step: { step_id: 'lookup', status: 'succeeded' },
      instruction: { action: 'do decide' },
    });
  });

  it('reports a tool step whose tool failed to the engine: its code, a sentence of our own, the failure instruction and the hand-off', async () => {
    const requests: AdvanceJourneysRequestV1[] = [];
    const atTool = emptyReply({
      tool_step: { journey_id: 'returns', step_id: 'lookup', tool: 'orders:get' },
      active_journey: { journey_id: 'returns', step_id: 'lookup' },
    });
    const failedReply = emptyReply({
      events: [
        {
          journey_id: 'returns',
          event: {
            type: 'journey_failed',
            data: { journeyId: 'returns', step: 'lookup', reason: { code: 'TOOLS.TIMEOUT', message: 'x' }, outcome: 'handoff', at: 7 },
          },
        },
      ],
      states: [{ journey_id: 'returns', status: 'Failed', step_id: 'lookup', step_history: ['ask_order', 'lookup'] }],
    });
    const progress = await turnWith([activated, moved('ask_order', 'lookup', 2)]).advance(
      async (r) => (requests.push(r), requests.length === 1 ? atTool : failedReply),
      {
        correlationId: 'c3',
        matches: [result([])],
        context: {},
        now: 7,
        runTool: async (tool) => ({ tool_id: tool, status: 'failed', result: null, error: { code: 'TOOLS.TIMEOUT' } }),
      },
    );
    expect(requests).toHaveLength(2);
    expect(requests[1]?.tool_failure).toEqual({
      journey_id: 'returns',
      step_id: 'lookup',
      code: 'TOOLS.TIMEOUT',
      message: 'the tool orders:get did not answer in time',
    });
    expect(requests[1]?.tool_result).toBeUndefined();
    expect(progress.tool_step).toMatchObject({ status: 'failed' });
    expect(progress.instruction).toMatchObject({
      guideline_id: 'journey_returns_failed',
      action: expect.stringContaining("I'm sorry") as unknown,
    });
    expect(progress.handoff).toEqual({ journey_id: 'returns' });
    expect(progress.events).toEqual([
      expect.objectContaining({ event: 'journey_failed', outcome: 'handoff', reason: { code: 'TOOLS.TIMEOUT', message: 'x' } }),
    ]);
  });

  it('a tool step whose tool the agent cannot run fails as TOOLS.UNRUNNABLE', () => {
    expect(stepFailure('orders:get', undefined)).toEqual({
      code: 'TOOLS.UNRUNNABLE',
      message: 'the agent has no runnable tool orders:get',
    });
    expect(stepFailure('orders:get', { status: 'failed' })).toEqual({ code: 'TOOLS.FAILED', message: 'the tool orders:get failed' });
  });

  it('asks the engine to go back when a branch not taken matches, and counts it as evaluated', async () => {
    const requests: AdvanceJourneysRequestV1[] = [];
    await turnWith([activated, moved('ask_order', 'lookup', 2), moved('lookup', 'decide', 3), moved('decide', 'refund', 4)]).advance(
      async (r) => (requests.push(r), emptyReply()),
      {
        correlationId: 'c4',
        matches: [result(['journey_returns_backtrack_3'])],
        context: {},
        now: 8,
        runTool: async () => undefined,
      },
    );
    expect(requests[0]).toMatchObject({ backtrack: { journey_id: 'returns', to: 'decide' }, evaluated: { 'wants an exchange': true } });
  });
});
