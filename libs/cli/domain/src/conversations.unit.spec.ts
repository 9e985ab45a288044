import { behaviourDiff } from './replay.js';
import { checkTurn } from './scenarios.js';
import { renderJunit, renderReport, scenarioPassed, type ScenarioOutcome } from './test-report.js';
import { liveStatus, observeTurn, type SessionEvent, type TurnObservation } from './turn.js';

const event = (offset: number, kind: string, data: Record<string, unknown>): SessionEvent => ({
  id: `e${offset}`,
  kind,
  source: 'ai_agent',
  offset,
  correlation_id: 'c1',
  data,
});

const ORDER_TURN: SessionEvent[] = [
  event(1, 'status', { status: 'processing', data: {} }),
  event(2, 'tool', { tool_calls: [{ tool_id: 'orders:get_order_status', arguments: { order_id: '55555' }, result: {} }] }),
  event(3, 'message', {
    message: 'Your order 55555 is shipped with DHL',
    sources: [{ source_id: 'policies', title: 'Policies', heading: 'Shipping' }],
  }),
  event(4, 'status', {
    status: 'ready',
    data: {
      matched_guidelines: [{ guideline_id: 'order-status', score: 0.7 }],
      tool_calls: [{ tool_id: 'orders:get_order_status', arguments: { order_id: '55555' }, status: 'succeeded' }],
      active_journey: { journey_id: 'return', step_id: 'ask_reason' },
    },
  }),
];

describe('observeTurn: one turn from its events', () => {
  it("takes the reply, the ready report's guidelines, tool calls and journey, and the cited sources", () => {
    expect(observeTurn('Where is 55555?', ORDER_TURN)).toEqual({
      customer: 'Where is 55555?',
      reply: 'Your order 55555 is shipped with DHL',
      matched: [{ id: 'order-status', score: 0.7 }],
      tools: [{ tool: 'orders:get_order_status', arguments: { order_id: '55555' }, status: 'succeeded' }],
      journey: { id: 'return', step: 'ask_reason' },
      citations: [{ source: 'policies', title: 'Policies', heading: 'Shipping' }],
      lastOffset: 4,
    });
  });

  it('reports an error status as the turn error', () => {
    expect(observeTurn('hi', [event(1, 'status', { status: 'error', data: { exception: 'LLM.UNAVAILABLE' } })]).error).toBe(
      '{"exception":"LLM.UNAVAILABLE"}',
    );
  });
});

describe('checkTurn: expectations', () => {
  const turn = observeTurn('Where is 55555?', ORDER_TURN);

  it('passes what happened and explains what did not', () => {
    const results = checkTurn(
      {
        matched: ['order-status', 'refund'],
        not_matched: ['order-status'],
        tool_called: [
          { tool: 'orders:get_order_status', arguments: { order_id: '55555' } },
          { tool: 'orders:get_order_status', arguments: { order_id: '1' } },
        ],
        journey: { id: 'return', step: 'ask_order' },
        reply_contains: ['dhl'],
        reply_not_contains: ['shipped'],
        reply_matches: 'order \\d+ is shipped',
        cited: ['policies', 'faq'],
        variable: { id: 'order', equals: '55555' },
      },
      turn,
      '12345',
    );
    expect(results).toEqual([
      { label: 'no error', passed: true },
      { label: 'matched order-status', passed: true },
      { label: 'matched refund', passed: false, detail: 'matched were [order-status]' },
      { label: 'not matched order-status', passed: false, detail: 'order-status was matched' },
      { label: 'tool orders:get_order_status with {"order_id":"55555"}', passed: true },
      {
        label: 'tool orders:get_order_status with {"order_id":"1"}',
        passed: false,
        detail: 'tool calls were [orders:get_order_status {"order_id":"55555"}]',
      },
      { label: 'journey return at ask_order', passed: false, detail: 'the journey was return at ask_reason' },
      { label: 'reply contains "dhl"', passed: true },
      { label: 'reply does not contain "shipped"', passed: false, detail: 'the reply was "Your order 55555 is shipped with DHL"' },
      { label: 'reply matches /order \\d+ is shipped/', passed: true },
      { label: 'cites policies', passed: true },
      { label: 'cites faq', passed: false, detail: 'cited were [policies]' },
      { label: 'variable order = "55555"', passed: false, detail: 'its value was "12345"' },
    ]);
  });
});

describe('test reports', () => {
  const outcome = (passes: boolean[]): ScenarioOutcome => ({
    file: 'a.yaml',
    name: 'refunds <1>',
    runs: passes.map((passed) => ({
      durationMs: 100,
      turns: [{ customer: 'money back', results: [{ label: 'matched refund', passed, ...(passed ? {} : { detail: 'matched were []' }) }] }],
    })),
  });

  it('counts an expectation that passes in some repeats as flaky, and the scenario as failed', () => {
    const flaky = outcome([true, false, true]);
    expect(scenarioPassed(flaky)).toBe(false);
    expect(renderReport([flaky])).toBe(
      'FAIL refunds <1> (a.yaml) ×3\n  turn 1 "money back": matched refund — passed 2/3 (flaky)\n      matched were []\n0 passed, 1 failed, 1 scenarios',
    );
  });

  it('writes JUnit XML with escaped names and one failure per failed scenario', () => {
    const xml = renderJunit([outcome([true]), { ...outcome([false]), name: 'second' }]);
    expect(xml).toContain('<testsuites name="tenet test" tests="2" failures="1">');
    expect(xml).toContain('<testcase classname="a.yaml" name="refunds &lt;1&gt;" time="0.100"/>');
    expect(xml).toContain(
      '<failure message="turn 1: matched refund (passed 0/1)">turn 1 &quot;money back&quot;: matched refund — matched were []</failure>',
    );
  });
});

describe('behaviourDiff: replayed turns', () => {
  const turn = (matched: string[], reply = 'r'): TurnObservation => ({
    customer: 'c',
    reply,
    matched: matched.map((id) => ({ id })),
    tools: [],
    citations: [],
    lastOffset: 0,
  });

  it('reports only turns whose matched guidelines changed, not replies worded differently', () => {
    expect(
      behaviourDiff([
        { session: 's', turn: 1, recorded: turn(['a', 'b']), replayed: turn(['b', 'a'], 'other wording') },
        { session: 's', turn: 2, recorded: turn(['a']), replayed: turn(['c']) },
      ]),
    ).toEqual([{ session: 's', turn: 2, customer: 'c', added: ['c'], removed: ['a'], recordedReply: 'r', replayedReply: 'r' }]);
  });
});

describe('liveStatus: what tenet chat shows while a turn runs', () => {
  const event = (kind: string, data: Record<string, unknown>): SessionEvent => ({
    id: 'e1',
    offset: 1,
    kind,
    source: 'ai_agent',
    correlation_id: 'c',
    data,
  });
  it('shows the processing and typing statuses and the tools called; nothing for the rest', () => {
    expect(liveStatus(event('status', { status: 'acknowledged' }))).toBeUndefined();
    expect(liveStatus(event('status', { status: 'processing' }))).toBe('processing…');
    expect(liveStatus(event('status', { status: 'typing' }))).toBe('typing…');
    expect(liveStatus(event('tool', { tool_calls: [{ tool_id: 'orders:get_order_status' }, { tool_id: 'crm:lookup' }] }))).toBe(
      'called orders:get_order_status, crm:lookup',
    );
    expect(liveStatus(event('message', { message: 'Hello' }))).toBeUndefined();
    expect(liveStatus(event('status', { status: 'ready' }))).toBeUndefined();
  });
});
