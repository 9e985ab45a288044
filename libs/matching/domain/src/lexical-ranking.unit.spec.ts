import { isTopicFree, lexicalSimilarity, topicWords } from './lexical-ranking.js';

describe('topicWords', () => {
  it('given a customer sentence, when reading its topic, then function words, condition boilerplate, courtesies and bare numbers are dropped and the rest is stemmed', () => {
    expect(topicWords('The customer asks for REFUNDS on order 4471, please!')).toEqual(['refund', 'order']);
    expect(topicWords('Café déjà-vu')).toEqual(['cafe', 'deja', 'vu']);
  });
});

describe('isTopicFree', () => {
  it.each(['yes', 'ok', 'OK!', '12345', 'Yes please, go ahead', 'thanks', '👍', '', 'Sure, 4471'])(
    'given "%s", when checking for a topic, then it has none',
    (message) => {
      expect(isTopicFree(message)).toBe(true);
    },
  );

  it.each(['I want a refund', 'yes, cancel it', 'And can I get a receipt for that?', 'SUMMER10 gets rejected'])(
    'given "%s", when checking for a topic, then it has one',
    (message) => {
      expect(isTopicFree(message)).toBe(false);
    },
  );
});

describe('lexicalSimilarity (BM25)', () => {
  const documents = [
    { id: 'refund', text: 'The customer asks for a refund\nExplain the refund policy' },
    { id: 'track', text: 'The customer asks where their order is\nShare the tracking number' },
    { id: 'cancel-a', text: 'The customer wants to cancel their hotel reservation\nExplain the cancellation terms' },
    { id: 'cancel-b', text: 'The customer wants to cancel their flight booking\nExplain the cancellation terms' },
    { id: 'cancel-order', text: 'The customer wants to cancel an order\nCancel it if it has not shipped' },
  ];

  it('given a query, when ranking, then documents sharing its words score higher, the best scores 1 and unrelated ones 0', () => {
    const scores = lexicalSimilarity([{ text: 'I want a refund', weight: 1 }], documents);
    expect(scores.get('refund')).toBe(1);
    expect(scores.get('track')).toBe(0);
  });

  it('given a word many documents use and one few use, when ranking, then the rare word counts for more (inverse document frequency)', () => {
    const scores = lexicalSimilarity([{ text: 'cancel my order', weight: 1 }], documents);
    const ranked = [...scores].sort((a, b) => b[1] - a[1]).map(([id]) => id);
    expect(ranked[0]).toBe('cancel-order');
  });

  it('given weighted parts, when ranking, then a part with more weight pulls harder, and a part of weight 0 not at all', () => {
    const leaning = lexicalSimilarity(
      [
        { text: 'refund', weight: 1 },
        { text: 'tracking', weight: 0.2 },
      ],
      documents,
    );
    expect(leaning.get('refund')).toBeGreaterThan(leaning.get('track')!);
    const ignored = lexicalSimilarity(
      [
        { text: 'refund', weight: 0 },
        { text: 'tracking', weight: 1 },
      ],
      documents,
    );
    expect(ignored.get('refund')).toBe(0);
  });

  it('given the same inputs twice, when ranking, then the scores are identical (deterministic) and a query without words scores everything 0', () => {
    const query = [{ text: 'cancel the reservation', weight: 1 }];
    expect([...lexicalSimilarity(query, documents)]).toEqual([...lexicalSimilarity(query, documents)]);
    expect([...lexicalSimilarity([{ text: '?!', weight: 1 }], documents).values()].every((x) => x === 0)).toBe(true);
  });
});
