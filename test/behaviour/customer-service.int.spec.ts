import { behaviourSuite, type GuidelineSpec } from './support/scenario.js';

/**
 * Customer service: refunds, orders, tracking. Matching and ranking (priority, criticality, top N, threshold),
 * relationships (priority by guideline and by tag, entailment, dependency, disambiguation), applied-guideline
 * tracking over several turns, observations, the glossary and required context.
 */

const refund: GuidelineSpec = {
  condition: 'The customer asks for a refund or their money back',
  action: 'Explain the 30-day refund policy and offer to start a refund',
};
const track: GuidelineSpec = {
  condition: 'The customer asks where their order or package is',
  action: 'Share the tracking link and the delivery estimate',
};
const weather: GuidelineSpec = { condition: 'The customer asks about the weather forecast', action: 'Say you cannot forecast the weather' };
const broken: GuidelineSpec = { condition: 'The customer mentions something broken', action: 'Apologise for the damaged item' };

const REFUND_SENTENCE = "I will explain the 30-day refund policy. I'd be happy to start a refund.";

behaviourSuite('customer-service', [
  {
    title: 'a refund request matches the refund guideline and not the unrelated weather one',
    given: { guidelines: { refund, weather } },
    when: ['I want my money back for order 12345'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['refund']);
      expect(turn!.ranked).toEqual(['refund']);
      expect(turn!.reply).toBe(REFUND_SENTENCE);
      expect(turn!.cited).toEqual(['refund']);
      expect(turn!.applied).toEqual(['refund']);
    },
  },
  {
    title: 'a question about a missing package gets the tracking link; the refund guideline stays out',
    given: { guidelines: { refund, track } },
    when: ['Where is my package? It has not arrived'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['track']);
      expect(turn!.reply).toContain('tracking link');
      expect(turn!.reply).not.toContain('refund');
    },
  },
  {
    title: 'numeric priority orders the matches, and the reply follows that order',
    given: { guidelines: { refund, track: { ...track, priority: 2 }, broken: { ...broken, priority: 5 } } },
    when: ['My package arrived broken, I want a refund'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['broken', 'track', 'refund']);
      const at = (text: string): number => turn!.reply.indexOf(text);
      expect(at('damaged item')).toBeGreaterThanOrEqual(0);
      expect(at('damaged item')).toBeLessThan(at('tracking link'));
      expect(at('tracking link')).toBeLessThan(at('30-day refund policy'));
    },
  },
  {
    title: 'criticality: a high-criticality guideline is kept beyond the top 3, a medium one of higher priority is cut',
    given: {
      guidelines: {
        problem: { condition: 'The customer has a problem with an order', action: 'Ask for the order number', priority: 4 },
        order: { condition: 'The customer mentions an order', action: 'Look up the order', priority: 3 },
        payment: { condition: 'The customer mentions a payment', action: 'Check the payment status', priority: 2 },
        general: { condition: 'The customer has a problem', action: 'Offer the help centre link', priority: 1 },
        fraud: { condition: 'The customer mentions a payment problem', action: 'Warn about fraud and lock the card', criticality: 'high' },
      },
    },
    when: ['Problem with my order payment'],
    then: ([turn]) => {
      expect(turn!.ranked).toEqual(['problem', 'order', 'payment', 'general', 'fraud']);
      expect(turn!.matched).toEqual(['problem', 'order', 'payment', 'fraud']);
      expect(turn!.reply).toContain('lock the card');
      expect(turn!.reply).not.toContain('help centre');
    },
  },
  {
    title: 'criticality orders guidelines of equal priority: high, then medium, then low, whatever their relevance',
    given: {
      guidelines: {
        low: { condition: 'The customer mentions an order refund', action: 'Thank them for shopping with us', criticality: 'low' },
        medium: { condition: 'The customer mentions an order refund', action: 'Explain the refund timeline' },
        high: { condition: 'The customer mentions a refund', action: 'Confirm their identity first', criticality: 'high' },
      },
    },
    when: ['Refund for my order'],
    then: ([turn]) => {
      expect(turn!.details['high']!.score).toBeLessThan(turn!.details['medium']!.score);
      expect(turn!.matched).toEqual(['high', 'medium', 'low']);
    },
  },
  {
    title: 'the agent matching threshold drops a partial match that the default threshold would keep',
    given: {
      agent: { matching: { threshold: 0.6 } },
      guidelines: {
        refund,
        orderRefund: { condition: 'The customer wants a refund for an order', action: 'Start a refund for that order' },
      },
    },
    when: ['Refund for my order'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['orderRefund']);
      expect(turn!.ranked).toEqual(['orderRefund']);
      expect(turn!.reply).toBe('I will start a refund for that order.');
    },
  },
  {
    title: 'priority relationship: the refund guideline overrides the upsell while both match, not afterwards',
    given: {
      guidelines: { refund, upsell: { condition: 'The customer mentions an order', action: 'Offer the premium membership' } },
      relationships: [{ source: 'refund', target: 'upsell', kind: 'priority' }],
    },
    when: ['I want my money back for my order', 'Where is my order?'],
    then: ([both, orderOnly]) => {
      expect(both!.matched).toEqual(['refund']);
      expect(both!.reply).not.toContain('premium');
      expect(both!.steps).toEqual([expect.objectContaining({ kind: 'priority', effect: 'deactivated', guideline: 'upsell' })]);
      expect(orderOnly!.matched).toEqual(['upsell']);
      expect(orderOnly!.reply).toContain('premium membership');
    },
  },
  {
    title: 'tag priority: guidelines tagged compliance override every guideline tagged marketing',
    given: {
      guidelines: {
        law: { condition: 'The customer mentions a refund', action: 'State that refunds follow consumer law', tags: ['compliance'] },
        loyalty: { condition: 'The customer mentions an order', action: 'Suggest the loyalty programme', tags: ['marketing'] },
        coupon: { condition: 'The customer mentions a refund', action: 'Offer a discount coupon', tags: ['marketing'] },
      },
      relationships: [{ source: 'tag:compliance', target: 'tag:marketing', kind: 'priority' }],
    },
    when: ['Refund for my order'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['law']);
      expect(
        turn!.steps
          .filter((s) => s.kind === 'priority')
          .map((s) => s.guideline)
          .sort(),
      ).toEqual(['coupon', 'loyalty']);
      expect(turn!.reply).not.toMatch(/coupon|loyalty/);
    },
  },
  {
    title: 'entailment: a matched refund brings in the apology guideline the message alone would not match',
    given: {
      guidelines: {
        refund,
        apologise: { condition: 'The service failed the customer badly', action: 'Apologise sincerely for the trouble' },
      },
      relationships: [{ source: 'refund', target: 'apologise', kind: 'entailment' }],
    },
    when: ['I want a refund please'],
    then: ([turn]) => {
      expect([...turn!.matched].sort()).toEqual(['apologise', 'refund']);
      expect(turn!.steps).toEqual([expect.objectContaining({ kind: 'entailment', effect: 'activated', guideline: 'apologise' })]);
      expect(turn!.details['apologise']!.reasoning).toMatch(/^entailed by /);
      expect(turn!.reply).toContain('apologise sincerely');
      expect(turn!.reply).toContain('30-day refund policy');
    },
  },
  {
    title: 'dependency: the loyalty-points offer applies only in a turn where the refund guideline is active too',
    given: {
      guidelines: {
        refund,
        loyalty: { condition: 'The customer mentions loyalty points', action: 'Offer loyalty points instead of cash' },
      },
      relationships: [{ source: 'loyalty', target: 'refund', kind: 'dependency' }],
    },
    when: ['Can I use my loyalty points?', 'I want a refund as loyalty points'],
    then: ([alone, both]) => {
      expect(alone!.matched).toEqual([]);
      expect(alone!.steps).toEqual([expect.objectContaining({ kind: 'dependency', effect: 'deactivated', guideline: 'loyalty' })]);
      expect(alone!.reply).not.toContain('loyalty points instead');
      expect([...both!.matched].sort()).toEqual(['loyalty', 'refund']);
      expect(both!.reply).toContain('loyalty points instead of cash');
    },
  },
  {
    title: 'disambiguation: an order message that could mean cancel or track makes the agent ask which one',
    given: {
      guidelines: {
        unclear: { condition: 'The customer is not sure what they want with their order' },
        cancel: { condition: 'The customer wants to cancel their order', action: 'Cancel the order if it has not shipped' },
        track: { condition: 'The customer wants to track their order', action: 'Share the tracking link' },
      },
      relationships: [
        { source: 'unclear', target: 'cancel', kind: 'disambiguation' },
        { source: 'unclear', target: 'track', kind: 'disambiguation' },
      ],
    },
    when: ['I want to cancel or track my order, not sure what I want'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['unclear']);
      expect(turn!.disambiguation).toEqual({ source: 'unclear', candidates: expect.arrayContaining(['cancel', 'track']) });
      expect(turn!.disambiguation!.candidates).toHaveLength(2);
      expect(turn!.reply).toMatch(/which one/i);
      expect(turn!.reply).toContain('cancel your order');
      expect(turn!.reply).toContain('track your order');
      expect(turn!.reply).not.toContain('tracking link');
      expect(turn!.applied).toEqual([]);
    },
  },
  {
    title: 'applied tracking: once applied, the refund guideline is not re-applied on an order number or an unrelated message',
    given: { guidelines: { refund } },
    when: ['Refund please', '12345', 'Thanks, and what colours does the jacket come in?'],
    then: ([first, number, unrelated]) => {
      expect(first!.applied).toEqual(['refund']);
      expect(number!.matched).toEqual([]);
      expect(number!.reply).not.toContain('refund policy');
      expect(unrelated!.matched).toEqual([]);
      expect(unrelated!.applied).toEqual([]);
    },
  },
  {
    title: 'a continuous guideline applies again on a follow-up that continues the topic; a non-continuous applied one does not',
    given: {
      guidelines: {
        refund,
        reassure: { condition: 'The customer asks for a refund', action: 'Reassure them that refunds take five days', continuous: true },
      },
    },
    when: ['Refund please', '12345'],
    then: ([first, followUp]) => {
      expect([...first!.matched].sort()).toEqual(['reassure', 'refund']);
      expect(first!.applied).toEqual(['refund']);
      expect(followUp!.matched).toEqual(['reassure']);
      expect(followUp!.details['reassure']!.reasoning).toContain('continues the previous one');
      expect(followUp!.reply).toBe('I will reassure you that refunds take five days.');
    },
  },
  {
    title: 'an applied guideline applies again when its condition arises anew',
    given: { guidelines: { refund } },
    when: ['Refund please', 'Another refund, for a second purchase'],
    then: ([first, again]) => {
      expect(first!.applied).toEqual(['refund']);
      expect(again!.matched).toEqual(['refund']);
      // The provider was told it was applied before and judged the latest message on its own.
      expect(again!.details['refund']!.reasoning).toBe('the latest message mentions refund');
      expect(again!.applied).toEqual(['refund']);
    },
  },
  {
    title: 'low criticality is never tracked as applied, so it continues on a follow-up where the applied one does not',
    given: {
      guidelines: {
        refund,
        polite: { condition: 'The customer mentions a refund', action: 'Thank them for their patience', criticality: 'low' },
      },
    },
    when: ['Refund please', '12345'],
    then: ([first, followUp]) => {
      expect(first!.matched).toEqual(['refund', 'polite']);
      expect([...first!.cited].sort()).toEqual(['polite', 'refund']);
      expect(first!.applied).toEqual(['refund']);
      expect(followUp!.matched).toEqual(['polite']);
    },
  },
  {
    title: 'an observation (condition without action) matches but is neither cited nor applied',
    given: { guidelines: { angry: { condition: 'The customer is angry about a refund' }, refund } },
    when: ['I am angry, where is my refund money'],
    then: ([turn]) => {
      expect([...turn!.matched].sort()).toEqual(['angry', 'refund']);
      expect(turn!.cited).toEqual(['refund']);
      expect(turn!.applied).toEqual(['refund']);
      expect(turn!.reply).toBe(REFUND_SENTENCE);
    },
  },
  {
    title: 'glossary: a synonym of a term in the message matches the guideline that uses the term',
    given: {
      guidelines: {
        premium: { condition: 'The customer asks about the Premium plan', action: 'Explain the Premium plan benefits' },
        refund,
      },
      terms: [
        { name: 'Premium plan', description: 'Our paid subscription tier', synonyms: ['gold tier'] },
        { name: 'Express shipping', description: 'Next-day delivery', synonyms: ['priority mail'] },
      ],
    },
    when: ['What do I get with the gold tier?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['premium']);
      expect(turn!.glossary).toEqual(['Premium plan']);
      expect(turn!.reply).toContain('Premium plan benefits');
    },
  },
  {
    title: 'required context: the upgrade offer applies only once the customer has a loyalty tier',
    given: {
      guidelines: {
        upgrade: {
          condition: 'The customer asks about upgrade offers',
          action: 'Offer the loyalty upgrade',
          required_context: ['loyalty_tier'],
        },
      },
      context: { loyalty_tier: {} },
    },
    when: ['Are there any upgrade offers?', { setContext: { loyalty_tier: 'gold' } }, 'Are there any upgrade offers for me?'],
    then: ([without, withTier]) => {
      expect(without!.matched).toEqual([]);
      expect(without!.ranked).toEqual([]);
      expect(without!.reply).not.toContain('loyalty upgrade');
      expect(withTier!.matched).toEqual(['upgrade']);
      expect(withTier!.details['upgrade']!.matched_context).toEqual({ loyalty_tier: 'gold' });
      expect(withTier!.reply).toContain('loyalty upgrade');
    },
  },
  {
    title: 'a disabled guideline does not match until it is enabled again',
    given: { guidelines: { refund: { ...refund, enabled: false }, track } },
    when: ['Refund please', { patchGuidelines: { refund: { enabled: true } } }, 'Refund please, I mean it'],
    then: ([disabled, enabled]) => {
      expect(disabled!.matched).toEqual([]);
      expect(enabled!.matched).toEqual(['refund']);
    },
  },
  {
    title: 'a match sent to the provider as previously applied says so in the ready event',
    given: { guidelines: { refund } },
    when: ['Refund please', 'Another refund, for a second purchase'],
    then: ([, again]) => {
      expect(again!.details['refund']!.reasoning).toBe('the latest message mentions refund');
      expect(again!.details['refund']!.previously_applied).toBe(true);
    },
  },
]);
