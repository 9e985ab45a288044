import { behaviourSuite, scenarioSlug, type GuidelineSpec, type JourneySpec } from './support/scenario.js';

/**
 * Journeys in the turn (docs/data-model.md#journeys, matching step 2): activation when a journey's condition matches, one step per
 * customer answer, forks, completion, a changed earlier answer (backtrack), digressions, two journeys whose
 * conditions overlap, journey-scoped guidelines, and the switches that turn journeys off. Every journey condition
 * is evaluated in the turn's one matching call; the provider answers are recorded (offline provider).
 */

const wantsReturn: GuidelineSpec = { condition: 'The customer wants to return an item' };
const wantsExchange: GuidelineSpec = { condition: 'The customer wants to exchange an item for another size' };
const wantsBooking: GuidelineSpec = { condition: 'The customer wants to book a table' };
const wantsAccount: GuidelineSpec = { condition: 'The customer wants to open an account' };
const baggage: GuidelineSpec = {
  condition: 'The customer asks about shipping costs',
  action: 'Explain that shipping is free above 50 euros',
};

const returns: JourneySpec = {
  title: 'Process a return',
  conditions: ['wantsReturn'],
  steps: [
    { id: 'ask_order', kind: 'chat', instruction: 'Ask for the order number' },
    { id: 'ask_reason', kind: 'chat', instruction: 'Ask why the item is being returned' },
    { id: 'decide', kind: 'fork', instruction: 'Ask whether they prefer a refund or an exchange' },
    { id: 'refund', kind: 'chat', instruction: 'Confirm the refund to the original payment method' },
    { id: 'exchange', kind: 'chat', instruction: 'Offer a replacement item in another size' },
    { id: 'done', kind: 'final' },
  ],
  transitions: [
    { from: 'ask_order', to: 'ask_reason', condition: 'The customer gave their order number' },
    { from: 'ask_reason', to: 'decide' },
    { from: 'decide', to: 'refund', condition: 'The customer wants a refund of the money', priority: 10 },
    { from: 'decide', to: 'exchange', condition: 'The customer wants an exchange for another item' },
    { from: 'refund', to: 'done' },
    { from: 'exchange', to: 'done' },
  ],
  initial_step: 'ask_order',
};

const exchange: JourneySpec = {
  title: 'Exchange for another size',
  conditions: ['wantsExchange'],
  steps: [
    { id: 'ask_size', kind: 'chat', instruction: 'Ask which size they need' },
    { id: 'done', kind: 'final' },
  ],
  transitions: [{ from: 'ask_size', to: 'done', condition: 'The customer named a size' }],
  initial_step: 'ask_size',
};

const booking: JourneySpec = {
  title: 'Book a table',
  conditions: ['wantsBooking'],
  steps: [
    { id: 'ask_party', kind: 'chat', instruction: 'Ask how many guests are coming' },
    { id: 'ask_time', kind: 'chat', instruction: 'Ask for the date and time of the reservation' },
    { id: 'confirm', kind: 'chat', instruction: 'Read back the reservation and ask the customer to confirm' },
    { id: 'booked', kind: 'final' },
  ],
  transitions: [
    { from: 'ask_party', to: 'ask_time', condition: 'The customer said how many guests are coming' },
    { from: 'ask_time', to: 'confirm', condition: 'The customer gave a date and time' },
    { from: 'confirm', to: 'booked', condition: 'The customer confirmed the reservation' },
  ],
  initial_step: 'ask_party',
};

