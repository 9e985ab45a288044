import {
  candidatesFor,
  rankMatches,
  scoredMatches,
  selectMatches,
  toMatch,
  type MatchableGuideline,
  type RelevanceScore,
} from './index.js';

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
const s = (guideline_id: string, relevance: number, extra: Partial<RelevanceScore> = {}): RelevanceScore => ({
  guideline_id,
  relevance,
  confidence: 0.9,
  reasoning: `why ${guideline_id}`,
  ...extra,
});
const ids = (matches: { guideline_id: string }[]) => matches.map((m) => m.guideline_id);

describe('guideline matching (priority, relevance, top N)', () => {
  describe('candidatesFor — steps 1 and 3', () => {
    it('given a disabled guideline, when selecting candidates, then it is never one', () => {
      expect(candidatesFor([g('a', 0), g('b', 0, { enabled: false })], {}).map((x) => x.id)).toEqual(['a']);
    });

    it('given a guideline needing context, when a variable is missing, then it is no candidate; when all are present, it is', () => {
      const needs = g('refund', 0, { required_context: ['order_id', 'email'] });
      expect(candidatesFor([needs], { order_id: '12345' })).toEqual([]);
      expect(candidatesFor([needs], { order_id: '12345', email: 'a@b.c' })).toEqual([needs]);
    });
  });

  describe('scoredMatches — step 5', () => {
    it('given scores around the threshold (default 0.3), when scoring, then 0.3 matches and 0.29 does not', () => {
      expect(ids(scoredMatches([g('a', 0), g('b', 0)], [s('a', 0.29), s('b', 0.3)], {}))).toEqual(['b']);
    });

    it('given out-of-range provider scores, when scoring, then they are clamped into 0..1 and the matched context is recorded', () => {
      const [match] = scoredMatches([g('a', 0, { required_context: ['order_id'] })], [s('a', 1.7, { confidence: -1 })], { order_id: '42' });
      expect(match).toMatchObject({ relevance_score: 1, confidence: 0, matched_context: { order_id: '42' } });
    });

    it('given a score for a guideline that is no candidate, when scoring, then it is ignored', () => {
      expect(ids(scoredMatches([g('a', 0)], [s('a', 0.9), s('intruder', 1)], {}))).toEqual(['a']);
    });

    it('given a continuous or previously-applied guideline, when it matches, then the match says so (applied tracking reads it)', () => {
      const [continuous, applied, plain] = scoredMatches(
        [g('c', 0, { continuous: true }), g('p', 0, { previously_applied: true }), g('x', 0)],
        [s('c', 0.9), s('p', 0.9), s('x', 0.9)],
        {},
      );
      expect(continuous).toMatchObject({ continuous: true, criticality: 'medium' });
      expect(applied).toMatchObject({ previously_applied: true });
      expect(plain).not.toHaveProperty('continuous');
      expect(plain).not.toHaveProperty('previously_applied');
    });
  });

  describe('rankMatches — steps 6, 7 and 9', () => {
    it('given matches of different priority and relevance, when ranked, then priority comes first, then relevance', () => {
      const result = selectMatches(
        [g('low-hi', 1), g('high-lo', 10), g('high-hi', 10)],
        [s('low-hi', 0.99), s('high-lo', 0.5), s('high-hi', 0.8)],
        {},
      );
      expect(ids(result.matches)).toEqual(['high-hi', 'high-lo', 'low-hi']);
    });

    it('given four matches, when cutting to top N (default 3, configurable), then the rest stay in matches only', () => {
      const guidelines = ['a', 'b', 'c', 'd'].map((id, i) => g(id, 10 - i));
      const scores = guidelines.map((x) => s(x.id, 0.9));
      expect(ids(selectMatches(guidelines, scores, {}).top_matches)).toEqual(['a', 'b', 'c']);
      expect(ids(selectMatches(guidelines, scores, {}, { threshold: 0.3, topN: 1 }).top_matches)).toEqual(['a']);
      expect(selectMatches(guidelines, scores, {}).matches).toHaveLength(4);
    });

    it('given top matches with and without actions, when combining, then their actions join in rank order and observations add none', () => {
      const result = selectMatches(
        [g('a', 5), g('b', 1), g('obs', 3, { action: undefined })],
        [s('a', 0.9), s('b', 0.9), s('obs', 0.9)],
        {},
      );
      expect(result.combined_action).toBe('action a\naction b');
      expect(selectMatches([g('obs', 3, { action: undefined })], [s('obs', 0.9)], {})).not.toHaveProperty('combined_action');
    });
  });

  describe('criticality in top N — step 7', () => {
    const idsOf = ['a', 'b', 'c', 'd'];
    const scores = idsOf.map((id, i) => s(id, 0.9 - i * 0.1));

    it('given a high-criticality match with the lowest relevance, when cutting to top N, then it leads its priority and is kept', () => {
      const candidates = idsOf.map((id) => g(id, 0, id === 'd' ? { criticality: 'high' } : {}));
      expect(ids(selectMatches(candidates, scores, {}, { threshold: 0.3, topN: 2 }).top_matches)).toEqual(['d', 'a']);
      expect(ids(selectMatches(candidates, scores, {}, { threshold: 0.3, topN: 1 }).top_matches)).toEqual(['d']);
    });

    it('given a high-criticality match of lower priority outside top N, when cutting, then it is kept on top of N, in its sorted place', () => {
      const candidates = idsOf.map((id) => g(id, id === 'd' ? 0 : 5, id === 'd' ? { criticality: 'high' } : {}));
      expect(ids(selectMatches(candidates, scores, {}, { threshold: 0.3, topN: 1 }).top_matches)).toEqual(['a', 'd']);
    });

    it('given a low-criticality match, when ranking among equal priority, then it comes after medium ones whatever its relevance', () => {
      const candidates = [g('principle', 0, { criticality: 'low' }), g('rule', 0)];
      expect(ids(selectMatches(candidates, [s('principle', 0.95), s('rule', 0.5)], {}, { topN: 1 }).top_matches)).toEqual(['rule']);
    });
  });

  describe('tools — steps 8 and 9', () => {
    it('given two guidelines naming one tool, when selecting, then it runs once, with the parameters of the higher-priority guideline', () => {
      const result = selectMatches(
        [g('first', 9, { tools: ['check_order'] }), g('second', 1, { tools: ['check_order', 'refund_policy'] })],
        [
          s('first', 0.9, { tool_parameters: { check_order: { order_id: '123' } } }),
          s('second', 0.9, { tool_parameters: { check_order: { order_id: '999' }, refund_policy: { region: 'EU' } } }),
        ],
        {},
      );
      expect(result.tools_to_execute).toEqual([
        { tool_name: 'check_order', priority: 9, guideline_id: 'first', parameters: { order_id: '123' } },
        { tool_name: 'refund_policy', priority: 1, guideline_id: 'second', parameters: { region: 'EU' } },
      ]);
    });

    it('given a tool without extracted parameters, when selecting, then it runs with none', () => {
      expect(selectMatches([g('a', 0, { tools: ['faq'] })], [s('a', 0.9)], {}).tools_to_execute).toEqual([
        { tool_name: 'faq', priority: 0, guideline_id: 'a', parameters: {} },
      ]);
    });

    it('given the LLM extracted arguments for a tool the guideline does not name, when matching, then they are dropped', () => {
      const [match] = scoredMatches(
        [g('a', 0, { tools: ['faq'] })],
        [s('a', 0.9, { tool_parameters: { faq: { q: 'x' }, delete_account: { id: '1' } } })],
        {},
      );
      expect(match?.tool_parameters).toEqual({ faq: { q: 'x' } });
    });

    it('given a match cut by top N, when selecting, then its tools do not run', () => {
      const result = selectMatches([g('a', 9), g('b', 1, { tools: ['upsell'] })], [s('a', 0.9), s('b', 0.9)], {}, { topN: 1 });
      expect(result.tools_to_execute).toEqual([]);
    });
  });

  describe('selectMatches options', () => {
    it('given only a threshold, when selecting, then top N keeps its default of 3', () => {
      const candidates = ['a', 'b', 'c', 'd', 'e'].map((id) => g(id, 0));
      const result = selectMatches(
        candidates,
        candidates.map((x, i) => s(x.id, 0.5 + i * 0.1)),
        {},
        { threshold: 0.65 },
      );
      expect(ids(result.matches)).toEqual(['e', 'd', 'c']);
      expect(result.top_matches).toHaveLength(3);
    });

    it('given matches already resolved elsewhere, when ranking them directly, then the same rules apply', () => {
      const matches = [toMatch(g('a', 1), 0.5, 1, '', {}), toMatch(g('b', 2), 0.4, 1, '', {})];
      expect(ids(rankMatches(matches, 1).top_matches)).toEqual(['b']);
    });
  });
});
