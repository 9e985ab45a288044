import { LexicalIndexCache } from './lexical-index-cache.js';
import { LexicalIndex, topicWords, type RankedDocument, type WeightedText } from '@tenet/matching-domain';

/** BM25 as the matcher computed it per turn before the index was cached (every document tokenised each time). */
function referenceBm25(query: readonly WeightedText[], docs: readonly RankedDocument[]): Map<string, number> {
  const queryWeights = new Map<string, number>();
  for (const part of query)
    if (part.weight > 0)
      for (const word of new Set(topicWords(part.text))) queryWeights.set(word, (queryWeights.get(word) ?? 0) + part.weight);
  const counted = docs.map((d) => {
    const counts = new Map<string, number>();
    const words = topicWords(d.text);
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    return { id: d.id, counts, length: words.length };
  });
  const average = counted.reduce((sum, d) => sum + d.length, 0) / Math.max(1, counted.length);
  const df = (word: string): number => counted.filter((d) => d.counts.has(word)).length;
  const raw = counted.map((d) => {
    let score = 0;
    for (const [word, weight] of queryWeights) {
      const tf = d.counts.get(word) ?? 0;
      if (tf === 0) continue;
      const n = df(word);
      score +=
        weight *
        Math.log(1 + (counted.length - n + 0.5) / (n + 0.5)) *
        ((tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * d.length) / Math.max(1, average))));
    }
    return [d.id, score] as const;
  });
  const best = raw.reduce((max, [, score]) => Math.max(max, score), 0);
  return new Map(raw.map(([id, score]) => [id, best > 0 ? score / best : 0]));
}

const documents = [
  { id: 'refund', text: 'The customer asks for a refund\nExplain the refund policy' },
  { id: 'track', text: 'The customer asks where their order is\nShare the tracking number' },
  { id: 'cancel-a', text: 'The customer wants to cancel their hotel reservation\nExplain the cancellation terms' },
  { id: 'cancel-order', text: 'The customer wants to cancel an order\nCancel it if it has not shipped' },
];
const query = [
  { text: 'cancel my order', weight: 1 },
  { text: 'where is the refund', weight: 0.5 },
];

describe('LexicalIndex', () => {
  it('given an index built once, when several queries are scored against it, then each scores exactly as BM25 computed from scratch per turn did', () => {
    const index = new LexicalIndex(documents);
    for (const q of [
      query,
      [{ text: 'refund', weight: 1 }],
      [{ text: 'hotel reservation cancellation', weight: 1 }],
      [{ text: '?!', weight: 1 }],
    ]) {
      expect([...index.score(q)]).toEqual([...referenceBm25(q, documents)]);
    }
    expect(index.size).toBe(4);
  });

  it('given the same index, when a query is scored, then the best document scores 1 and a document without a query word 0', () => {
    const scores = new LexicalIndex(documents).score([{ text: 'refund policy', weight: 1 }]);
    expect(scores.get('refund')).toBe(1);
    expect(scores.get('track')).toBe(0);
  });
});

describe('LexicalIndexCache', () => {
  it('given a candidate set indexed once, when the same set comes again (a new array, equal contents), then the cached index is returned and not rebuilt', () => {
    const cache = new LexicalIndexCache(4);
    const first = cache.indexFor(documents);
    const second = cache.indexFor(documents.map((d) => ({ ...d })));
    expect(first.cached).toBe(false);
    expect(second.cached).toBe(true);
    expect(second.index).toBe(first.index);
    expect(cache.size).toBe(1);
  });

  it('given a guideline whose text changes, when its set is indexed, then it is a new index that ranks the new text, and the old one is still there for the old version', () => {
    const cache = new LexicalIndexCache(4);
    const before = cache.indexFor(documents);
    const edited = documents.map((d) =>
      d.id === 'track' ? { ...d, text: 'The customer asks for a refund status\nLook up the refund payout date' } : d,
    );
    const after = cache.indexFor(edited);
    expect(after.cached).toBe(false);
    expect(after.index).not.toBe(before.index);
    expect(after.index.score([{ text: 'refund payout', weight: 1 }]).get('track')).toBe(1);
    expect(before.index.score([{ text: 'refund payout', weight: 1 }]).get('track')).toBe(0);
    expect(cache.size).toBe(2);
    expect(cache.indexFor(documents).cached).toBe(true);
  });

  it('given the same texts under other ids, or a guideline added or removed, when indexed, then each is its own key', () => {
    const keys = new Set([
      LexicalIndexCache.keyOf(documents),
      LexicalIndexCache.keyOf(documents.map((d, i) => ({ ...d, id: `${d.id}-${i}` }))),
      LexicalIndexCache.keyOf(documents.slice(1)),
      LexicalIndexCache.keyOf([...documents, { id: 'new', text: 'The customer asks about gift cards' }]),
      // Separators cannot be faked by moving text between id and text.
      LexicalIndexCache.keyOf([{ id: 'a', text: 'bc' }]),
      LexicalIndexCache.keyOf([{ id: 'ab', text: 'c' }]),
    ]);
    expect(keys.size).toBe(6);
  });

  it('given a bound of 2, when 3 candidate sets are indexed, then it holds 2, the least recently used is evicted and rebuilt when it comes back', () => {
    const cache = new LexicalIndexCache(2);
    const sets = [documents, documents.slice(1), documents.slice(2)];
    cache.indexFor(sets[0]!);
    cache.indexFor(sets[1]!);
    expect(cache.indexFor(sets[0]!).cached).toBe(true); // set 0 is now the most recent; set 1 the least
    cache.indexFor(sets[2]!);
    expect(cache.size).toBe(2);
    expect(cache.indexFor(sets[0]!).cached).toBe(true);
    expect(cache.indexFor(sets[1]!).cached).toBe(false);
    expect(cache.size).toBe(2);
  });

  it('given a bound below 1, when the cache is made, then it is refused', () => {
    expect(() => new LexicalIndexCache(0)).toThrow(RangeError);
    expect(() => new LexicalIndexCache(1.5)).toThrow(RangeError);
  });
});
