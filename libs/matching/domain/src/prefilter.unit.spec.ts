import type { MatchableGuideline } from './guideline-matching.js';
import { cosineSimilarity, prefilterCandidates, type PrefilterInput } from './prefilter.js';
import type { GuidelineRelationship } from './relationships.js';

const g = (id: string, extra: Partial<MatchableGuideline> = {}): MatchableGuideline => ({ id, condition: id, action: id, priority: 0, enabled: true, tools: [], required_context: [], ...extra });
const rel = (id: string, kind: string, source: string, target: string): GuidelineRelationship => ({ id, kind, source: { type: 'guideline', id: source }, target: { type: 'guideline', id: target } });
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
    const { kept, reasons, result } = given([[g('far'), FAR], [g('near'), NEAR], [g('mid'), MID]]).whenPrefiltered({ k: 2 });
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
    expect(reasons).toEqual({ near: 'similarity', critical: 'high_criticality', applied: 'previously_applied', flagged: 'previously_applied', always: 'continuous', journey: 'journey_active' });
  });

  it('given the older top-level spelling of the always-keep inputs, when prefiltering, then it works the same', () => {
    const { kept } = given([[g('near'), NEAR], [g('applied'), FAR], [g('journey', { journey_id: 'j1' }), FAR]]).whenPrefiltered({ k: 1, previouslyApplied: new Set(['applied']), activeJourneyId: 'j1' });
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
      const { kept } = given([[g('near'), NEAR], [g('unclear', { action: undefined }), FAR], [g('other_option'), FAR]]).whenPrefiltered({ k: 1, alwaysKeep: { relationships: ambiguity } });
      expect(kept).toEqual(['near', 'unclear', 'other_option']);
    });

    it('given a tag endpoint, when its source is kept, then every candidate with the tag is kept', () => {
      const tagged: [MatchableGuideline, number[]][] = [[g('near'), NEAR], [g('a', { tags: ['t'] }), FAR], [g('b', { tags: ['t'] }), FAR], [g('c'), FAR]];
      const { kept } = given(tagged).whenPrefiltered({ k: 1, alwaysKeep: { relationships: [{ id: 'd', kind: 'dependency', source: { type: 'guideline', id: 'near' }, target: { type: 'tag', id: 't' } }] } });
      expect(kept).toEqual(['near', 'a', 'b']);
    });
  });

  it('given a candidate without a vector, when prefiltering, then its similarity is 0 and it competes last', () => {
    const result = prefilterCandidates({ candidates: [g('unknown'), g('near')], vectors: new Map([['near', NEAR]]), query: [1, 0], k: 1 });
    expect(result.kept.map((x) => x.id)).toEqual(['near']);
    expect(result.similarity.get('unknown')).toBe(0);
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

  it('given vectors of different dimensions (different models), then it refuses to compare them', () => {
    expect(() => cosineSimilarity([1, 0, 0], [1, 0])).toThrow(expect.objectContaining({ code: 'MATCHING.VECTOR_DIMENSION' }));
  });
});
