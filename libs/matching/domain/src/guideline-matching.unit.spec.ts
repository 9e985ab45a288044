import { candidatesFor, scopeToJourneys, selectMatches, type MatchableGuideline, type RelevanceScore } from './index.js';

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
      { tool_name: 'check_order', priority: 5, guideline_id: 'a', parameters: {} },
      { tool_name: 'refund_policy', priority: 5, guideline_id: 'a', parameters: {} },
    ]);
  });

  it('step 8: each tool once, with the extracted parameters of its highest-ranked guideline', () => {
    const first = g('first', 9, { tools: ['check_order'] });
    const second = g('second', 1, { tools: ['check_order'] });
    const result = selectMatches([first, second], [
      { guideline_id: 'first', relevance: 0.9, confidence: 1, reasoning: '', tool_parameters: { check_order: { order_id: '123' } } },
      { guideline_id: 'second', relevance: 0.9, confidence: 1, reasoning: '', tool_parameters: { check_order: { order_id: '999' } } },
    ], {});
    expect(result.tools_to_execute).toEqual([{ tool_name: 'check_order', priority: 9, guideline_id: 'first', parameters: { order_id: '123' } }]);
  });

  it('criticality: high-criticality matches are never cut by top N and lead among equal priority', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const candidates = ids.map((id) => g(id, 0, id === 'd' ? { criticality: 'high' } : {}));
    const scores = ids.map((id, i) => ({ guideline_id: id, relevance: 0.9 - i * 0.1, confidence: 1, reasoning: '' }));
    expect(selectMatches(candidates, scores, {}, { threshold: 0.3, topN: 2 }).top_matches.map((m) => m.guideline_id)).toEqual(['d', 'a']);
    expect(selectMatches(candidates, scores, {}, { threshold: 0.3, topN: 1 }).top_matches.map((m) => m.guideline_id)).toEqual(['d']);
    const lowPriorityCritical = ids.map((id) => g(id, id === 'd' ? 0 : 5, id === 'd' ? { criticality: 'high' } : {}));
    expect(selectMatches(lowPriorityCritical, scores, {}, { threshold: 0.3, topN: 1 }).top_matches.map((m) => m.guideline_id)).toEqual(['a', 'd']);
  });

  it('step 2: journey-scoped guidelines apply only while their journey (and step) is active', () => {
    const free = g('free', 0);
    const anyStep = g('any-step', 0, { journey_id: 'booking' });
    const atStep = g('at-step', 0, { journey_id: 'booking', journey_step: 'dates' });
    const all = [free, anyStep, atStep];
    expect(scopeToJourneys(all).map((x) => x.id)).toEqual(['free']);
    expect(scopeToJourneys(all, { journey_id: 'booking', step_id: 'payment' }).map((x) => x.id)).toEqual(['free', 'any-step']);
    expect(scopeToJourneys(all, { journey_id: 'booking', step_id: 'dates' }).map((x) => x.id)).toEqual(['free', 'any-step', 'at-step']);
  });

  it('records the matched context and clamps provider scores into 0..1', () => {
    const result = selectMatches([g('a', 0, { required_context: ['order_id'] })], [{ guideline_id: 'a', relevance: 1.7, confidence: -1, reasoning: 'r' }], { order_id: '42' });
    expect(result.matches[0]).toMatchObject({ relevance_score: 1, confidence: 0, matched_context: { order_id: '42' } });
  });

  it('ignores scores for guidelines that were not candidates', () => {
    expect(selectMatches([g('a', 0)], [s('a', 0.9), s('intruder', 1)], {}).matches.map((m) => m.guideline_id)).toEqual(['a']);
  });
});
