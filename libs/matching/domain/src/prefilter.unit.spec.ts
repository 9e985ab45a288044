import type { MatchableGuideline } from './guideline-matching.js';
import { cosineSimilarity, defaultAlwaysKeepCap, prefilterCandidates, type PrefilterInput } from './prefilter.js';
import type { GuidelineRelationship } from './relationships.js';

const g = (id: string, extra: Partial<MatchableGuideline> = {}): MatchableGuideline => ({
  id,
  condition: id,
  action: id,
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...extra,
});
const rel = (id: string, kind: string, source: string, target: string): GuidelineRelationship => ({
  id,
  kind,
  source: { type: 'guideline', id: source },
  target: { type: 'guideline', id: target },
});
const NEAR = [1, 0];
const MID = [0.7, 0.7];
const FAR = [0, 1];

/** Candidates with their vectors; the query is [1, 0], so `near` > `mid` > everything `far`. */
function given(entries: [MatchableGuideline, number[]][]) {
  const candidates = entries.map(([x]) => x);
  const vectors = new Map(entries.map(([x, v]) => [x.id, v]));
  return {
    whenPrefiltered(rest: Partial<PrefilterInput> & { k: number }) {
      const result = prefilterCandidates({ candidates, vectors, query: [1, 0], ...rest });
      return { result, kept: result.kept.map((x) => x.id), reasons: Object.fromEntries(result.reasons) };
    },
  };
}

describe('prefilterCandidates', () => {
  it('given candidates of varying similarity, when keeping k = 2, then the two most similar are kept and a merely dissimilar one is dropped', () => {
    const { kept, reasons, result } = given([
      [g('far'), FAR],
      [g('near'), NEAR],
      [g('mid'), MID],
    ]).whenPrefiltered({ k: 2 });
    expect(kept).toEqual(['near', 'mid']);
    expect(reasons).toEqual({ near: 'similarity', mid: 'similarity' });
    expect(result.similarity.get('mid')).toBeCloseTo(Math.SQRT1_2);
  });

  it('given dissimilar guidelines that must never be missed, when prefiltering, then each is kept with its reason', () => {
    const { kept, reasons } = given([
      [g('near'), NEAR],
      [g('critical', { criticality: 'high' }), FAR],
      [g('applied'), FAR],
      [g('flagged', { previously_applied: true }), FAR],
      [g('always', { continuous: true }), FAR],
      [g('journey', { journey_id: 'j1' }), FAR],
      [g('other_journey', { journey_id: 'j2' }), FAR],
      [g('plain'), FAR],
    ]).whenPrefiltered({ k: 1, alwaysKeep: { previouslyApplied: ['applied'], activeJourneyId: 'j1' } });
    expect(kept).toEqual(['near', 'critical', 'applied', 'flagged', 'always', 'journey']);
    expect(reasons).toEqual({
      near: 'similarity',
      critical: 'high_criticality',
      applied: 'previously_applied',
      flagged: 'previously_applied',
      always: 'continuous',
      journey: 'journey_active',
    });
  });

  it('given the older top-level spelling of the always-keep inputs, when prefiltering, then it works the same', () => {
    const { kept } = given([
      [g('near'), NEAR],
      [g('applied'), FAR],
      [g('journey', { journey_id: 'j1' }), FAR],
    ]).whenPrefiltered({ k: 1, previouslyApplied: new Set(['applied']), activeJourneyId: 'j1' });
    expect(kept).toEqual(['near', 'applied', 'journey']);
  });

  describe('relationship partners of kept guidelines', () => {
    const entries: [MatchableGuideline, number[]][] = [
      [g('near'), NEAR],
      [g('needed'), FAR],
      [g('needed_by_needed'), FAR],
      [g('entailed'), FAR],
      [g('overrider'), FAR],
      [g('overridden'), FAR],
      [g('dependant'), FAR],
    ];

    it('given dependency, entailment and priority links, when prefiltering, then the ends the kept ones need are kept, transitively', () => {
      const { kept, reasons } = given(entries).whenPrefiltered({
        k: 1,
        alwaysKeep: {
          relationships: [
            rel('d1', 'dependency', 'near', 'needed'),
            rel('d2', 'dependency_any', 'needed', 'needed_by_needed'),
            rel('e', 'entailment', 'near', 'entailed'),
            rel('p', 'priority', 'overrider', 'near'),
            // Direction matters: near being kept needs neither what depends on it nor what it overrides.
            rel('d3', 'dependency', 'dependant', 'near'),
            rel('p2', 'priority', 'near', 'overridden'),
          ],
        },
      });
      expect(kept).toEqual(['near', 'needed', 'needed_by_needed', 'entailed', 'overrider']);
      expect(reasons['needed_by_needed']).toBe('relationship');
    });

    it('given a disambiguation, when either end is kept, then all its ends are kept', () => {
      const ambiguity = [rel('x1', 'disambiguation', 'unclear', 'near'), rel('x2', 'disambiguation', 'unclear', 'other_option')];
      const { kept } = given([
        [g('near'), NEAR],
        [g('unclear', { action: undefined }), FAR],
        [g('other_option'), FAR],
      ]).whenPrefiltered({ k: 1, alwaysKeep: { relationships: ambiguity } });
      expect(kept).toEqual(['near', 'unclear', 'other_option']);
    });

    it('given a tag endpoint, when its source is kept, then every candidate with the tag is kept', () => {
      const tagged: [MatchableGuideline, number[]][] = [
        [g('near'), NEAR],
        [g('a', { tags: ['t'] }), FAR],
        [g('b', { tags: ['t'] }), FAR],
        [g('c'), FAR],
      ];
      const { kept } = given(tagged).whenPrefiltered({
        k: 1,
        alwaysKeep: {
          relationships: [{ id: 'd', kind: 'dependency', source: { type: 'guideline', id: 'near' }, target: { type: 'tag', id: 't' } }],
        },
      });
      expect(kept).toEqual(['near', 'a', 'b']);
    });
  });

  it('given a candidate without a vector, when prefiltering, then its similarity is 0 and it competes last', () => {
    const result = prefilterCandidates({ candidates: [g('unknown'), g('near')], vectors: new Map([['near', NEAR]]), query: [1, 0], k: 1 });
    expect(result.kept.map((x) => x.id)).toEqual(['near']);
    expect(result.similarity.get('unknown')).toBe(0);
  });
});

