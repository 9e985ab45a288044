import { behaviourSuite } from './support/scenario.js';

const refundGuideline = { condition: 'The customer asks for a refund or their money back', action: 'Explain the 30-day refund policy and offer to start a refund' };

behaviourSuite('support-desk', [
  {
    title: 'a refund request matches the refund guideline and not the unrelated one',
    given: { guidelines: { refund: refundGuideline, weather: { condition: 'The customer asks about the weather forecast', action: 'Say you cannot forecast the weather' } } },
    when: ['I want my money back for order 12345'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['refund']);
      expect(turn!.reply).toContain('30-day refund policy');
    },
  },
  {
    title: 'a tracking question matches tracking, a refund guideline stays out',
    given: { guidelines: { refund: refundGuideline, track: { condition: 'The customer asks where their order or package is', action: 'Share the tracking link and the delivery estimate' } } },
    when: ['Where is my package? It has not arrived'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['track']);
      expect(turn!.reply).toContain('tracking link');
    },
  },
  {
    title: 'priority relationship: the refund guideline overrides an upsell on the same message',
    given: {
      guidelines: { refund: refundGuideline, upsell: { condition: 'The customer mentions their order or money', action: 'Offer the premium membership' } },
      relationships: [{ source: 'refund', target: 'upsell', kind: 'priority' }],
    },
    when: ['I want my money back for my order'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['refund']);
      expect(turn!.reply).not.toContain('premium');
    },
  },
  {
    title: 'entailment: a matched refund brings in the apology guideline the message alone would not match',
    given: {
      guidelines: { refund: refundGuideline, apologise: { condition: 'The service failed the customer badly', action: 'Apologise sincerely for the trouble' } },
      relationships: [{ source: 'refund', target: 'apologise', kind: 'entailment' }],
    },
    when: ['I want a refund please'],
    then: ([turn]) => {
      expect([...turn!.matched].sort()).toEqual(['apologise', 'refund']);
      const steps = (turn!.ready['provenance'] as { relationships: { steps: { kind: string }[] } }).relationships.steps;
      expect(steps.map((s) => s.kind)).toEqual(['entailment']);
    },
  },
  {
    title: 'dependency: a loyalty discount applies only when the refund guideline is active too',
    given: {
      guidelines: { refund: refundGuideline, loyalty: { condition: 'The customer mentions loyalty points or a refund for points', action: 'Offer loyalty points instead of cash' } },
      relationships: [{ source: 'loyalty', target: 'refund', kind: 'dependency' }],
    },
    when: ['Can I use my loyalty points?', 'I want a refund, maybe as loyalty points'],
    then: ([alone, both]) => {
      expect(alone!.matched).toEqual([]);
      expect([...both!.matched].sort()).toEqual(['loyalty', 'refund']);
    },
  },
  {
    title: 'disambiguation: an order question that could mean cancel or track makes the agent ask which',
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
      expect(turn!.reply).toMatch(/which/i);
      expect((turn!.ready['guideline_match_result'] as { disambiguation: { candidates: string[] } }).disambiguation.candidates).toHaveLength(2);
    },
  },
  {
    title: 'criticality: a high-criticality guideline is kept even when top N is 1',
    given: {
      agent: { matching: { top_n: 1 } },
      guidelines: {
        refund: { ...refundGuideline, priority: 5 },
        fraud: { condition: 'The customer mentions a refund they did not ask for or money missing', action: 'Warn about fraud and lock the account', criticality: 'high' },
      },
    },
    when: ['There is a refund I did not ask for and money missing'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['refund', 'fraud']);
    },
  },
  {
    title: 'applied tracking: a tracked guideline applied once is not re-applied on an unrelated follow-up',
    given: { guidelines: { refund: refundGuideline } },
    when: ['I want my money back', 'Thanks, and what colours does the jacket come in?'],
    then: ([first, second]) => {
      expect(first!.applied).toEqual(['refund']);
      expect(second!.matched).toEqual([]);
    },
  },
  {
    title: 'glossary: a synonym of a term lets the matching guideline apply',
    given: {
      guidelines: { premium: { condition: 'The customer asks about the Premium plan', action: 'Explain the Premium plan benefits' } },
      terms: [{ name: 'Premium plan', description: 'Our paid subscription tier', synonyms: ['gold tier'] }],
    },
    when: ['What do I get with the gold tier?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['premium']);
      expect((turn!.ready['provenance'] as { glossary: string[] }).glossary).toEqual(['Premium plan']);
    },
  },
  {
    title: 'an observation (condition without action) matches but asks the agent to do nothing',
    given: { guidelines: { angry: { condition: 'The customer is angry about a refund' }, refund: refundGuideline } },
    when: ['I am angry, where is my refund money'],
    then: ([turn]) => {
      expect([...turn!.matched].sort()).toEqual(['angry', 'refund']);
      expect(turn!.applied).toEqual(['refund']);
    },
  },
]);
