import type { MatchGuidelinesReplyV1 } from '@tenet/contracts';
import { InMemoryEventStore } from '@tenet/event-store';
import { DEFAULT_INTENT_SETTINGS, type IntentView } from '@tenet/intents-domain';
import { IntentTurn, pendingClarification } from './turn-intents.js';

const view = (name: string, extra: Partial<IntentView> = {}): IntentView => ({
  id: name,
  name,
  description: `${name} description`,
  examples: [],
  keywords: [],
  parameters: null,
  tool: null,
  journey_id: null,
  tags: [],
  creation_utc: '2026-11-28T00:00:00.000Z',
  ...extra,
});
const result = (intent?: MatchGuidelinesReplyV1['result']['intent']): MatchGuidelinesReplyV1['result'] => ({
  matches: [],
  top_matches: [],
  tools_to_execute: [{ tool_name: 'guideline_tool', priority: 1, guideline_id: 'g1' }],
  evaluation_time_ms: 1,
  ...(intent ? { intent } : {}),
});
const turn = (pending?: string[]) =>
  new IntentTurn(
    'a1',
    [view('track', { tool: 'lookup' }), view('cancel', { journey_id: 'j1' }), view('refund')],
    DEFAULT_INTENT_SETTINGS,
    pending,
    new Map([['j1', 'cond-1']]),
    new InMemoryEventStore(),
    undefined,
  );

describe('IntentTurn', () => {
  it('a recognised intent mapped to a tool adds its call with the extracted parameters', () => {
    const intents = turn();
    const gated = intents.gate(result({ name: 'track', confidence: 0.9, extracted_params: { order_id: '5' }, alternatives: [] }));
    expect(gated.tools_to_execute).toEqual([
      expect.objectContaining({ tool_name: 'guideline_tool' }),
      { tool_name: 'lookup', priority: 0, guideline_id: 'intent:track', parameters: { order_id: '5' } },
    ]);
    expect(intents.messageData()).toEqual({ intent: { name: 'track', confidence: 0.9 } });
  });

  it('while clarifying nothing runs, and the compose request asks with the intents’ descriptions', () => {
    const intents = turn();
    expect(
      intents.gate(result({ name: 'track', confidence: 0.6, extracted_params: {}, alternatives: [{ name: 'refund', confidence: 0.55 }] }))
        .tools_to_execute,
    ).toEqual([]);
    expect(intents.composeFields(true)).toEqual({ clarification: { alternatives: ['track description', 'refund description'] } });
    expect(intents.messageData()).toEqual({ intent: { name: 'CLARIFICATION_NEEDED', confidence: 0.6, alternatives: ['track', 'refund'] } });
  });

  it('UNKNOWN falls back only when nothing else applies', () => {
    const intents = turn();
    intents.gate(result({ name: 'UNKNOWN', confidence: 0.9, extracted_params: {}, alternatives: [] }));
    expect(intents.composeFields(false)).toEqual({ fallback_reply: DEFAULT_INTENT_SETTINGS.fallback });
    expect(intents.composeFields(true)).toEqual({});
  });

  it('a recognised intent mapped to a journey matches the journey’s condition', () => {
    const intents = turn();
    intents.gate(result({ name: 'cancel', confidence: 0.8, extracted_params: {}, alternatives: [] }));
    expect(intents.journeyMatches()[0]?.matches[0]).toMatchObject({ guideline_id: 'cond-1' });
  });

  it('a pending clarification offers only its choices; a re-match after tool results classifies nothing', () => {
    expect(
      turn(['track', 'refund'])
        .matchFields([])
        .intents?.map((i) => i.name),
    ).toEqual(['track', 'refund']);
    expect(turn().matchFields([{}])).toEqual({});
  });

  it('records the classification on the agent’s recognition stream', async () => {
    const store = new InMemoryEventStore();
    const intents = new IntentTurn(
      'a1',
      [view('track', { tool: 'lookup' })],
      DEFAULT_INTENT_SETTINGS,
      undefined,
      new Map(),
      store,
      undefined,
    );
    intents.gate(result({ name: 'track', confidence: 0.9, extracted_params: { order_id: '5' }, alternatives: [] }));
    await intents.record('s1', 'c1');
    const [event] = await store.readStream('recognition-a1');
    expect(event?.data).toEqual({
      agent_id: 'a1',
      session_id: 's1',
      intent: 'track',
      confidence: 0.9,
      outcome: 'recognized',
      alternatives: [],
      parameter_names: ['order_id'],
      leads_to: { tool: 'lookup' },
      correlation_id: 'c1',
    });
  });
});

describe('pendingClarification', () => {
  it('reads the choices of the agent’s last message when it asked', () => {
    const asked = {
      source: 'ai_agent',
      data: { message: 'Which one?', intent: { name: 'CLARIFICATION_NEEDED', confidence: 0.4, alternatives: ['track', 'refund'] } },
    };
    expect(pendingClarification([{ source: 'customer', data: {} }, asked])).toEqual(['track', 'refund']);
    expect(pendingClarification([asked, { source: 'ai_agent', data: { message: 'ok' } }])).toBeUndefined();
  });
});
