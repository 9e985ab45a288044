import { sessionActivity } from './session-activity.js';

const at = (seconds: number): string => new Date(Date.UTC(2026, 10, 27, 10, 0, seconds)).toISOString();
const message = (seconds: number, source: string) => ({
  type: 'message',
  recordedAt: at(seconds),
  data: { source, data: { message: 'hi' } },
});
const ready = (seconds: number, usage: { input_tokens: number; output_tokens: number; cost_estimate_usd: number }[]) => ({
  type: 'status',
  recordedAt: at(seconds),
  data: { source: 'ai_agent', data: { status: 'ready', data: { usage } } },
});
const journey = (seconds: number, data: Record<string, unknown>) => ({
  type: 'journey_transition',
  recordedAt: at(seconds),
  data: { session_id: 's', source: 'system', correlation_id: 'c', data },
});

describe('sessionActivity', () => {
  it('a new session: created is the last activity, nothing counted, no journey', () => {
    expect(sessionActivity([], at(0))).toEqual({
      last_activity_at: at(0),
      message_count: 0,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_estimate_usd: 0, turns: 0 },
    });
  });

  it('counts messages, sums the tokens of every ready status and takes the last message as the last activity', () => {
    const activity = sessionActivity(
      [
        message(1, 'customer'),
        ready(2, [
          { input_tokens: 100, output_tokens: 20, cost_estimate_usd: 0.001 },
          { input_tokens: 50, output_tokens: 10, cost_estimate_usd: 0.0005 },
        ]),
        message(2, 'ai_agent'),
        message(9, 'customer'),
      ],
      at(0),
    );
    expect(activity).toMatchObject({
      last_activity_at: at(9),
      message_count: 3,
      usage: { input_tokens: 150, output_tokens: 30, total_tokens: 180, cost_estimate_usd: 0.0015, turns: 1 },
    });
  });

  it('shows the journey in progress with its step history and timestamps, and none once it completed', () => {
    const t = (seconds: number): number => Date.parse(at(seconds));
    const started = journey(1, {
      event: 'journey_activated',
      journey_id: 'returns',
      journeyId: 'returns',
      sessionId: 's',
      step: 'ask_order',
      resumed: false,
      at: t(1),
    });
    const moved = journey(5, {
      event: 'journey_transitioned',
      journey_id: 'returns',
      journeyId: 'returns',
      from: 'ask_order',
      to: 'lookup',
      cause: 'condition',
      context: { order: '123' },
      at: t(5),
    });
    expect(sessionActivity([started, moved], at(0)).active_journey).toEqual({
      journey_id: 'returns',
      status: 'Active',
      step: 'lookup',
      started_at: at(1),
      updated_at: at(5),
      history: [
        { step_id: 'ask_order', entered_at: at(1), exited_at: at(5) },
        { step_id: 'lookup', entered_at: at(5) },
      ],
      context: { order: '123' },
    });
    const completed = journey(8, { event: 'journey_completed', journey_id: 'returns', journeyId: 'returns', step: 'lookup', at: t(8) });
    expect(sessionActivity([started, moved, completed], at(0)).active_journey).toBeUndefined();
  });
});
