import type { IntentToMatch } from '../tasks/match-guidelines.js';
import { classifyIntent, intentScore, termWeights } from './intents.js';

const intents: IntentToMatch[] = [
  {
    name: 'track_order',
    description: 'Track a delivery',
    keywords: ['track', 'where is my order'],
    examples: ['Has my package shipped yet?'],
    parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{4,10}$' } } },
  },
  { name: 'cancel_order', description: 'Cancel an order', keywords: ['cancel', 'call off'], examples: ['Please cancel it'] },
  { name: 'refund', description: 'Get money back', keywords: ['refund', 'return', 'money back'], examples: ['I want my money back'] },
  {
    name: 'account_access',
    description: 'Get back into the account',
    keywords: ['password', 'log in'],
    examples: ['I forgot my password'],
  },
];

const classify = (message: string, history: { role: 'customer' | 'agent'; content: string }[] = []) =>
  classifyIntent({ message, history, guidelines: [], intents });

describe('offline intent classification', () => {
  it('recognises a keyword message with confidence above the default clarification line, and extracts its parameters', () => {
    const answer = classify('Where is my order 55555?');
    expect(answer).toMatchObject({ name: 'track_order', extracted_params_json: '{"order_id":"55555"}' });
    expect(answer?.confidence).toBeGreaterThan(0.8);
  });

  it('scores two intents whose keywords the message both names alike (a clarification case)', () => {
    const answer = classify('I want to cancel and get a refund');
    const [first, second] = [answer?.confidence ?? 0, answer?.alternatives[0]?.confidence ?? 0];
    expect(new Set([answer?.name, answer?.alternatives[0]?.name])).toEqual(new Set(['cancel_order', 'refund']));
    expect(Math.abs(first - second)).toBeLessThanOrEqual(0.1);
  });

  it('counts keywords that read as the same terms once ("refund", "return")', () => {
    const weights = termWeights(intents);
    const refund = intents[2]!;
    const said = new Set(['refund']);
    expect(intentScore(refund, said, weights)).toBe(intentScore({ ...refund, keywords: ['refund'] }, said, weights));
    expect(intentScore({ ...refund, name: 'other', examples: [], description: '' }, said, weights)).toBe(0.6);
  });

  it('answers UNKNOWN for a message of no intent, and is deterministic', () => {
    expect(classify('What is the weather on Mars?')).toEqual({
      name: 'UNKNOWN',
      confidence: 1,
      extracted_params_json: '{}',
      alternatives: [],
    });
    expect(classify('I forgot my password')).toEqual(classify('I forgot my password'));
  });

  it('a message with no topic of its own continues the previous one', () => {
    expect(
      classify('yes', [
        { role: 'customer', content: 'I forgot my password' },
        { role: 'agent', content: 'Shall I send a reset link?' },
      ])?.name,
    ).toBe('account_access');
  });

  it('classifies nothing without intents', () => {
    expect(classifyIntent({ message: 'hello', history: [], guidelines: [] })).toBeUndefined();
  });
});
