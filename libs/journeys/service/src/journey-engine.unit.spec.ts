import type { AdvanceJourneysRequestV1 } from '@tenet/contracts';
import { JourneyEngine } from './journey-engine.js';

const step = (id: string, kind: 'chat' | 'tool' | 'fork' | 'final', extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  kind,
  required_context: [],
  guidelines: [],
  ...(kind === 'chat' ? { instruction: `do ${id}` } : {}),
  ...extra,
});
const journey = {
  id: 'returns',
  title: 'Returns',
  description: 'A return',
  steps: [step('ask_order', 'chat'), step('lookup', 'tool', { tool: 'orders:get' }), step('reason', 'chat'), step('done', 'final')],
  transitions: [
    { from: 'ask_order', to: 'lookup', condition: 'gave the order number', priority: 0 },
    { from: 'ask_order', to: 'reason', priority: -1 },
    { from: 'lookup', to: 'reason', priority: 0 },
    { from: 'reason', to: 'done', priority: 0 },
  ],
  initial_step: 'ask_order',
  timeouts: { abandon_after_secs: 600, expire_after_secs: 6000 },
} as AdvanceJourneysRequestV1['journeys'][number];

const request = (extra: Partial<AdvanceJourneysRequestV1>): AdvanceJourneysRequestV1 => ({
  session_id: 's1',
  correlation_id: 'c',
  now: 10,
  journeys: [journey],
  recorded: {},
  matched: [],
  evaluated: {},
  context: {},
  ...extra,
});
const activated = {
  type: 'journey_activated' as const,
  data: { journeyId: 'returns', sessionId: 's1', step: 'ask_order', resumed: false, at: 1 },
};

describe('JourneyEngine.advance', () => {
  const engine = new JourneyEngine();

  it('a journey that starts this turn waits at its first step: no transition, not even an unconditional fallback', () => {
    const reply = engine.advance(request({ matched: ['returns'], evaluated: { 'gave the order number': true } }));
    expect(reply.events.map((e) => e.event.type)).toEqual(['journey_activated']);
    expect(reply.states).toEqual([{ journey_id: 'returns', status: 'Active', step_id: 'ask_order', step_history: ['ask_order'] }]);
  });

  it('an active journey moves on its evaluated condition and names the tool step it reached', () => {
    const reply = engine.advance(request({ recorded: { returns: [activated] }, evaluated: { 'gave the order number': true } }));
    expect(reply.active_journey).toEqual({ journey_id: 'returns', step_id: 'lookup' });
    expect(reply.tool_step).toEqual({ journey_id: 'returns', step_id: 'lookup', tool: 'orders:get' });
  });

  it('a tool result for the step the same request reaches completes it at once', () => {
    const reply = engine.advance(
      request({
        recorded: { returns: [activated] },
        evaluated: { 'gave the order number': true },
        tool_result: { journey_id: 'returns', step_id: 'lookup', result: { ok: true } },
      }),
    );
    expect(reply.events.map((e) => [e.event.type, e.event.data['to']])).toEqual([
      ['journey_transitioned', 'lookup'],
      ['journey_transitioned', 'reason'],
    ]);
    expect(reply.active_journey).toEqual({ journey_id: 'returns', step_id: 'reason' });
    expect(reply.tool_step).toBeUndefined();
  });
});
