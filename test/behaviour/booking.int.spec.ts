import { behaviourSuite, type GuidelineSpec } from './support/scenario.js';

/**
 * Travel booking: flights, changes, cancellations, baggage. Conversation flow over several turns, priority
 * with dependencies, chained entailment, tag dependencies, disambiguation, tool-argument extraction, and the
 * canned composition modes (strict with the no-match message and context fields, canned_fluid, composited),
 * including a composition mode changed mid-conversation.
 */

const book: GuidelineSpec = {
  condition: 'The customer wants to book a flight',
  action: 'Ask for the departure city, destination and travel dates',
};
const change: GuidelineSpec = {
  condition: 'The customer wants to change the date of their booking',
  action: 'Check fare rules and offer new dates for the booking',
};
const cancel: GuidelineSpec = {
  condition: 'The customer wants to cancel their booking',
  action: 'Explain the cancellation fee and confirm before cancelling the booking',
};
const baggage: GuidelineSpec = {
  condition: 'The customer asks about baggage allowance or luggage',
  action: 'Explain the 23 kg checked baggage allowance',
};

const ASK_ROUTE = 'Could you share the departure city, destination and travel dates?';
const BAGGAGE_SENTENCE = 'I will explain the 23 kg checked baggage allowance.';
const ALLOWANCE_TEMPLATE = 'Your ticket includes 23 kg of checked baggage and one cabin bag.';

