import { behaviourSuite } from './support/scenario.js';

const book = { condition: 'The customer wants to book a flight', action: 'Ask for the departure city, destination and travel dates' };
const change = { condition: 'The customer wants to change the date of their booking', action: 'Check fare rules and offer new dates for the booking' };
const cancel = { condition: 'The customer wants to cancel their booking', action: 'Explain the cancellation fee and confirm before cancelling the booking' };
const baggage = { condition: 'The customer asks about baggage allowance or luggage', action: 'Explain the 23 kg checked baggage allowance' };

behaviourSuite('travel-booking', [
  {
    title: 'a flight booking request asks for route and dates',
    given: { guidelines: { book, baggage } },
    when: ['I want to book a flight to Lisbon'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['book']);
      expect(turn!.reply).toContain('departure city');
    },
  },
  {
    title: 'a date change matches the change guideline, not booking a new flight',
    given: { guidelines: { book, change } },
    when: ['Can I change the date of my booking to next Friday?'],
    then: ([turn]) => expect(turn!.matched).toEqual(['change']),
  },
  {
    title: 'cancelling has priority over changing when the customer mentions both',
    given: { guidelines: { change, cancel }, relationships: [{ source: 'cancel', target: 'change', kind: 'priority' }] },
    when: ['I want to cancel my booking, or change the date of my booking'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['cancel']);
      expect(turn!.reply).toContain('cancellation fee');
    },
  },
  {
    title: 'a baggage question gets the allowance',
    given: { guidelines: { book, baggage } },
    when: ['What is the luggage allowance?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['baggage']);
      expect(turn!.reply).toContain('23 kg');
    },
  },
  {
    title: 'two turns: booking first, then baggage; the booking guideline is not re-applied',
    given: { guidelines: { book, baggage } },
    when: ['I want to book a flight to Rome', 'And what is the baggage allowance?'],
    then: ([first, second]) => {
      expect(first!.matched).toEqual(['book']);
      expect(second!.matched).toEqual(['baggage']);
      expect(second!.applied).toEqual(['baggage']);
    },
  },
  {
    title: 'the booking reference is extracted for the lookup tool and checked against its schema',
    given: {
      agent: { tools: [{ name: 'find_booking', description: 'Find a booking by reference', parameters: { type: 'object', properties: { booking_id: { type: 'string', pattern: '^[0-9]+$' } }, required: ['booking_id'] } }] },
      guidelines: { lookup: { condition: 'The customer asks about the status of booking', action: 'Look up the booking and report its status', tools: ['find_booking'] } },
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
    title: 'strict canned mode answers a baggage question with the template only',
    given: {
      agent: { composition_mode: 'strict_canned', no_match_message: 'A travel agent will get back to you shortly.' },
      guidelines: { baggage },
      cannedResponses: { allowance: { value: 'Your ticket includes 23 kg of checked baggage and one cabin bag.' } },
    },
    when: ['What is my baggage allowance?', 'Tell me a joke about pilots'],
    then: ([known, unknown]) => {
      expect(known!.reply).toBe('Your ticket includes 23 kg of checked baggage and one cabin bag.');
      expect(unknown!.reply).toBe('A travel agent will get back to you shortly.');
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
      expect(turn!.reply).toMatch(/which/i);
    },
  },
]);
