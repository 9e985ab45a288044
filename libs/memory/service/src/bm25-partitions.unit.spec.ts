import { BM25, Bm25Index, termsOf } from './bm25-partitions.js';
import { seededRandom } from '@tenet/testing';

interface Held {
  doc: number;
  scope: string;
  text: string;
  terms: string[];
}
const frequencies = new Map<Held, Map<string, number>>();
const frequenciesOf = (h: Held): Map<string, number> => {
  let tf = frequencies.get(h);
  if (!tf) {
    tf = new Map<string, number>();
    for (const t of h.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    frequencies.set(h, tf);
  }
  return tf;
};

/** Unbounded BM25 (FTS5's formula) over every held document of the searched scopes: the reference the pruned top k must equal. */
function bruteForce(
  held: readonly Held[],
  text: string,
  k: number,
  searched: (scope: string) => boolean,
): { doc: number; score: number }[] {
  const docs = held.filter((h) => searched(h.scope));
  const average = docs.reduce((n, d) => n + d.terms.length, 0) / docs.length;
  const scores = new Map<number, number>();
  for (const term of new Set(termsOf(text))) {
    const frequency = docs.filter((d) => frequenciesOf(d).has(term)).length;
    if (frequency === 0) continue;
    const raw = Math.log((docs.length - frequency + 0.5) / (frequency + 0.5));
    const idf = raw > 0 ? raw : 1e-6;
    for (const d of docs) {
      const tf = frequenciesOf(d).get(term) ?? 0;
      if (tf === 0) continue;
      const score = (idf * tf * (BM25.k1 + 1)) / (tf + BM25.k1 * (1 - BM25.b + (BM25.b * d.terms.length) / average));
      scores.set(d.doc, (scores.get(d.doc) ?? 0) + score);
    }
  }
  return [...scores]
    .map(([doc, score]) => ({ doc, score }))
    .sort((a, b) => b.score - a.score || a.doc - b.doc)
    .slice(0, k);
}

/** The pruned answer equals the reference: the same scores in order, the same documents wherever the score is not tied at the k-th. */
function expectSameTopK(found: { doc: number; score: number }[], truth: { doc: number; score: number }[]): void {
  expect(found.map((f) => f.score)).toEqual(truth.map((t) => expect.closeTo(t.score, 9)) as unknown as number[]);
  const last = truth.at(-1)?.score ?? 0;
  const clear = (list: { doc: number; score: number }[]): number[] =>
    list
      .filter((x) => x.score - last > 1e-9)
      .map((x) => x.doc)
      .sort((a, b) => a - b);
  expect(clear(found)).toEqual(clear(truth));
}

describe('Bm25Index: MaxScore top k equals unbounded BM25', () => {
  const random = seededRandom(7);
  // Zipf-like draw over 600 words: a few words are in most documents, as in the retrieval bench's corpus.
  const vocabulary = Array.from({ length: 600 }, (_, i) => `w${i.toString(36)}x`);
  const word = (): string => vocabulary[Math.floor(vocabulary.length * random() ** 2.5)] ?? 'w0x';
  const scopes = ['ws-a|*', 'ws-a|agent-1', 'ws-a|agent-2', 'ws-b|*'];
  const index = new Bm25Index();
  const held: Held[] = [];
  for (let doc = 1; doc <= 3_000; doc++) {
    const text = Array.from({ length: 5 + Math.floor(random() * 60) }, word).join(' ');
    const scope = scopes[Math.floor(random() * scopes.length)] ?? 'ws-a|*';
    index.add(doc, scope, text);
    held.push({ doc, scope, text, terms: termsOf(text) });
  }
  const queries = Array.from({ length: 30 }, () => Array.from({ length: 1 + Math.floor(random() * 8) }, word).join(' '));
  const filters: [string, (scope: string) => boolean][] = [
    ['every partition', () => true],
    ['agent-1 in ws-a (its own and the untagged)', (s) => s === 'ws-a|*' || s === 'ws-a|agent-1'],
    ['ws-b only', (s) => s.startsWith('ws-b|')],
  ];

  it.each(filters)('on a Zipf corpus of 3,000 documents, 30 queries, k 1/5/20/100, searched: %s', (_name, searched) => {
    for (const query of queries)
      for (const k of [1, 5, 20, 100]) expectSameTopK(index.search(query, k, searched), bruteForce(held, query, k, searched));
  });

  it('stays exact after removals (statistics undone, postings compacted) and re-adds', () => {
    const copy = new Bm25Index();
    for (const h of held) copy.add(h.doc, h.scope, h.text);
    const kept = held.filter((h) => h.doc % 3 !== 0);
    for (const h of held) if (h.doc % 3 === 0) copy.remove(h.doc);
    copy.add(held[0]!.doc, held[0]!.scope, 'ignored: the number is held already');
    const laterText = `${vocabulary[599]} ${vocabulary[598]} ${vocabulary[0]}`;
    const later = { doc: 10_000, scope: 'ws-a|*', text: laterText, terms: termsOf(laterText) };
    copy.add(later.doc, later.scope, later.text);
    const now = [...kept, later];
    expect(copy.size).toBe(now.length);
    for (const query of [...queries.slice(0, 20), later.text])
      for (const [, searched] of filters) expectSameTopK(copy.search(query, 10, searched), bruteForce(now, query, 10, searched));
  });

  it('reads words as the shared tokenizer does: accents dropped, case folded, stemmed, in ASCII and other texts alike', () => {
    const small = new Bm25Index();
    small.add(1, 'w|*', 'Café REFUNDS, shipped');
    small.add(2, 'w|*', 'Cafe refund shipping');
    small.add(3, 'w|*', 'unrelated words here');
    for (const query of ['cafe', 'CAFÉ', 'refunded', 'shipping'])
      expect(small.search(query, 5, () => true).map((h) => h.doc)).toEqual([1, 2]);
  });

  it('finds nothing for no terms, unknown terms or no searched partition', () => {
    expect(index.search('?!', 5, () => true)).toEqual([]);
    expect(index.search('quantum', 5, () => true)).toEqual([]);
    expect(index.search(queries[0]!, 5, () => false)).toEqual([]);
  });
});
