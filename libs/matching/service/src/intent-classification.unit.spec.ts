import type { IntentToMatchV1 } from '@tenet/contracts';
import { classifiedIntent, INTENT_PREFILTER_K, intentsForCall } from './intent-classification.js';
import { LexicalIndexCache } from './lexical-index-cache.js';

const intent = (name: string, description: string, keywords: string[] = []): IntentToMatchV1 => ({
  name,
  description,
  examples: [],
  keywords,
});

describe('intentsForCall', () => {
  it('offers every intent up to the limit, else the most similar to the conversation', () => {
    const few = [intent('a', 'alpha'), intent('b', 'beta')];
    expect(intentsForCall(few, { message: 'x', history: [] }, new LexicalIndexCache(4))).toEqual(few);
    const many = Array.from({ length: 30 }, (_, i) => intent(`intent_${i}`, `topic number ${i} about thing${i}`));
    many.push(intent('password_reset', 'Reset a forgotten password', ['password']));
    const offered = intentsForCall(many, { message: 'I forgot my password', history: [] }, new LexicalIndexCache(4));
    expect(offered).toHaveLength(INTENT_PREFILTER_K);
    expect(offered[0]?.name).toBe('password_reset');
  });
});

describe('classifiedIntent', () => {
  const offered = [
    { ...intent('track', 'Track'), parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]+$' } } } },
    intent('cancel', 'Cancel'),
  ];
  it('keeps an offered intent with parameters that pass its schema, and clamps confidences', () => {
    expect(
      classifiedIntent(
        {
          name: 'track',
          confidence: 1.4,
          extracted_params_json: '',
          alternatives: [
            { name: 'cancel', confidence: -1 },
            { name: 'nope', confidence: 0.5 },
          ],
        },
        offered,
        { order_id: '123' },
      ),
    ).toEqual({
      name: 'track',
      confidence: 1,
      extracted_params: { order_id: '123' },
      alternatives: [{ name: 'cancel', confidence: 0 }],
    });
  });
  it('drops parameters that break the schema, and reads a name it was not offered as UNKNOWN', () => {
    expect(
      classifiedIntent({ name: 'track', confidence: 0.9, extracted_params_json: '', alternatives: [] }, offered, { order_id: 'abc' })
        .extracted_params,
    ).toEqual({});
    expect(
      classifiedIntent(
        { name: 'invented', confidence: 0.9, extracted_params_json: '', alternatives: [{ name: 'cancel', confidence: 0.3 }] },
        offered,
        {},
      ),
    ).toEqual({ name: 'UNKNOWN', confidence: 0.9, extracted_params: {}, alternatives: [{ name: 'cancel', confidence: 0.3 }] });
  });
});