const onboarding: JourneySpec = {
  title: 'Open an account',
  conditions: ['wantsAccount'],
  steps: [
    { id: 'ask_email', kind: 'chat', instruction: 'Ask for the email address for the account', required_context: ['email'] },
    { id: 'ask_plan', kind: 'fork', instruction: 'Ask whether they want the free plan or the business plan' },
    { id: 'free', kind: 'chat', instruction: 'Explain the limits of the free plan' },
    { id: 'business', kind: 'chat', instruction: 'Explain the business plan pricing' },
    { id: 'welcome', kind: 'final' },
  ],
  transitions: [
    { from: 'ask_email', to: 'ask_plan', condition: 'The customer gave their email address' },
    { from: 'ask_plan', to: 'free', condition: 'The customer chose the free plan' },
    { from: 'ask_plan', to: 'business', condition: 'The customer chose the business plan' },
    { from: 'free', to: 'welcome' },
    { from: 'business', to: 'welcome' },
  ],
  initial_step: 'ask_email',
};

const RETURN = 'I want to return an item';
const ORDER = 'My order number is 55555';
const REASON = 'It arrived broken';
const REFUND = 'I want a refund of the money please';
const EXCHANGE = 'I want an exchange for another item';

behaviourSuite('journeys', [
  {
    title: 'a return journey starts when its condition matches and asks its first step',
    given: { guidelines: { wantsReturn, baggage }, journeys: { returns } },
    when: [RETURN],
    then: ([turn]) => {
      expect(turn!.matchedJourneys).toEqual(['returns']);
      expect(turn!.journeys).toEqual({ returns: 'Active@ask_order' });
      expect(turn!.reply).toMatch(/order number/i);
    },
  },
  {
    title: 'the return moves one step per answer, through the fork to a refund, and completes',
    given: { guidelines: { wantsReturn }, journeys: { returns } },
    when: [RETURN, ORDER, REASON, REFUND, 'Thank you'],
    then: (turns) => {
      expect(turns.map((t) => t.journeys['returns'])).toEqual([
        'Active@ask_order',
        'Active@ask_reason',
        'Active@decide',
        'Active@refund',
        'Completed@done',
      ]);
      expect(turns[1]!.reply).toMatch(/returned/i);
      expect(turns[2]!.reply).toMatch(/refund or an exchange/i);
      expect(turns[3]!.reply).toMatch(/original payment method/i);
    },
  },
  {
    title: 'the fork takes the exchange branch when the customer asks for an exchange',
    given: { guidelines: { wantsReturn }, journeys: { returns } },
    when: [RETURN, ORDER, REASON, EXCHANGE],
    then: (turns) => {
      expect(turns[3]!.journeys['returns']).toBe('Active@exchange');
      expect(turns[3]!.reply).toMatch(/replacement item/i);
    },
  },
  {
    title: 'a customer who changes their refund into an exchange goes back to the fork and takes the other branch',
    given: { guidelines: { wantsReturn }, journeys: { returns } },
    when: [RETURN, ORDER, REASON, REFUND, 'Actually I changed my mind, I want an exchange for another item'],
    then: (turns) => {
      expect(turns[3]!.journeys['returns']).toBe('Active@refund');
      expect(turns[4]!.journeys['returns']).toBe('Active@exchange');
      expect(turns[4]!.ready['journey_conditions']).toMatchObject({ 'The customer wants an exchange for another item': true });
      expect(turns[4]!.reply).toMatch(/replacement item/i);
    },
  },
  {
    title: 'a step waits while the customer has not answered it',
    given: { guidelines: { wantsReturn }, journeys: { returns } },
    when: [RETURN, 'Hmm, let me look for it', ORDER],
    then: (turns) => {
      expect(turns.map((t) => t.journeys['returns'])).toEqual(['Active@ask_order', 'Active@ask_order', 'Active@ask_reason']);
      expect(turns[1]!.reply).toMatch(/order number/i);
    },
  },
  {
    title: 'a digression is answered and the journey continues where it was',
    given: { guidelines: { wantsReturn, baggage }, journeys: { returns } },
    when: [RETURN, 'By the way what are the shipping costs?', ORDER],
    then: (turns) => {
      expect(turns[1]!.matched).toContain('baggage');
      expect(turns[1]!.reply).toMatch(/shipping is free/i);
      expect(turns[1]!.journeys['returns']).toBe('Active@ask_order');
      expect(turns[2]!.journeys['returns']).toBe('Active@ask_reason');
    },
  },
  {
    title: 'two journeys whose conditions overlap both start; the higher priority one leads the reply',
    given: { guidelines: { wantsReturn, wantsExchange }, journeys: { returns, exchange: { ...exchange, priority: 5 } } },
    when: ['I want to return an item and exchange an item for another size'],
    then: ([turn]) => {
      expect([...turn!.matchedJourneys].sort()).toEqual(['exchange', 'returns']);
      expect(turn!.journeys).toEqual({ returns: 'Active@ask_order', exchange: 'Active@ask_size' });
      expect((turn!.ready['active_journey'] as { journey_id: string }).journey_id).toBe(
        `${scenarioSlug('journeys', 'two journeys whose conditions overlap both start; the higher priority one leads the reply')}-exchange`,
      );
      expect(turn!.reply).toMatch(/which size/i);
    },
  },
  {
    title: 'after the leading journey completes, the other overlapping journey leads',
    given: { guidelines: { wantsReturn, wantsExchange }, journeys: { returns, exchange: { ...exchange, priority: 5 } } },
    when: ['I want to return an item and exchange an item for another size', 'I need size M, the customer named a size'],
    then: (turns) => {
      expect(turns[1]!.journeys['exchange']).toBe('Completed@done');
      expect(turns[1]!.journeys['returns']).toBe('Active@ask_order');
      expect(turns[1]!.reply).toMatch(/order number/i);
    },
  },
  {
    title: 'a table booking walks party size, time and confirmation',
    given: { guidelines: { wantsBooking }, journeys: { booking } },
    when: ['I want to book a table', 'We are four guests coming', 'The date and time is Friday at 8pm', 'Yes I confirmed the reservation'],
    then: (turns) => {
      expect(turns.map((t) => t.journeys['booking'])).toEqual([
        'Active@ask_party',
        'Active@ask_time',
        'Active@confirm',
        'Completed@booked',
      ]);
      expect(turns[1]!.reply).toMatch(/date and time/i);
      expect(turns[2]!.reply).toMatch(/read back the reservation|confirm/i);
    },
  },
  {
    title: 'a journey-scoped guideline applies only at its step of the active journey',
    given: {
      guidelines: {
        wantsBooking,
        terrace: { condition: 'The customer asks about the terrace', action: 'Mention the terrace is open until 10pm' },
      },
      journeys: { booking },
    },
    when: [
      {
        patchGuidelines: {
          terrace: {
            journey_id: `${scenarioSlug('journeys', 'a journey-scoped guideline applies only at its step of the active journey')}-booking`,
            journey_step: 'ask_time',
          },
        },
      },
      'Do you have a terrace? I ask about the terrace',
      'I want to book a table',
      'We are two guests coming',
      'Do you have a terrace? I ask about the terrace',
    ],
    then: (turns) => {
      expect(turns[0]!.matched).not.toContain('terrace');
      expect(turns[2]!.journeys['booking']).toBe('Active@ask_time');
      expect(turns[3]!.matched).toContain('terrace');
      expect(turns[3]!.reply).toMatch(/terrace is open/i);
    },
  },
  {
    title: 'onboarding waits for the required email before leaving its step',
    given: { guidelines: { wantsAccount }, journeys: { onboarding }, context: { email: { data_type: 'String' } } },
    when: [
      'I want to open an account',
      'I gave their email address: sam@example.com',
      { setContext: { email: 'sam@example.com' } },
      'I gave my email address already',
    ],
    then: (turns) => {
      expect(turns[1]!.journeys['onboarding']).toBe('Active@ask_email');
      expect(turns[2]!.journeys['onboarding']).toBe('Active@ask_plan');
      expect(turns[2]!.reply).toMatch(/free plan or the business plan/i);
    },
  },
  {
    title: 'onboarding takes the business branch and completes',
    given: {
      guidelines: { wantsAccount },
      journeys: { onboarding },
      context: { email: { data_type: 'String', value: 'sam@example.com' } },
    },
    when: ['I want to open an account', 'I gave my email address sam@example.com', 'Business please', 'Great'],
    then: (turns) => {
      expect(turns.map((t) => t.journeys['onboarding'])).toEqual([
        'Active@ask_email',
        'Active@ask_plan',
        'Active@business',
        'Completed@welcome',
      ]);
      expect(turns[2]!.reply).toMatch(/business plan pricing/i);
    },
  },
  {
    title: 'a completed journey starts over when its condition matches again',
    given: { guidelines: { wantsExchange }, journeys: { exchange } },
    when: [
      'I want to exchange an item for another size',
      'Size L, the customer named a size',
      'I want to exchange an item for another size again',
    ],
    then: (turns) => {
      expect(turns[1]!.journeys['exchange']).toBe('Completed@done');
      expect(turns[2]!.journeys['exchange']).toBe('Active@ask_size');
    },
  },
  {
    title: 'a session with journeys off never starts one',
    given: { guidelines: { wantsReturn }, journeys: { returns }, session: { config: { enable_journeys: false } } },
    when: [RETURN],
    then: ([turn]) => {
      expect(turn!.matchedJourneys).toEqual([]);
      expect(turn!.journeys).toEqual({});
      expect(turn!.ready['matched_journeys']).toBeUndefined();
    },
  },
  {
    title: 'turning journeys off on the agent mid-journey stops the journey from steering replies',
    given: { guidelines: { wantsReturn }, journeys: { returns } },
    when: [RETURN, { patchAgent: { config: { enable_journeys: false } } }, ORDER],
    then: (turns) => {
      expect(turns[0]!.journeys['returns']).toBe('Active@ask_order');
      expect(turns[1]!.journeys).toEqual({});
      expect(turns[1]!.reply).not.toMatch(/returned/i);
    },
  },
  {
    title: 'a customer who goes quiet abandons the return, comes back with the order number and resumes at the recorded step',
    given: { guidelines: { wantsReturn }, journeys: { returns } },
    when: [RETURN, { journeyTimer: { journey: 'returns', timer: 'abandon', afterSecs: 3_600 } }, 'Hello again. My order number is 55555'],
    then: (turns) => {
      expect(turns[0]!.journeys['returns']).toBe('Active@ask_order');
      expect(turns[1]!.journeys['returns']).toBe('Active@ask_reason');
      expect(turns[1]!.ready['journey_events']).toEqual([
        expect.objectContaining({ event: 'journey_activated', resumed: true, step: 'ask_order' }),
        expect.objectContaining({ event: 'journey_transitioned', from: 'ask_order', to: 'ask_reason', cause: 'condition' }),
      ]);
      expect(turns[1]!.reply).toMatch(/returned/i);
    },
  },
  {
    title: 'an abandoned journey that expired starts over from its first step',
    given: { guidelines: { wantsReturn }, journeys: { returns } },
    when: [
      RETURN,
      ORDER,
      { journeyTimer: { journey: 'returns', timer: 'abandon', afterSecs: 3_600 } },
      { journeyTimer: { journey: 'returns', timer: 'expire', afterSecs: 200_000 } },
      'Hello, I want to return an item',
    ],
    then: (turns) => {
      expect(turns[1]!.journeys['returns']).toBe('Active@ask_reason');
      expect(turns[2]!.journeys['returns']).toBe('Active@ask_order');
      expect(turns[2]!.ready['journey_events']).toEqual([
        expect.objectContaining({ event: 'journey_activated', resumed: false, step: 'ask_order' }),
      ]);
      expect(turns[2]!.reply).toMatch(/order number/i);
    },
  },
]);
