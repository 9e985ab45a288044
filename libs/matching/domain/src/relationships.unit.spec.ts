import { toMatch, type GuidelineMatch, type MatchableGuideline } from './guideline-matching.js';
import { resolveRelationships, type GuidelineRelationship } from './relationships.js';

const g = (id: string, extra: Partial<MatchableGuideline> = {}): MatchableGuideline => ({ id, condition: `when ${id}`, action: `do ${id}`, priority: 0, enabled: true, tools: [], required_context: [], ...extra });
const m = (guideline: MatchableGuideline, relevance = 0.8): GuidelineMatch => toMatch(guideline, relevance, 0.9, `matched ${guideline.id}`, {});
const rel = (id: string, kind: string, source: string, target: string): GuidelineRelationship => ({
  id,
  kind,
  source: source.startsWith('tag:') ? { type: 'tag', id: source.slice(4) } : { type: 'guideline', id: source },
  target: target.startsWith('tag:') ? { type: 'tag', id: target.slice(4) } : { type: 'guideline', id: target },
});
const ids = (matches: GuidelineMatch[]) => matches.map((x) => x.guideline_id);

describe('resolveRelationships', () => {
  const refund = g('refund');
  const vip = g('vip');
  const upsell = g('upsell', { tags: ['sales'] });
  const promo = g('promo', { tags: ['sales'] });
  const all = [refund, vip, upsell, promo];

  it('priority: an active source deactivates its target, and says why', () => {
    const result = resolveRelationships([m(refund), m(upsell)], all, [rel('r1', 'priority', 'refund', 'upsell')]);
    expect(ids(result.active)).toEqual(['refund']);
    expect(result.steps).toEqual([{ iteration: 1, relationship_id: 'r1', kind: 'priority', effect: 'deactivated', guideline_id: 'upsell', because: 'refund takes priority' }]);
  });

  it('priority: an inactive source changes nothing; a tag target covers every tagged guideline', () => {
    expect(ids(resolveRelationships([m(upsell)], all, [rel('r1', 'priority', 'refund', 'upsell')]).active)).toEqual(['upsell']);
    expect(ids(resolveRelationships([m(refund), m(upsell), m(promo)], all, [rel('r1', 'priority', 'refund', 'tag:sales')]).active)).toEqual(['refund']);
  });

  it('entailment: an active source activates its target with the source relevance', () => {
    const result = resolveRelationships([m(refund, 0.7)], all, [rel('e1', 'entailment', 'refund', 'vip')]);
    expect(ids(result.active)).toEqual(['refund', 'vip']);
    expect(result.active[1]).toMatchObject({ guideline_id: 'vip', relevance_score: 0.7, reasoning: 'entailed by refund' });
  });

  it('entailment never brings back a guideline removed by priority', () => {
    const result = resolveRelationships([m(refund), m(vip), m(upsell)], all, [rel('p', 'priority', 'vip', 'upsell'), rel('e', 'entailment', 'refund', 'upsell')]);
    expect(ids(result.active)).toEqual(['refund', 'vip']);
  });

  it('dependency: the source stays only if all targets are active (tag target: all its guidelines)', () => {
    expect(ids(resolveRelationships([m(vip), m(refund)], all, [rel('d', 'dependency', 'vip', 'refund')]).active)).toEqual(['vip', 'refund']);
    expect(ids(resolveRelationships([m(vip)], all, [rel('d', 'dependency', 'vip', 'refund')]).active)).toEqual([]);
    expect(ids(resolveRelationships([m(vip), m(upsell)], all, [rel('d', 'dependency', 'vip', 'tag:sales')]).active)).toEqual(['upsell']);
  });

  it('dependency_any: the source stays if any target is active', () => {
    const rels = [rel('a1', 'dependency_any', 'vip', 'refund'), rel('a2', 'dependency_any', 'vip', 'upsell')];
    expect(ids(resolveRelationships([m(vip), m(upsell)], all, rels).active)).toEqual(['vip', 'upsell']);
    expect(ids(resolveRelationships([m(vip)], all, rels).active)).toEqual([]);
  });

  it('iterates to a fixed point: priority removes a dependency target, so the dependent goes in the next round', () => {
    const result = resolveRelationships([m(refund), m(vip), m(upsell)], all, [rel('d', 'dependency', 'vip', 'upsell'), rel('p', 'priority', 'refund', 'upsell')]);
    expect(ids(result.active)).toEqual(['refund']);
    expect(result.steps.map((s) => [s.iteration, s.guideline_id, s.effect])).toEqual([
      [1, 'upsell', 'deactivated'],
      [2, 'vip', 'deactivated'],
    ]);
    expect(result.capped).toBe(false);
  });

  it('a cycle stops at the iteration limit and says so', () => {
    const a = g('a');
    const b = g('b');
    // a entails b, b's dependency on a missing guideline drops it again, forever.
    const result = resolveRelationships([m(a)], [a, b], [rel('e', 'entailment', 'a', 'b'), rel('d', 'dependency', 'b', 'missing')], {}, 3);
    expect(result.iterations).toBe(3);
    expect(result.capped).toBe(true);
  });

  it('disambiguation: an active source with two or more active targets asks the customer to choose', () => {
    const ambiguous = g('ambiguous', { action: undefined });
    const cancel = g('cancel');
    const result = resolveRelationships([m(ambiguous), m(refund), m(cancel)], [...all, ambiguous, cancel], [rel('x1', 'disambiguation', 'ambiguous', 'refund'), rel('x2', 'disambiguation', 'ambiguous', 'cancel')]);
    expect(result.disambiguation).toEqual({ source_id: 'ambiguous', candidates: ['refund', 'cancel'] });
    expect(ids(result.active)).toEqual(['ambiguous']);
    // With only one target active there is nothing to ask.
    expect(resolveRelationships([m(ambiguous), m(refund)], [...all, ambiguous, cancel], [rel('x1', 'disambiguation', 'ambiguous', 'refund'), rel('x2', 'disambiguation', 'ambiguous', 'cancel')]).disambiguation).toBeUndefined();
  });
});
