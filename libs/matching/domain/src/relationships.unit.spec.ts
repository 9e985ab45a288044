import { toMatch, type GuidelineMatch, type MatchableGuideline } from './guideline-matching.js';
import { resolveRelationships, type GuidelineRelationship, type RelationshipResolution } from './relationships.js';

const g = (id: string, extra: Partial<MatchableGuideline> = {}): MatchableGuideline => ({
  id,
  condition: `when ${id}`,
  action: `do ${id}`,
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...extra,
});
const endpoint = (ref: string): GuidelineRelationship['source'] =>
  ref.startsWith('tag:') ? { type: 'tag', id: ref.slice(4) } : { type: 'guideline', id: ref };
const rel = (id: string, kind: string, source: string, target: string, group_id?: string): GuidelineRelationship => ({
  id,
  kind,
  source: endpoint(source),
  target: endpoint(target),
  ...(group_id ? { group_id } : {}),
});

/** Step as `iteration relationship effect guideline`, e.g. `1 p1 deactivated upsell`. */
const brief = (result: RelationshipResolution): string[] =>
  result.steps.map((s) => `${s.iteration} ${s.relationship_id || s.kind} ${s.effect} ${s.guideline_id}`);

/**
 * given(guidelines, relationships).whenMatched({ id: relevance }) resolves the LLM's matches (in the order given)
 * and returns the resolution for `then…` checks.
 */
function given(guidelines: MatchableGuideline[], relationships: GuidelineRelationship[]) {
  return {
    whenMatched(relevances: Record<string, number>, maxIterations?: number) {
      const byId = new Map(guidelines.map((x) => [x.id, x]));
      const matched: GuidelineMatch[] = Object.entries(relevances).map(([id, relevance]) =>
        toMatch(byId.get(id) ?? g(id), relevance, 0.9, `llm: ${id}`, {}),
      );
      const result = resolveRelationships(matched, guidelines, relationships, {}, maxIterations);
      return {
        result,
        then(expected: { active: string[]; steps?: string[] }) {
          expect(result.active.map((m) => m.guideline_id)).toEqual(expected.active);
          if (expected.steps) expect(brief(result)).toEqual(expected.steps);
          return result;
        },
      };
    },
  };
}

