import { isTopicFree, terms } from './lexicon.js';

describe('offline lexicon: answers that carry no topic', () => {
  it.each([
    'yes',
    'Yeah!',
    'ok',
    'okay',
    'sure',
    'no',
    'nope',
    'nah',
    'yes please',
    'ok, thanks!',
    'thanks',
    'no thank you',
    'great, cheers',
    'of course',
    'sounds good',
    "I don't",
    'hmm, maybe',
    '12345',
    '',
  ])('given the answer "%s", when its terms are read, then it has no topic of its own', (message) => {
    expect(isTopicFree(terms(message))).toBe(true);
  });

  it.each(['refund', 'passport', 'yes, a refund', 'ok, where is my package?', 'no, I want to cancel', 'hello'])(
    'given "%s", when its terms are read, then it has a topic',
    (message) => {
      expect(isTopicFree(terms(message))).toBe(false);
    },
  );

  it('given affirmations, negations and contractions, when terms are read, then they are dropped like other stop words', () => {
    expect(terms("Yes, I am sure I've checked, but I don't get the refund")).toEqual(['check', 'get', 'refund']);
  });

  it('given a courtesy that a condition may be about, when terms are read, then it stays a term', () => {
    expect(terms('The customer thanks the agent')).toEqual(['thank', 'agent']);
    expect(terms('thanks!')).toEqual(['thank']);
  });

  it('given "how long", when terms are read, then it asks about time, as "how much" asks about price', () => {
    expect(terms('How long does shipping take?')).toEqual(['time', 'ship', 'take']);
    expect(terms('How much is it?')).toEqual(['price']);
  });

  it('given "where is my …", when terms are read, then it asks where something is (tracking), whatever the thing', () => {
    expect(terms('Where is my package?')).toEqual(['ship', 'order']);
    expect(terms("Where's the parcel")).toEqual(['ship', 'order']);
    expect(terms('Where are our tickets?')).toEqual(['ship', 'ticket']);
    expect(terms('Somewhere in my account')).toEqual(['somewhere', 'account']);
  });
});
