import { decideIntent, DEFAULT_INTENT_SETTINGS, intentsOverlap, reportedIntentName, customerWords } from './intent.js';

const defined = new Set(['cancel_order', 'track_order', 'refund']);
const classification = (
  name: string,
  confidence: number,
  alternatives: { name: string; confidence: number }[] = [],
  extracted_params: Record<string, unknown> = {},
) => ({ name, confidence, alternatives, extracted_params });

describe('decideIntent', () => {
  it('recognises a confident, clear intent with its parameters', () => {
    const decision = decideIntent(
      classification('cancel_order', 0.9, [{ name: 'track_order', confidence: 0.3 }], { order_id: '123' }),
      DEFAULT_INTENT_SETTINGS,
      defined,
    );
    expect(decision).toEqual({
      kind: 'recognized',
      name: 'cancel_order',
      confidence: 0.9,
      extracted_params: { order_id: '123' },
      alternatives: [{ name: 'track_order', confidence: 0.3 }],
    });
    expect(reportedIntentName(decision)).toBe('cancel_order');
  });

  it('asks when the best is under clarify_below', () => {
    const decision = decideIntent(
      classification('refund', 0.4, [{ name: 'cancel_order', confidence: 0.2 }]),
      DEFAULT_INTENT_SETTINGS,
      defined,
    );
    expect(decision).toEqual({
      kind: 'clarify',
      confidence: 0.4,
      candidates: [
        { name: 'refund', confidence: 0.4 },
        { name: 'cancel_order', confidence: 0.2 },
      ],
    });
    expect(reportedIntentName(decision)).toBe('CLARIFICATION_NEEDED');
  });

  it('asks when the top two are within the margin, whatever the confidence', () => {
    const decision = decideIntent(
      classification('refund', 0.85, [
        { name: 'cancel_order', confidence: 0.8 },
        { name: 'track_order', confidence: 0.1 },
      ]),
      DEFAULT_INTENT_SETTINGS,
      defined,
    );
    expect(decision).toMatchObject({ kind: 'clarify', candidates: [{ name: 'refund' }, { name: 'cancel_order' }] });
    expect(
      decideIntent(
        classification('refund', 0.85, [{ name: 'cancel_order', confidence: 0.8 }]),
        { ...DEFAULT_INTENT_SETTINGS, margin: 0.01 },
        defined,
      ).kind,
    ).toBe('recognized');
  });

  it('falls back on UNKNOWN, on a name the agent does not define, and on no classification', () => {
    expect(decideIntent(classification('UNKNOWN', 0.9), DEFAULT_INTENT_SETTINGS, defined).kind).toBe('unknown');
    expect(decideIntent(classification('made_up', 0.9), DEFAULT_INTENT_SETTINGS, defined).kind).toBe('unknown');
    expect(decideIntent(undefined, DEFAULT_INTENT_SETTINGS, defined).kind).toBe('unknown');
  });

  it('turns UNKNOWN with a defined alternative worth asking about into a question', () => {
    expect(decideIntent(classification('UNKNOWN', 0.5, [{ name: 'refund', confidence: 0.3 }]), DEFAULT_INTENT_SETTINGS, defined)).toEqual({
      kind: 'clarify',
      confidence: 0.3,
      candidates: [{ name: 'refund', confidence: 0.3 }],
    });
  });
});

describe('intentsOverlap', () => {
  const tagsOf = (agentId: string) => (agentId === 'a1' ? ['vip'] : []);
  it('untagged overlaps everything; shared tags overlap; an agent tag overlaps a tag that agent carries', () => {
    expect(intentsOverlap({ tags: [] }, { tags: ['agent:a2'] }, tagsOf)).toBe(true);
    expect(intentsOverlap({ tags: ['agent:a1'] }, { tags: ['agent:a1'] }, tagsOf)).toBe(true);
    expect(intentsOverlap({ tags: ['agent:a1'] }, { tags: ['vip'] }, tagsOf)).toBe(true);
    expect(intentsOverlap({ tags: ['agent:a2'] }, { tags: ['vip'] }, tagsOf)).toBe(false);
    expect(intentsOverlap({ tags: ['agent:a1'] }, { tags: ['agent:a2'] }, tagsOf)).toBe(false);
  });
});

it('customerWords prefers the description', () => {
  expect(customerWords({ name: 'cancel_order', description: 'Cancel an order.' })).toBe('Cancel an order');
  expect(customerWords({ name: 'cancel_order', description: '' })).toBe('cancel order');
});