describe('prefilterCandidates with k at or above the number of candidates', () => {
  it('given k equal to or larger than the candidates, when prefiltering, then every candidate is kept by similarity and nothing is dropped', () => {
    for (const k of [3, 4, 1000, Infinity]) {
      const { kept, reasons, result } = given([
        [g('far', { criticality: 'high' }), FAR],
        [g('near'), NEAR],
        [g('mid', { continuous: true }), MID],
      ]).whenPrefiltered({ k });
      expect(kept).toEqual(['far', 'near', 'mid']);
      expect(Object.values(reasons)).toEqual(['similarity', 'similarity', 'similarity']);
      expect(result.cap.dropped).toEqual([]);
    }
  });

  it('given k = 0 or a nonsensical k or cap, when prefiltering, then k = 0 keeps only the rules, and NaN or a negative cap is refused', () => {
    const { kept } = given([
      [g('near'), NEAR],
      [g('critical', { criticality: 'high' }), FAR],
    ]).whenPrefiltered({ k: 0 });
    expect(kept).toEqual(['critical']);
    expect(() => given([[g('near'), NEAR]]).whenPrefiltered({ k: Number.NaN })).toThrow(
      expect.objectContaining({ code: 'MATCHING.INVALID_OPTION' }),
    );
    expect(() => given([[g('near'), NEAR]]).whenPrefiltered({ k: 1, alwaysKeepCap: -1 })).toThrow(
      expect.objectContaining({ code: 'MATCHING.INVALID_OPTION' }),
    );
  });
});

describe('prefilterCandidates with precomputed similarity (the lexical ranking when embeddings fail)', () => {
  it('given scores instead of vectors, when prefiltering, then the k best scored are kept and the rules still apply', () => {
    const candidates = [g('a'), g('b'), g('c'), g('critical', { criticality: 'high' })];
    const result = prefilterCandidates({
      candidates,
      similarity: new Map([
        ['a', 0.1],
        ['b', 0.9],
        ['c', 0.5],
      ]),
      k: 2,
    });
    expect(result.kept.map((x) => x.id)).toEqual(['b', 'c', 'critical']);
    expect(result.similarity.get('critical')).toBe(0);
  });
});

