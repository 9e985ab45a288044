import type { MatchableGuideline } from './guideline-matching.js';
import { cosineSimilarity, planBatches, prefilterCandidates } from './prefilter.js';

const g = (id: string, extra: Partial<MatchableGuideline> = {}): MatchableGuideline => ({ id, condition: id, priority: 0, enabled: true, tools: [], required_context: [], ...extra });

describe('prefilterCandidates', () => {
  const candidates = [g('near'), g('mid'), g('far'), g('critical', { criticality: 'high' }), g('applied'), g('always', { continuous: true }), g('journey', { journey_id: 'j1' }), g('linked')];
  const vectors = new Map<string, number[]>([
    ['near', [1, 0]],
    ['mid', [0.7, 0.7]],
    ['far', [0, 1]],
    ['critical', [0, 1]],
    ['applied', [0, 1]],
    ['always', [0, 1]],
    ['journey', [0, 1]],
    ['linked', [0, 1]],
  ]);

  it('keeps the k most similar, and whatever must never be missed, with the reason', () => {
    const { kept, reasons } = prefilterCandidates({
      candidates,
      vectors,
      query: [1, 0],
      k: 2,
      previouslyApplied: new Set(['applied']),
      activeJourneyId: 'j1',
      relationships: [{ id: 'r', kind: 'entailment', source: { type: 'guideline', id: 'near' }, target: { type: 'guideline', id: 'linked' } }],
    });
    expect(kept.map((x) => x.id)).toEqual(['near', 'mid', 'critical', 'applied', 'always', 'journey', 'linked']);
    expect(Object.fromEntries(reasons)).toEqual({ near: 'similarity', mid: 'similarity', critical: 'high_criticality', applied: 'previously_applied', always: 'continuous', journey: 'journey_active', linked: 'relationship' });
  });

  it('drops a guideline that is only dissimilar', () => {
    expect(prefilterCandidates({ candidates, vectors, query: [1, 0], k: 2 }).kept.map((x) => x.id)).not.toContain('far');
  });

  it('cosine similarity of orthogonal, equal and zero vectors', () => {
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([2, 0], [1, 0])).toBeCloseTo(1);
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0);
  });
});

describe('planBatches', () => {
  const items = Array.from({ length: 10 }, (_, i) => ({ id: i, tokens: 100 }));
  const estimateTokens = (x: { tokens: number }) => x.tokens;

  it('one batch when everything fits', () => {
    expect(planBatches(items, { maxBatchTokens: 5_000, maxBatches: 3, estimateTokens })).toHaveLength(1);
  });

  it('as few batches as fit the budget, evenly filled', () => {
    const batches = planBatches(items, { maxBatchTokens: 400, maxBatches: 3, estimateTokens });
    expect(batches.map((b) => b.length)).toEqual([3, 3, 4]);
  });

  it('never more than maxBatches and never drops a guideline: the budget is exceeded evenly instead', () => {
    const batches = planBatches(items, { maxBatchTokens: 100, maxBatches: 2, estimateTokens });
    expect(batches.map((b) => b.length)).toEqual([5, 5]);
    expect(batches.flat()).toHaveLength(10);
    expect(planBatches([], { maxBatchTokens: 100, maxBatches: 2, estimateTokens })).toEqual([]);
  });
});