behaviourSuite('booking', [
  {
    title: 'a flight booking request asks for route and dates',
    given: { guidelines: { book, baggage } },
    when: ['I want to book a flight to Lisbon'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['book']);
      expect(turn!.reply).toBe(ASK_ROUTE);
    },
  },
  {
    title: 'a date change matches the change guideline, not booking a new flight',
    given: { guidelines: { book, change } },
    when: ['Can I change the date of my booking to next Friday?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['change']);
      expect(turn!.ranked).toEqual(['change']);
      expect(turn!.reply).toContain('fare rules');
    },
  },
  {
    title: 'cancelling has priority over changing when the customer mentions both',
    given: { guidelines: { change, cancel }, relationships: [{ source: 'cancel', target: 'change', kind: 'priority' }] },
    when: ['I want to cancel my booking, or change the date of my booking'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['cancel']);
      expect(turn!.steps).toEqual([expect.objectContaining({ kind: 'priority', effect: 'deactivated', guideline: 'change' })]);
      expect(turn!.reply).toContain('cancellation fee');
      expect(turn!.reply).not.toContain('fare rules');
    },
  },
  {
    title: 'a guideline that depends on one removed by priority is removed with it',
    given: {
      guidelines: { cancel, book, seat: { condition: 'The customer asks about a seat upgrade', action: 'Offer extra legroom seats' } },
      relationships: [
        { source: 'cancel', target: 'book', kind: 'priority' },
        { source: 'seat', target: 'book', kind: 'dependency' },
      ],
    },
    when: ['Cancel my booking, or book a flight with a seat upgrade'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['cancel']);
      expect(turn!.steps).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'priority', effect: 'deactivated', guideline: 'book' }),
          expect.objectContaining({
            kind: 'dependency',
            effect: 'deactivated',
            guideline: 'seat',
            because: expect.stringContaining('removed by priority'),
          }),
        ]),
      );
      expect(turn!.reply).not.toContain('legroom');
    },
  },
  {
    title: 'entailment chains: booking entails the passport reminder, which entails the visa check',
    given: {
      guidelines: {
        book,
        passport: { condition: 'The trip is international', action: 'Remind them to bring a valid passport' },
        visa: { condition: 'The destination requires an entry permit', action: 'Suggest checking the visa requirements' },
      },
      relationships: [
        { source: 'book', target: 'passport', kind: 'entailment' },
        { source: 'passport', target: 'visa', kind: 'entailment' },
      ],
    },
    when: ['I want to book a flight'],
    then: ([turn]) => {
      expect([...turn!.matched].sort()).toEqual(['book', 'passport', 'visa']);
      expect(turn!.steps.map((s) => `${s.kind}:${s.guideline}`)).toEqual(['entailment:passport', 'entailment:visa']);
      expect(turn!.details['visa']!.reasoning).toContain('passport');
      expect(turn!.reply).toContain('valid passport');
      expect(turn!.reply).toContain('visa requirements');
    },
  },
  {
    title: 'dependency_any on a tag: travel insurance applies when any guideline tagged trip applies',
    given: {
      guidelines: {
        book: { ...book, tags: ['trip'] },
        change: { ...change, tags: ['trip'] },
        insurance: { condition: 'The customer mentions travel insurance or cover', action: 'Offer travel insurance' },
      },
      relationships: [{ source: 'insurance', target: 'tag:trip', kind: 'dependency_any' }],
    },
    when: ['Do you sell travel insurance?', 'I want to book a flight with travel insurance'],
    then: ([alone, withTrip]) => {
      expect(alone!.matched).toEqual([]);
      expect(alone!.steps).toEqual([expect.objectContaining({ kind: 'dependency_any', effect: 'deactivated', guideline: 'insurance' })]);
      expect([...withTrip!.matched].sort()).toEqual(['book', 'insurance']);
      expect(withTrip!.reply).toContain('travel insurance');
    },
  },
  {
    title: 'a baggage question gets the allowance',
    given: { guidelines: { book, baggage } },
    when: ['What is the luggage allowance?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['baggage']);
      expect(turn!.reply).toBe(BAGGAGE_SENTENCE);
    },
  },
  {
    title: 'three turns: booking, then baggage, then the dates; each guideline applies once and is not re-applied',
    given: { guidelines: { book, baggage } },
    when: ['I want to book a flight to Rome', 'And what is the baggage allowance?', 'From Paris on the 3rd of May'],
    then: ([first, second, third]) => {
      expect(first!.matched).toEqual(['book']);
      expect(first!.applied).toEqual(['book']);
      expect(second!.matched).toEqual(['baggage']);
      expect(second!.applied).toEqual(['baggage']);
      expect(second!.reply).not.toContain('departure city');
      expect(third!.matched).toEqual([]);
      expect(third!.reply).not.toContain('departure city');
      expect(third!.reply).not.toContain('23 kg');
    },
  },
  {
    title: 'the booking reference is extracted for the lookup tool and checked against its schema',
    given: {
      agent: {
        tools: [
          {
            name: 'find_booking',
            description: 'Find a booking by reference',
            parameters: { type: 'object', properties: { booking_id: { type: 'string', pattern: '^[0-9]+$' } }, required: ['booking_id'] },
          },
        ],
      },
      guidelines: {
        lookup: {
          condition: 'The customer asks about the status of booking',
          action: 'Look up the booking and report its status',
          tools: ['find_booking'],
        },
        baggage,
      },
    },
    when: ['What is the status of booking 778812?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['lookup']);
      expect((turn!.ready['guideline_match_result'] as { tools_to_execute: unknown[] }).tools_to_execute).toEqual([
        expect.objectContaining({ tool_name: 'find_booking', parameters: { booking_id: '778812' } }),
      ]);
    },
  },
  {
    title: 'hotel or flight? the agent asks which booking the customer means',
    given: {
      guidelines: {
        which: { condition: 'The customer wants to change a booking but is not sure which booking' },
        flight: { condition: 'The customer wants to change a flight booking', action: 'Open the flight booking' },
        hotel: { condition: 'The customer wants to change a hotel booking', action: 'Open the hotel booking' },
      },
      relationships: [
        { source: 'which', target: 'flight', kind: 'disambiguation' },
        { source: 'which', target: 'hotel', kind: 'disambiguation' },
      ],
    },
    when: ['I want to change my booking, the hotel or flight one, not sure which'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['which']);
      expect([...turn!.disambiguation!.candidates].sort()).toEqual(['flight', 'hotel']);
      expect(turn!.reply).toMatch(/which one/i);
      expect(turn!.reply).toContain('flight booking');
      expect(turn!.reply).toContain('hotel booking');
      expect(turn!.reply).not.toContain('Open the');
    },
  },
  {
    title: 'strict canned mode answers with a template only, and with the no-match message when none fits',
    given: {
      agent: { composition_mode: 'strict_canned', no_match_message: 'A travel agent will get back to you shortly.' },
      guidelines: { baggage },
      cannedResponses: {
        allowance: { value: ALLOWANCE_TEMPLATE },
        meal: { value: 'Meals are served on flights longer than three hours.' },
      },
    },
    when: ['What is my baggage allowance?', 'Tell me a joke about pilots'],
    then: ([known, unknown]) => {
      expect(known!.reply).toBe(ALLOWANCE_TEMPLATE);
      expect(known!.cannedResponse).toBe('allowance');
      expect(known!.applied).toEqual(['baggage']);
      expect(unknown!.reply).toBe('A travel agent will get back to you shortly.');
      expect(unknown!.cannedResponse).toBeUndefined();
      expect(unknown!.applied).toEqual([]);
    },
  },
  {
    title: "strict canned without a configured no-match message falls back to the agent's default one",
    given: {
      agent: { composition_mode: 'strict_canned' },
      guidelines: { baggage },
      cannedResponses: { allowance: { value: ALLOWANCE_TEMPLATE } },
    },
    when: ['Tell me a joke about pilots'],
    then: ([turn]) => {
      expect(turn!.reply).toBe('Not sure I understand. Could you please say that another way?');
      expect(turn!.cannedResponse).toBeUndefined();
    },
  },
  {
    title: 'strict canned: a template whose field has no value cannot be said; once the context variable has one, it is filled in',
    given: {
      agent: { composition_mode: 'strict_canned' },
      guidelines: {
        reference: { condition: 'The customer asks for their booking reference', action: 'Give them their booking reference' },
      },
      cannedResponses: {
        known: { value: 'Your booking reference is {{booking_ref}}.' },
        unknown: { value: 'Please share the email you booked with, so I can look the booking up.' },
      },
      context: { booking_ref: {} },
    },
    when: ['What is my booking reference?', { setContext: { booking_ref: 'TNT4411' } }, 'What is my booking reference again?'],
    then: ([before, after]) => {
      expect(before!.cannedResponse).toBe('unknown');
      expect(before!.reply).not.toContain('{{');
      expect(after!.cannedResponse).toBe('known');
      expect(after!.reply).toBe('Your booking reference is TNT4411.');
    },
  },
  {
    title: 'canned_fluid uses a fitting template and falls back to a fluid reply when no template fits',
    given: {
      agent: { composition_mode: 'canned_fluid' },
      guidelines: { book, baggage },
      cannedResponses: { allowance: { value: ALLOWANCE_TEMPLATE } },
    },
    when: ['What is the baggage allowance?', 'I want to book a flight to Oslo'],
    then: ([templated, fluid]) => {
      expect(templated!.reply).toBe(ALLOWANCE_TEMPLATE);
      expect(templated!.cannedResponse).toBe('allowance');
      expect(fluid!.matched).toEqual(['book']);
      expect(fluid!.reply).toBe(ASK_ROUTE);
      expect(fluid!.cannedResponse).toBeUndefined();
    },
  },
  {
    title: 'composited_canned replaces the sentence a template covers and keeps the other in the agent’s words',
    given: {
      agent: { composition_mode: 'composited_canned' },
      guidelines: { book, baggage },
      cannedResponses: { allowance: { value: 'Every ticket includes 23 kg of checked baggage.' } },
    },
    when: ['I want to book a flight, and what is the baggage allowance?'],
    then: ([turn]) => {
      expect([...turn!.matched].sort()).toEqual(['baggage', 'book']);
      expect(turn!.reply).toContain('Every ticket includes 23 kg of checked baggage.');
      expect(turn!.reply).toContain(ASK_ROUTE);
      expect(turn!.reply).not.toContain(BAGGAGE_SENTENCE);
    },
  },
  {
    title: 'switching the agent to strict canned mid-conversation changes how the next reply is composed',
    given: { guidelines: { baggage }, cannedResponses: { allowance: { value: ALLOWANCE_TEMPLATE } } },
    when: [
      'What is the baggage allowance?',
      { patchAgent: { composition_mode: 'strict_canned' } },
      'Sorry, what was the baggage allowance again?',
    ],
    then: ([fluid, strict]) => {
      expect(fluid!.reply).toBe(BAGGAGE_SENTENCE);
      expect(fluid!.ready['provenance']).toEqual(expect.objectContaining({ composition_mode: 'fluid' }));
      expect(strict!.matched).toEqual(['baggage']);
      expect(strict!.reply).toBe(ALLOWANCE_TEMPLATE);
      expect(strict!.ready['provenance']).toEqual(expect.objectContaining({ composition_mode: 'strict_canned' }));
    },
  },
  {
    title: "a matched guideline's own composition mode (strict_canned) decides how the reply is composed",
    given: {
      guidelines: { baggage: { ...baggage, composition_mode: 'strict_canned' } },
      cannedResponses: { allowance: { value: ALLOWANCE_TEMPLATE } },
    },
    when: ['What is the baggage allowance?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['baggage']);
      expect(turn!.reply).toBe(ALLOWANCE_TEMPLATE);
      expect(turn!.cannedResponse).toBe('allowance');
      expect(turn!.ready['provenance']).toEqual(expect.objectContaining({ composition_mode: 'strict_canned' }));
    },
  },
  {
    title: 'offline provider: a "remind them to …" action becomes a whole sentence',
    given: {
      guidelines: {
        passport: { condition: 'The customer mentions an international flight', action: 'Remind them to bring a valid passport' },
      },
    },
    when: ['Is this an international flight?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['passport']);
      expect(turn!.reply).not.toMatch(/(^|\. )To bring/);
      expect(turn!.reply).toMatch(/remind you to bring a valid passport|remember to bring a valid passport/i);
    },
  },
]);
