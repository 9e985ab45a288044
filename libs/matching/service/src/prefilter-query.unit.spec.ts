import { combineQueryVectors, glossaryTermsUsed, prefilterQuery, QUERY_WEIGHTS } from './prefilter-query.js';

const customer = (content: string) => ({ role: 'customer' as const, content });
const agent = (content: string) => ({ role: 'agent' as const, content });
const refundTerm = {
  name: 'refund',
  description: 'Money paid back to the customer for a returned or faulty order',
  synonyms: ['cash back', 'money back', 'reimbursement'],
};

describe('prefilterQuery', () => {
  it('given a topical message after an exchange, when building the query, then the message leads and the last agent and previous customer messages add context at lower weight', () => {
    const query = prefilterQuery({
      message: 'Where is my parcel?',
      history: [customer('I ordered a lamp'), agent('Thanks! How can I help?'), customer('It was a gift'), agent('Lovely.')],
    });
    expect(query.topicFree).toBe(false);
    expect(query.parts).toEqual([
      { source: 'message', text: 'Where is my parcel?', weight: QUERY_WEIGHTS.topical.message },
      { source: 'last_agent', text: 'Lovely.', weight: QUERY_WEIGHTS.topical.last_agent },
      { source: 'previous_customer', text: 'It was a gift', weight: QUERY_WEIGHTS.topical.previous_customer },
    ]);
    expect(QUERY_WEIGHTS.topical.message).toBeGreaterThan(QUERY_WEIGHTS.topical.last_agent);
  });

  it.each(['yes', 'ok', '12345', 'Yes please, go ahead'])(
    'given the topic-free message "%s" after a refund question, when building the query, then the conversation leads and the message only tips the balance',
    (message) => {
      const query = prefilterQuery({
        message,
        history: [customer('I want my money back for the kettle'), agent('I can start a refund for order 1203, shall I?')],
      });
      expect(query.topicFree).toBe(true);
      const weight = Object.fromEntries(query.parts.map((p) => [p.source, p.weight]));
      expect(weight['last_agent']).toBe(QUERY_WEIGHTS.topicFree.last_agent);
      expect(weight['previous_customer']).toBe(QUERY_WEIGHTS.topicFree.previous_customer);
      expect(weight['message']).toBeLessThan(weight['last_agent']!);
      expect(weight['message']).toBeLessThan(weight['previous_customer']!);
    },
  );

  it('given no history and a blank message, when building the query, then it has no parts (similar to nothing)', () => {
    expect(prefilterQuery({ message: '  ', history: [] }).parts).toEqual([]);
  });

  it('given a message using a glossary synonym, when building the query, then the part carries the term name and description and the term is reported', () => {
    const query = prefilterQuery({
      message: 'Can I get my cash back?',
      history: [],
      terms: [refundTerm, { name: 'parcel', description: 'A shipped package', synonyms: ['package'] }],
    });
    expect(query.glossary).toEqual(['refund']);
    expect(query.parts[0]!.text).toBe('Can I get my cash back?\nrefund: Money paid back to the customer for a returned or faulty order');
  });

  it('given glossary terms used by name, in inflected form, or only in the history, when building the query, then each part is expanded with the terms it uses', () => {
    const query = prefilterQuery({
      message: 'Refunds take how long?',
      history: [customer('my reimbursement is late'), agent('Sorry to hear that.')],
      terms: [refundTerm],
    });
    expect(query.parts.map((p) => [p.source, p.text.includes('refund: Money paid back')])).toEqual([
      ['message', true],
      ['last_agent', false],
      ['previous_customer', true],
    ]);
  });

  it('given a synonym that appears only inside another word, or a term with no description, when building the query, then it does not expand on partial words and expands with the bare name', () => {
    expect(
      prefilterQuery({ message: 'my backpack broke', history: [], terms: [{ name: 'return', description: '', synonyms: ['pack'] }] })
        .glossary,
    ).toEqual([]);
    expect(
      prefilterQuery({
        message: 'I need to send a pack back',
        history: [],
        terms: [{ name: 'return', description: '', synonyms: ['pack'] }],
      }).parts[0]!.text,
    ).toBe('I need to send a pack back\nreturn');
  });
});

describe('glossaryTermsUsed', () => {
  const terms = [
    { name: 'Gold tier', description: 'the top loyalty level', synonyms: ['premium plan'] },
    { name: 'Café credit', description: '', synonyms: [] },
    { name: 'return', description: '', synonyms: ['pack'] },
  ];

  it('given texts using terms by name, by synonym, in another case, plural or accent, when read, then those terms are used', () => {
    expect(glossaryTermsUsed(terms, ['Are GOLD TIERS worth it?']).map((t) => t.name)).toEqual(['Gold tier']);
    expect(glossaryTermsUsed(terms, ['hello', 'I am on the Premium Plan']).map((t) => t.name)).toEqual(['Gold tier']);
    expect(glossaryTermsUsed(terms, ['do I have cafe credit left?']).map((t) => t.name)).toEqual(['Café credit']);
  });

  it('given a phrase split across texts or a word that only contains a synonym, when read, then the term is not used', () => {
    expect(glossaryTermsUsed(terms, ['gold', 'tier'])).toEqual([]);
    expect(glossaryTermsUsed(terms, ['my backpack broke'])).toEqual([]);
    expect(glossaryTermsUsed([], ['gold tier'])).toEqual([]);
  });
});

describe('combineQueryVectors', () => {
  it('given parts of different lengths and weights, when combining, then each unit vector counts by its weight alone', () => {
    expect(
      combineQueryVectors([
        { weight: 1, vector: [10, 0] },
        { weight: 0.5, vector: new Float32Array([0, 0.1]) },
      ]),
    ).toEqual([1, 0.5]);
  });

  it('given zero or missing vectors only, when combining, then the query is empty (similar to nothing)', () => {
    expect(
      combineQueryVectors([
        { weight: 1, vector: [0, 0] },
        { weight: 1, vector: [] },
      ]),
    ).toEqual([]);
    expect(combineQueryVectors([])).toEqual([]);
  });

  it('given parts of different dimensions, when combining, then it refuses', () => {
    expect(() =>
      combineQueryVectors([
        { weight: 1, vector: [1, 0] },
        { weight: 1, vector: [1, 0, 0] },
      ]),
    ).toThrow(RangeError);
  });
});
