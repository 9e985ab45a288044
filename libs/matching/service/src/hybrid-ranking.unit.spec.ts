import { HYBRID_RRF_C, hybridSimilarity, reciprocalRankFusion, RRF_C, weightedScoreFusion } from './hybrid-ranking.js';

const scores = (entries: Record<string, number>): Map<string, number> => new Map(Object.entries(entries));
const order = (fused: Map<string, number>): string[] =>
  [...fused].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);

describe('reciprocalRankFusion', () => {
  it('given two rankings, when fused, then each candidate scores the sum of weight / (c + rank), scaled so first in both scores 1', () => {
    const embedding = scores({ a: 0.9, b: 0.5, c: 0.1 });
    const lexical = scores({ a: 1, b: 0, c: 0.4 });
    const fused = reciprocalRankFusion([{ scores: embedding }, { scores: lexical }], 60);
    const best = 2 / 61;
    expect(fused.get('a')).toBeCloseTo(1, 12);
    expect(fused.get('b')).toBeCloseTo(1 / 62 / best, 12); // second by embedding, not ranked by BM25 (score 0)
    expect(fused.get('c')).toBeCloseTo((1 / 63 + 1 / 62) / best, 12);
  });

  it("given a candidate one signal ranks first and the other 101st, when fused with the matcher's c, then it stays near the top; with the literature's c = 60, candidates both signals rank middling push it out", () => {
    // "refund" shares a rare word with the message (BM25 first) but the embedding ranks it 101st of 201; g20…g79 are
    // ranked 21st–80th by the embedding and 2nd–61st by BM25.
    const ids = Array.from({ length: 200 }, (_, i) => `g${i}`);
    const embedding = new Map(ids.map((id, i) => [id, 1 - i / 1000]));
    embedding.set('refund', 1 - 100.5 / 1000);
    const lexical = new Map<string, number>([['refund', 1], ...ids.slice(20, 80).map((id, i): [string, number] => [id, 0.9 - i / 100])]);
    expect(order(hybridSimilarity(embedding, lexical)).indexOf('refund')).toBeLessThan(5);
    expect(order(reciprocalRankFusion([{ scores: embedding }, { scores: lexical }], RRF_C)).indexOf('refund')).toBeGreaterThanOrEqual(10);
    // Embedding alone would not keep it in a top 40.
    expect(order(embedding).indexOf('refund')).toBeGreaterThanOrEqual(40);
  });

  it('given tied scores, when fused, then tied candidates share the mean of their positions whatever the order of the map, or the first with competition ranks', () => {
    const one = reciprocalRankFusion([{ scores: scores({ a: 0.5, b: 0.5, c: 0.2 }) }], RRF_C);
    const other = reciprocalRankFusion([{ scores: scores({ c: 0.2, b: 0.5, a: 0.5 }) }], RRF_C);
    expect(one.get('a')).toBe(one.get('b'));
    expect(one.get('a')).toBeCloseTo((RRF_C + 1) / (RRF_C + 1.5), 12);
    expect(one.get('c')).toBeCloseTo((RRF_C + 1) / (RRF_C + 3), 12);
    expect([...one].sort()).toEqual([...other].sort());
    const competition = reciprocalRankFusion([{ scores: scores({ a: 0.5, b: 0.5, c: 0.2 }) }], RRF_C, 'min');
    expect(competition.get('a')).toBeCloseTo(1, 12);
    expect(competition.get('c')).toBeCloseTo((RRF_C + 1) / (RRF_C + 3), 12);
  });

  it('given 100 guidelines BM25 ties right behind the relevant one (same words), when fused, then the tie group is not promoted as a whole above a guideline the embedding also likes', () => {
    const ids = Array.from({ length: 100 }, (_, i) => `dup${i}`);
    const lexical = new Map<string, number>([['relevant', 1], ...ids.map((id): [string, number] => [id, 0.8])]);
    const embedding = new Map<string, number>([...ids.map((id, i): [string, number] => [id, 0.9 - i / 1000]), ['relevant', 0.5]]);
    const rank = (fused: Map<string, number>): number => order(fused).indexOf('relevant');
    expect(rank(hybridSimilarity(embedding, lexical))).toBeLessThan(3);
    expect(rank(reciprocalRankFusion([{ scores: embedding }, { scores: lexical }], HYBRID_RRF_C, 'min'))).toBeGreaterThan(3);
  });

  it("given a signal rescaled (another model's cosines, or raw BM25), when fused, then nothing changes: only ranks count", () => {
    const embedding = scores({ a: 0.31, b: 0.29, c: 0.05, d: 0.3 });
    const lexical = scores({ a: 0.2, b: 1, c: 0.6, d: 0 });
    const rescaled = new Map([...embedding].map(([id, s]) => [id, s * 7 + 1]));
    expect([...hybridSimilarity(rescaled, lexical)]).toEqual([...hybridSimilarity(embedding, lexical)]);
  });

  it('given scores of 0 or below in every signal (no vector, no word in common), when fused, then every candidate scores 0 and the order falls back to the ids', () => {
    const fused = hybridSimilarity(scores({ a: 0, b: -0.1 }), scores({ a: 0, b: 0 }));
    expect([...fused.values()]).toEqual([0, 0]);
  });

  it('given a weight of 0 for a signal, when fused, then that signal does not count', () => {
    const fused = reciprocalRankFusion(
      [{ scores: scores({ a: 1, b: 0.5 }), weight: 0 }, { scores: scores({ a: 0.1, b: 0.9 }) }],
      HYBRID_RRF_C,
    );
    expect(order(fused)).toEqual(['b', 'a']);
    expect(fused.get('b')).toBeCloseTo(1, 12);
  });

  it('given a negative c, when fused, then it is refused', () => {
    expect(() => reciprocalRankFusion([], -1)).toThrow(RangeError);
  });
});

describe('weightedScoreFusion', () => {
  it('given two signals, when fused, then each is divided by its best score and they are averaged by weight', () => {
    const fused = weightedScoreFusion([
      { scores: scores({ a: 0.4, b: 0.2 }), weight: 0.5 },
      { scores: scores({ a: 0, b: 3 }), weight: 0.5 },
    ]);
    expect(fused.get('a')).toBeCloseTo(0.5, 12);
    expect(fused.get('b')).toBeCloseTo(0.75, 12);
  });
});

describe('weightedScoreFusion, min-max', () => {
  it('given a signal whose scores all sit high (a model whose cosines cluster), when fused min-max, then its lowest maps to 0 and its best to 1', () => {
    const fused = weightedScoreFusion([{ scores: scores({ a: 0.8, b: 0.7, c: 0.6 }) }], 'min-max');
    expect(fused.get('a')).toBeCloseTo(1, 12);
    expect(fused.get('b')).toBeCloseTo(0.5, 12);
    expect(fused.get('c')).toBe(0);
  });
});
