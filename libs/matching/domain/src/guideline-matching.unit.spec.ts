import { candidatesFor, selectMatches, type MatchableGuideline, type RelevanceScore } from './index.js';

const g = (id: string, priority: number, extra: Partial<MatchableGuideline> = {}): MatchableGuideline => ({
  id,
  condition: `condition ${id}`,
  action: `action ${id}`,
  priority,
  enabled: true,
  tools: [],
  required_context: [],
  ...extra,
});
const s = (guideline_id: string, relevance: number): RelevanceScore => ({ guideline_id, relevance, confidence: 0.9, reasoning: `why ${guideline_id}` });

describe('guideline matching (seed 000 §8)', () => {
  it('step 1: disabled guidelines are never candidates', () => {
    expect(candidatesFor([g('a', 0), g('b', 0, { enabled: false })], {}).map((x) => x.id)).toEqual(['a']);
  });

  it('step 3: a guideline needing context applies only when every variable is present', () => {
    const needs = g('refund', 0, { required_context: ['order_id', 'email'] });
    expect(candidatesFor([needs], { order_id: '12345' })).toEqual([]);
    expect(candidatesFor([needs], { order_id: '12345', email: 'a@b.c' })).toEqual([needs]);
  });

  it('step 5: scores below the threshold (default 0.3) are dropped; 0.3 itself matches', () => {
    const result = selectMatches([g('a', 0), g('b', 0)], [s('a', 0.29), s('b', 0.3)], {});
    expect(result.matches.map((m) => m.guideline_id)).toEqual(['b']);
  });

  it('step 6: sorts by priority first, then relevance', () => {
    const result = selectMatches([g('low-hi', 1), g('high-lo', 10), g('high-hi', 10)], [s('low-hi', 0.99), s('high-lo', 0.5), s('high-hi', 0.8)], {});
    expect(result.matches.map((m) => m.guideline_id)).toEqual(['high-hi', 'high-lo', 'low-hi']);
  });

  it('step 7: keeps the top N (default 3), configurable', () => {
    const guidelines = ['a', 'b', 'c', 'd'].map((id, i) => g(id, 10 - i));
    const scores = guidelines.map((x) => s(x.id, 0.9));
    expect(selectMatches(guidelines, scores, {}).top_matches.map((m) => m.guideline_id)).toEqual(['a', 'b', 'c']);
    expect(selectMatches(guidelines, scores, {}, { threshold: 0.3, topN: 1 }).top_matches.map((m) => m.guideline_id)).toEqual(['a']);
    expect(selectMatches(guidelines, scores, {}).matches).toHaveLength(4);
  });

  it('step 9: combines the top actions in order and deduplicates tools', () => {
    const result = selectMatches(
      [g('a', 5, { tools: ['check_order', 'refund_policy'] }), g('b', 1, { tools: ['check_order'] }), g('obs', 3, { action: undefined })],
      [s('a', 0.9), s('b', 0.9), s('obs', 0.9)],
      {},
    );
    expect(result.combined_action).toBe('action a\naction b');
    expect(result.tools_to_execute).toEqual([
      { tool_name: 'check_order', priority: 5, guideline_id: 'a' },
      { tool_name: 'refund_policy', priority: 5, guideline_id: 'a' },
    ]);
  });

  it('records the matched context and clamps provider scores into 0..1', () => {
    const result = selectMatches([g('a', 0, { required_context: ['order_id'] })], [{ guideline_id: 'a', relevance: 1.7, confidence: -1, reasoning: 'r' }], { order_id: '42' });
    expect(result.matches[0]).toMatchObject({ relevance_score: 1, confidence: 0, matched_context: { order_id: '42' } });
  });

  it('ignores scores for guidelines that were not candidates', () => {
    expect(selectMatches([g('a', 0)], [s('a', 0.9), s('intruder', 1)], {}).matches.map((m) => m.guideline_id)).toEqual(['a']);
  });
});
