import { appliedAfterReply, withApplicationHistory } from './application-history.js';
import { toMatch, type MatchableGuideline } from './guideline-matching.js';

const g = (id: string, extra: Partial<MatchableGuideline> = {}): MatchableGuideline => ({
  id,
  condition: id,
  action: `do ${id}`,
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...extra,
});

describe('applied-guideline tracking', () => {
  describe('withApplicationHistory', () => {
    it('given guidelines a reply applied earlier, when preparing candidates, then only non-continuous guidelines with an action are flagged', () => {
      const candidates = [g('greet'), g('always_polite', { continuous: true }), g('angry', { action: undefined }), g('refund')];
      const flagged = withApplicationHistory(candidates, ['greet', 'always_polite', 'angry']);
      expect(flagged.map((x) => [x.id, x.previously_applied])).toEqual([
        ['greet', true],
        ['always_polite', false],
        ['angry', false],
        ['refund', false],
      ]);
    });

    it('given no history, when preparing candidates, then nothing is flagged and the input is left untouched', () => {
      const candidates = [g('greet')];
      expect(withApplicationHistory(candidates, [])).toEqual([{ ...candidates[0], previously_applied: false }]);
      expect(candidates[0]).not.toHaveProperty('previously_applied');
    });
  });

  describe('appliedAfterReply', () => {
    it('given a reply citing guidelines, when recording, then the cited actionable matches are applied — and nothing else', () => {
      const matched = [
        toMatch(g('refund'), 0.9, 1, '', {}),
        toMatch(g('angry', { action: undefined }), 0.8, 1, '', {}),
        toMatch(g('always_polite', { continuous: true }), 0.8, 1, '', {}),
        toMatch(g('principle', { criticality: 'low' }), 0.8, 1, '', {}),
        toMatch(g('uncited'), 0.8, 1, '', {}),
      ];
      expect(appliedAfterReply(matched, ['refund', 'angry', 'always_polite', 'principle', 'never-matched', 'refund'])).toEqual(['refund']);
    });

    it('given plain ids with actions (a match reduced to what tracking needs), when recording, then it works the same', () => {
      expect(appliedAfterReply([{ guideline_id: 'a', action: 'x' }, { guideline_id: 'b' }], ['a', 'b'])).toEqual(['a']);
    });
  });
});