describe('resolveRelationships', () => {
  describe('priority: source active ⇒ target deactivated', () => {
    it('given refund > upsell, when both match, then upsell is deactivated and the step says why', () => {
      const result = given([g('refund'), g('upsell')], [rel('p1', 'priority', 'refund', 'upsell')])
        .whenMatched({ refund: 0.9, upsell: 0.8 })
        .then({ active: ['refund'] });
      expect(result.steps).toEqual([
        {
          iteration: 1,
          relationship_id: 'p1',
          kind: 'priority',
          effect: 'deactivated',
          guideline_id: 'upsell',
          because: 'refund takes priority',
        },
      ]);
      expect(result).toMatchObject({ iterations: 2, capped: false, disambiguations: [] });
    });

    it('given refund > upsell, when only upsell matches, then it stays (an inactive source overrides nothing)', () => {
      given([g('refund'), g('upsell')], [rel('p1', 'priority', 'refund', 'upsell')])
        .whenMatched({ upsell: 0.8 })
        .then({ active: ['upsell'], steps: [] });
    });

    it('given a > b > c, when all three match, then b and c both go: priority is judged against the set as a whole', () => {
      given([g('a'), g('b'), g('c')], [rel('ab', 'priority', 'a', 'b'), rel('bc', 'priority', 'b', 'c')])
        .whenMatched({ a: 0.8, b: 0.5, c: 0.9 })
        .then({ active: ['a'], steps: ['1 ab deactivated b', '1 bc deactivated c'] });
    });

    it('given a > b > c, when only a and c match, then c stays: priority does not pass through an inactive guideline', () => {
      given([g('a'), g('b'), g('c')], [rel('ab', 'priority', 'a', 'b'), rel('bc', 'priority', 'b', 'c')])
        .whenMatched({ a: 0.8, c: 0.9 })
        .then({ active: ['a', 'c'], steps: [] });
    });

    it('given tag endpoints, then a tag target covers every tagged guideline and a tag source any other tagged one', () => {
      const sales = [g('upsell', { tags: ['sales'] }), g('promo', { tags: ['sales'] })];
      given([g('refund'), ...sales], [rel('p1', 'priority', 'refund', 'tag:sales')])
        .whenMatched({ refund: 0.9, upsell: 0.8, promo: 0.7 })
        .then({ active: ['refund'], steps: ['1 p1 deactivated upsell', '1 p1 deactivated promo'] });
      given([g('manager', { tags: ['escalation'] }), g('pepsi')], [rel('p2', 'priority', 'tag:escalation', 'pepsi')])
        .whenMatched({ pepsi: 0.9, manager: 0.6 })
        .then({ active: ['manager'], steps: ['1 p2 deactivated pepsi'] });
    });

    it('given refund > upsell and vip entails upsell, then priority removal is final: entailment never brings upsell back', () => {
      given([g('refund'), g('vip'), g('upsell')], [rel('p1', 'priority', 'refund', 'upsell'), rel('e1', 'entailment', 'vip', 'upsell')])
        .whenMatched({ refund: 0.9, vip: 0.8, upsell: 0.7 })
        .then({ active: ['refund', 'vip'], steps: ['1 p1 deactivated upsell'] });
    });
  });

  describe('entailment: source active ⇒ target activated', () => {
    it('given refund entails explain_policy, when only refund matches, then explain_policy is activated with refund’s score and reason', () => {
      const { result } = given(
        [g('refund'), g('explain_policy', { tools: ['get_policy'] })],
        [rel('e1', 'entailment', 'refund', 'explain_policy')],
      ).whenMatched({ refund: 0.7 });
      expect(result.active.map((m) => m.guideline_id)).toEqual(['refund', 'explain_policy']);
      expect(result.active[1]).toMatchObject({
        guideline_id: 'explain_policy',
        relevance_score: 0.7,
        confidence: 0.9,
        entailed_by: 'refund',
        reasoning: 'entailed by refund (llm: refund)',
        tools: ['get_policy'],
        tool_parameters: {},
      });
      expect(result.steps).toEqual([
        {
          iteration: 1,
          relationship_id: 'e1',
          kind: 'entailment',
          effect: 'activated',
          guideline_id: 'explain_policy',
          because: 'entailed by refund',
        },
      ]);
    });

    it('given a chain a → b → c, then one iteration activates both, each scored like a', () => {
      const { result } = given(
        [g('a'), g('b'), g('c')],
        [rel('ab', 'entailment', 'a', 'b'), rel('bc', 'entailment', 'b', 'c')],
      ).whenMatched({ a: 0.6 });
      expect(brief(result)).toEqual(['1 ab activated b', '1 bc activated c']);
      expect(result.active.map((m) => [m.guideline_id, m.relevance_score])).toEqual([
        ['a', 0.6],
        ['b', 0.6],
        ['c', 0.6],
      ]);
    });

    it('given two entailers of one target, then the strongest one lends its score', () => {
      const { result } = given(
        [g('weak'), g('strong'), g('t')],
        [rel('w', 'entailment', 'weak', 't'), rel('s', 'entailment', 'strong', 't')],
      ).whenMatched({ weak: 0.4, strong: 0.95 });
      expect(result.active.find((m) => m.guideline_id === 't')).toMatchObject({ relevance_score: 0.95, entailed_by: 'strong' });
    });

    it('given a tag target, then every tagged usable guideline is activated — never a disabled one or one outside the usable set', () => {
      const usable = [
        g('checkout'),
        g('upsell', { tags: ['sales'] }),
        g('promo', { tags: ['sales'] }),
        g('off', { tags: ['sales'], enabled: false }),
      ];
      given(usable, [rel('e1', 'entailment', 'checkout', 'tag:sales'), rel('e2', 'entailment', 'checkout', 'not_usable')])
        .whenMatched({ checkout: 0.8 })
        .then({ active: ['checkout', 'upsell', 'promo'], steps: ['1 e1 activated upsell', '1 e1 activated promo'] });
    });

    it('given g1 entails g2 and g2 depends on an unmatched g3, then g2 is activated and then deactivated (Parlant: entailed, unmet dependency)', () => {
      given([g('g1'), g('g2'), g('g3')], [rel('e', 'entailment', 'g1', 'g2'), rel('d', 'dependency', 'g2', 'g3')])
        .whenMatched({ g1: 0.9 })
        .then({ active: ['g1'], steps: ['1 e activated g2', '2 d deactivated g2'] });
    });
  });

  describe('dependency: source active only if ALL its targets are', () => {
    const guidelines = [g('return'), g('no_order_number'), g('order_number')];
    const deps = [rel('d1', 'dependency', 'no_order_number', 'return'), rel('d2', 'dependency', 'order_number', 'return')];

    it('given specific guidelines depend on a baseline, when the baseline matches too, then they stay', () => {
      given(guidelines, deps)
        .whenMatched({ return: 0.9, no_order_number: 0.7 })
        .then({ active: ['return', 'no_order_number'], steps: ['1 d1 kept no_order_number'] });
    });

    it('given the same, when the baseline does not match, then the dependant is deactivated', () => {
      given(guidelines, deps)
        .whenMatched({ no_order_number: 0.7 })
        .then({ active: [], steps: ['1 d1 deactivated no_order_number'] });
    });

    it('given a tag target, then every tagged guideline must be active, and an empty tag is never met', () => {
      const tagged = [g('vip'), g('kyc', { tags: ['verified'] }), g('aml', { tags: ['verified'] })];
      const dep = [rel('d', 'dependency', 'vip', 'tag:verified')];
      given(tagged, dep)
        .whenMatched({ vip: 0.9, kyc: 0.8, aml: 0.8 })
        .then({ active: ['vip', 'kyc', 'aml'] });
      given(tagged, dep)
        .whenMatched({ vip: 0.9, kyc: 0.8 })
        .then({ active: ['kyc'], steps: ['1 d deactivated vip'] });
      given(tagged, [rel('d', 'dependency', 'vip', 'tag:nobody')])
        .whenMatched({ vip: 0.9 })
        .then({ active: [] });
    });

    it('given a tag source, then the dependency applies to every guideline with the tag', () => {
      given([g('baseline'), g('x', { tags: ['flow'] }), g('y', { tags: ['flow'] })], [rel('d', 'dependency', 'tag:flow', 'baseline')])
        .whenMatched({ x: 0.9, y: 0.8 })
        .then({ active: [], steps: ['1 d deactivated x', '1 d deactivated y'] });
    });

    it('given a → b → c with c unmatched, then the removal cascades within one iteration', () => {
      given([g('a'), g('b'), g('c')], [rel('ab', 'dependency', 'a', 'b'), rel('bc', 'dependency', 'b', 'c')])
        .whenMatched({ a: 0.9, b: 0.8 })
        .then({ active: [], steps: ['1 ab deactivated a', '1 bc deactivated b'] });
    });

    it('given c depends on b and a entails b, when a and c match, then c comes back once b is entailed', () => {
      const result = given([g('a'), g('b'), g('c')], [rel('d', 'dependency', 'c', 'b'), rel('e', 'entailment', 'a', 'b')])
        .whenMatched({ a: 0.9, c: 0.8 })
        .then({ active: ['a', 'c', 'b'], steps: ['1 d deactivated c', '1 e activated b', '2 d activated c'] });
      expect(result.iterations).toBe(3);
    });

    it('given a > b, b > c and c depends on b (Parlant: cascading priorities), then only a and d remain; c goes for good with b', () => {
      given(
        [g('a'), g('b'), g('c'), g('d')],
        [rel('ab', 'priority', 'a', 'b'), rel('bc', 'priority', 'b', 'c'), rel('cb', 'dependency', 'c', 'b')],
      )
        .whenMatched({ a: 0.8, b: 0.7, c: 0.6, d: 0.5 })
        .then({ active: ['a', 'd'], steps: ['1 cb kept c', '1 ab deactivated b', '1 bc deactivated c'] });
    });

    it('given a dependant of a dependant of a deprioritized guideline, then the whole chain goes in the same iteration', () => {
      given(
        [g('boss'), g('b'), g('c'), g('d')],
        [rel('p', 'priority', 'boss', 'b'), rel('cb', 'dependency', 'c', 'b'), rel('dc', 'dependency', 'd', 'c')],
      )
        .whenMatched({ boss: 0.9, b: 0.8, c: 0.7, d: 0.6 })
        .then({ active: ['boss'], steps: ['1 cb kept c', '1 dc kept d', '1 p deactivated b', '1 cb deactivated c', '1 dc deactivated d'] });
    });

    it('given mutually dependent guidelines, then they hold each other up — and fall together', () => {
      const loop = [rel('ab', 'dependency', 'a', 'b'), rel('ba', 'dependency', 'b', 'a')];
      given([g('a'), g('b')], loop)
        .whenMatched({ a: 0.9, b: 0.8 })
        .then({ active: ['a', 'b'] });
      given([g('a'), g('b'), g('c')], [...loop, rel('bc', 'dependency', 'b', 'c')])
        .whenMatched({ a: 0.9, b: 0.8 })
        .then({ active: [] });
    });
  });

  describe('dependency_any: source active if ANY of its targets is', () => {
    const guidelines = [g('card_limits'), g('atm'), g('credit'), g('x'), g('y')];

    it('given card_limits depends on any of atm or credit, when one matches, then it stays', () => {
      const any = [rel('a1', 'dependency_any', 'card_limits', 'atm'), rel('a2', 'dependency_any', 'card_limits', 'credit')];
      given(guidelines, any)
        .whenMatched({ card_limits: 0.9, credit: 0.6 })
        .then({ active: ['card_limits', 'credit'], steps: ['1 a2 kept card_limits'] });
      given(guidelines, any)
        .whenMatched({ card_limits: 0.9 })
        .then({ active: [], steps: ['1 a1 deactivated card_limits'] });
    });

    it('given two groups (group_id), then each group needs one active target', () => {
      const groups = [
        rel('a1', 'dependency_any', 'card_limits', 'atm', 'kind'),
        rel('a2', 'dependency_any', 'card_limits', 'credit', 'kind'),
        rel('b1', 'dependency_any', 'card_limits', 'x', 'who'),
        rel('b2', 'dependency_any', 'card_limits', 'y', 'who'),
      ];
      given(guidelines, groups)
        .whenMatched({ card_limits: 0.9, atm: 0.5, y: 0.5 })
        .then({ active: ['card_limits', 'atm', 'y'] });
      given(guidelines, groups)
        .whenMatched({ card_limits: 0.9, atm: 0.5, credit: 0.5 })
        .then({ active: ['atm', 'credit'], steps: ['1 b1 deactivated card_limits'] });
    });

    it('given a tag target, then any active tagged guideline meets it', () => {
      const tagged = [g('s'), g('m1', { tags: ['members'] }), g('m2', { tags: ['members'] })];
      given(tagged, [rel('a', 'dependency_any', 's', 'tag:members')])
        .whenMatched({ s: 0.9, m2: 0.4 })
        .then({ active: ['s', 'm2'] });
    });

    it('given one target removed by priority, then a surviving sibling still meets the group', () => {
      given(
        [g('g1'), g('g2'), g('g3'), g('g4')],
        [rel('a2', 'dependency_any', 'g1', 'g2'), rel('a3', 'dependency_any', 'g1', 'g3'), rel('p', 'priority', 'g4', 'g2')],
      )
        .whenMatched({ g1: 0.9, g2: 0.8, g3: 0.7, g4: 0.6 })
        .then({ active: ['g1', 'g3', 'g4'] });
    });

    it('given every target removed by priority, then the source goes for good', () => {
      given([g('g1'), g('g2'), g('g4')], [rel('a2', 'dependency_any', 'g1', 'g2'), rel('p', 'priority', 'g4', 'g2')])
        .whenMatched({ g1: 0.9, g2: 0.8, g4: 0.6 })
        .then({ active: ['g4'], steps: ['1 a2 kept g1', '1 p deactivated g2', '1 a2 deactivated g1'] });
    });

    it('given both a dependency and a dependency_any, then both must hold', () => {
      const mixed = [
        rel('d', 'dependency', 'card_limits', 'x'),
        rel('a1', 'dependency_any', 'card_limits', 'atm'),
        rel('a2', 'dependency_any', 'card_limits', 'credit'),
      ];
      given(guidelines, mixed)
        .whenMatched({ card_limits: 0.9, x: 0.5, atm: 0.5 })
        .then({ active: ['card_limits', 'x', 'atm'] });
      given(guidelines, mixed)
        .whenMatched({ card_limits: 0.9, atm: 0.5 })
        .then({ active: ['atm'], steps: ['1 d deactivated card_limits'] });
    });
  });

  describe('disambiguation: an ambiguity observation with ≥2 active targets asks the customer to choose', () => {
    const unclear = g('unclear_limits', { action: undefined });
    const options = [unclear, g('atm_limits'), g('card_limits'), g('loan_limits')];
    const rels = [
      rel('x1', 'disambiguation', 'unclear_limits', 'atm_limits'),
      rel('x2', 'disambiguation', 'unclear_limits', 'card_limits'),
      rel('x3', 'disambiguation', 'unclear_limits', 'loan_limits'),
    ];

    it('given two targets active, then both are deactivated, the observation stays, and the result names the choice', () => {
      const result = given(options, rels)
        .whenMatched({ unclear_limits: 0.8, atm_limits: 0.7, card_limits: 0.6 })
        .then({ active: ['unclear_limits'], steps: ['2 x1 deactivated atm_limits', '2 x2 deactivated card_limits'] });
      expect(result.disambiguation).toEqual({ source_id: 'unclear_limits', candidates: ['atm_limits', 'card_limits'] });
      expect(result.disambiguations).toEqual([result.disambiguation]);
      expect(result.steps[0]?.because).toBe('ambiguous with card_limits (unclear_limits): ask the customer to choose');
    });

    it('given one target active, then there is nothing to ask', () => {
      const result = given(options, rels)
        .whenMatched({ unclear_limits: 0.8, atm_limits: 0.7 })
        .then({ active: ['unclear_limits', 'atm_limits'], steps: ['2 x1 kept unclear_limits'] });
      expect(result.disambiguation).toBeUndefined();
    });

    it('given a source with an action, then it never disambiguates (only observations do)', () => {
      const actionable = [g('unclear_limits'), ...options.slice(1)];
      given(actionable, rels)
        .whenMatched({ unclear_limits: 0.8, atm_limits: 0.7, card_limits: 0.6 })
        .then({ active: ['unclear_limits', 'atm_limits', 'card_limits'], steps: ['2 x1 kept unclear_limits'] });
    });

    it('given a target removed by priority, then it is no candidate', () => {
      const result = given(options, [...rels, rel('p', 'priority', 'atm_limits', 'card_limits')])
        .whenMatched({ unclear_limits: 0.8, atm_limits: 0.7, card_limits: 0.6 })
        .then({ active: ['unclear_limits', 'atm_limits'] });
      expect(result.disambiguation).toBeUndefined();
    });

    it('given a tag target, then its active guidelines are the candidates', () => {
      const tagged = [unclear, g('atm_limits', { tags: ['limits'] }), g('card_limits', { tags: ['limits'] })];
      const result = given(tagged, [rel('x', 'disambiguation', 'unclear_limits', 'tag:limits')])
        .whenMatched({ unclear_limits: 0.8, atm_limits: 0.7, card_limits: 0.6 })
        .then({ active: ['unclear_limits'] });
      expect(result.disambiguation).toEqual({ source_id: 'unclear_limits', candidates: ['atm_limits', 'card_limits'] });
    });
  });

  describe('fixed point and its limit', () => {
    // a entails b; c needs b and entails d; e needs d and entails f; g needs f: each link needs one more iteration.
    const chain = [g('a'), g('b'), g('c'), g('d'), g('e'), g('f'), g('g')];
    const links = [
      rel('ab', 'entailment', 'a', 'b'),
      rel('cb', 'dependency', 'c', 'b'),
      rel('cd', 'entailment', 'c', 'd'),
      rel('ed', 'dependency', 'e', 'd'),
      rel('ef', 'entailment', 'e', 'f'),
      rel('gf', 'dependency', 'g', 'f'),
    ];
    const matched = { a: 0.9, c: 0.8, e: 0.7, g: 0.6 };

    it('given no relationships, then one iteration confirms the matches', () => {
      expect(
        given([g('a')], [])
          .whenMatched({ a: 0.9 })
          .then({ active: ['a'], steps: [] }),
      ).toMatchObject({ iterations: 1, capped: false });
    });

    it('given a chain longer than the limit (default 3, Parlant’s), then the state after the last iteration is kept and a cycle step names what still changed', () => {
      const result = given(chain, links)
        .whenMatched(matched)
        .then({
          active: ['a', 'c', 'e', 'b', 'd', 'f'],
          steps: [
            '1 cb deactivated c',
            '1 ed deactivated e',
            '1 gf deactivated g',
            '1 ab activated b',
            '2 cb activated c',
            '2 cd activated d',
            '3 ed activated e',
            '3 ef activated f',
            '3 cycle kept e',
            '3 cycle kept f',
          ],
        });
      expect(result).toMatchObject({ iterations: 3, capped: true });
      expect(result.steps.at(-1)).toEqual({
        iteration: 3,
        relationship_id: '',
        kind: 'cycle',
        effect: 'kept',
        guideline_id: 'f',
        because: 'still changing after 3 iterations (the limit); the state after the last one is kept',
      });
    });

    it('given the same chain and a higher limit, then it reaches the fixed point', () => {
      const result = given(chain, links)
        .whenMatched(matched, 10)
        .then({ active: ['a', 'c', 'e', 'g', 'b', 'd', 'f'] });
      expect(result).toMatchObject({ iterations: 5, capped: false });
    });

    it('given a loop across kinds (a entails b, b > a), then it settles: priority removal is final', () => {
      const result = given([g('a'), g('b')], [rel('e', 'entailment', 'a', 'b'), rel('p', 'priority', 'b', 'a')])
        .whenMatched({ a: 0.9 })
        .then({ active: ['b'], steps: ['1 e activated b', '2 p deactivated a'] });
      expect(result).toMatchObject({ iterations: 3, capped: false });
    });

    it('given unknown relationship kinds (Parlant’s tool-level reevaluation), then they are ignored', () => {
      given([g('a'), g('b')], [rel('r', 'reevaluation', 'a', 'b')])
        .whenMatched({ a: 0.9, b: 0.8 })
        .then({ active: ['a', 'b'], steps: [] });
    });
  });
});