describe('the always-keep cap', () => {
  /** 1 similar guideline, then `count` high-criticality ones whose similarity falls with their number. */
  const manyCritical = (count: number): [MatchableGuideline, number[]][] => [
    [g('near'), NEAR],
    ...Array.from({ length: count }, (_, i): [MatchableGuideline, number[]] => [
      g(`c${String(i).padStart(3, '0')}`, { criticality: 'high' }),
      [Math.max(0, 0.5 - i / 1000), 1],
    ]),
  ];

  it('given 400 high-criticality guidelines and no cap set, when prefiltering with k = 40, then at most max(k, 40) are kept by the rule, the most similar ones, and the rest are reported as dropped', () => {
    const entries = [
      ...manyCritical(400),
      ...Array.from({ length: 600 }, (_, i): [MatchableGuideline, number[]] => [g(`plain${i}`), [0.9, 0.1 + i / 100]]),
    ];
    const { result, reasons } = given(entries).whenPrefiltered({ k: 40 });
    const byRule = Object.values(reasons).filter((r) => r === 'high_criticality');
    expect(result.kept.length).toBe(80);
    expect(byRule).toHaveLength(defaultAlwaysKeepCap(40));
    expect(result.cap).toMatchObject({ limit: 40, wanted: 400 });
    expect(result.cap.dropped).toHaveLength(360);
    // The kept ones are the most similar of the 400; the best dropped one is less similar than the worst kept one.
    expect(reasons['c000']).toBe('high_criticality');
    expect(reasons['c039']).toBe('high_criticality');
    expect(reasons['c040']).toBeUndefined();
    expect(result.cap.dropped[0]).toMatchObject({ id: 'c040', reason: 'high_criticality' });
  });

  it('given a configured cap, when more guidelines qualify, then high-criticality and active-journey ones are kept before previously applied and continuous ones, by similarity within each', () => {
    const { kept, result } = given([
      [g('near'), NEAR],
      [g('applied_similar'), MID],
      [g('continuous_similar', { continuous: true }), MID],
      [g('critical_far', { criticality: 'high' }), FAR],
      [g('journey_far', { journey_id: 'j1' }), FAR],
      [g('critical_mid', { criticality: 'high' }), [0.3, 1]],
    ]).whenPrefiltered({ k: 1, alwaysKeepCap: 3, alwaysKeep: { previouslyApplied: ['applied_similar'], activeJourneyId: 'j1' } });
    expect(kept).toEqual(['near', 'critical_far', 'journey_far', 'critical_mid']);
    expect(result.cap.dropped.map((d) => [d.id, d.reason])).toEqual([
      ['applied_similar', 'previously_applied'],
      ['continuous_similar', 'continuous'],
    ]);
  });

  it('given a rule-kept guideline the cap leaves out, when a kept guideline depends on it, then it is kept as a relationship partner and not reported as dropped', () => {
    const { reasons, result } = given([
      [g('near'), NEAR],
      [g('critical_a', { criticality: 'high' }), MID],
      [g('critical_b', { criticality: 'high' }), FAR],
    ]).whenPrefiltered({ k: 1, alwaysKeepCap: 1, alwaysKeep: { relationships: [rel('d', 'dependency', 'near', 'critical_b')] } });
    expect(reasons).toEqual({ near: 'similarity', critical_a: 'high_criticality', critical_b: 'relationship' });
    expect(result.cap.dropped).toEqual([]);
  });

  it('given the cap turned off (Infinity), when prefiltering, then every rule-kept guideline goes through as before', () => {
    const { result } = given(manyCritical(100)).whenPrefiltered({ k: 1, alwaysKeepCap: Infinity });
    expect(result.kept).toHaveLength(101);
    expect(result.cap).toEqual({ limit: Infinity, wanted: 100, dropped: [] });
  });

  it('given fewer rule-kept guidelines than the default cap, when prefiltering, then the cap does not bind', () => {
    const { result } = given(manyCritical(40)).whenPrefiltered({ k: 1 });
    expect(result.kept).toHaveLength(41);
    expect(result.cap.dropped).toEqual([]);
  });
});

describe('cosineSimilarity', () => {
  it('given orthogonal, parallel, opposite and zero vectors, then 0, 1, -1 and 0', () => {
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([2, 0], [1, 0])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1);
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0);
    expect(cosineSimilarity([], [1, 0])).toBe(0);
  });

  it('given typed arrays (the embedding cache stores Float32Array), then they compare like plain arrays', () => {
    expect(cosineSimilarity(new Float32Array([2, 0]), [1, 0])).toBeCloseTo(1);
    expect(cosineSimilarity(new Float32Array([1, 0]), new Float32Array([0, 1]))).toBe(0);
  });

  it('given vectors of different dimensions (different models), then it refuses to compare them', () => {
    expect(() => cosineSimilarity([1, 0, 0], [1, 0])).toThrow(expect.objectContaining({ code: 'MATCHING.VECTOR_DIMENSION' }));
  });
});
