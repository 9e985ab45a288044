import { OfflineProvider } from './offline-provider.js';
import { extractContextRequest, type ExtractContextOutput } from '../tasks/extract-context.js';
import { composeReply } from './compose.js';
import { extractContext, findDate, kindOf } from './extract.js';

const variables = [
  { name: 'customer_name', extraction_prompt: "The customer's first name" },
  { name: 'order_number', extraction_prompt: 'The order number the customer refers to' },
  { name: 'email', extraction_prompt: 'Contact e-mail' },
  { name: 'delivery_date', extraction_prompt: 'When the customer wants delivery', data_type: 'Date' as const },
  { name: 'plan', extraction_prompt: 'Which plan they want', allowed_values: ['basic', 'premium'] },
];

describe('offline context extraction', () => {
  it('reads names, order numbers, emails, dates and allowed values, and facts, in one answer', async () => {
    const request = extractContextRequest(
      {
        message: "Hi, I'm Alice Martin. Order #55555 should arrive by March 14, 2027; write to Alice.M@example.com. I'd like premium.",
        history: [],
        variables,
        facts: true,
      },
      { purpose: 'extract_context' },
    );
    const { value } = await new OfflineProvider().generate<unknown, ExtractContextOutput>(request);
    expect(Object.fromEntries(value.values.map((v) => [v.name, v.value]))).toEqual({
      customer_name: 'Alice Martin',
      order_number: '55555',
      email: 'alice.m@example.com',
      delivery_date: '2027-03-14',
      plan: 'premium',
    });
    expect(value.facts.map((f) => `${f.predicate}=${f.object}`)).toEqual([
      'name=Alice Martin',
      'email=alice.m@example.com',
      'order_number=55555',
    ]);
  });

  it('leaves out what the message does not say, and facts when not asked for', () => {
    expect(extractContext({ message: 'I am looking for help with my order', history: [], variables, facts: false })).toEqual({
      values: [],
      facts: [],
    });
    expect(
      extractContext({ message: 'premium or basic, which is better?', history: [], variables: variables.slice(4), facts: true }).values,
    ).toEqual([]);
  });

  it('reads an address change as a fact', () => {
    expect(extractContext({ message: 'I moved to 12 Rue de la Paix, Lyon.', history: [], variables: [], facts: true }).facts).toEqual([
      { subject: 'customer', predicate: 'address', object: '12 Rue de la Paix, Lyon', confidence: 0.75 },
    ]);
  });

  it('dates need a year and must exist', () => {
    expect(findDate('on 2026-02-30')).toBeUndefined();
    expect(findDate('on 3rd of May 2026')).toBe('2026-05-03');
    expect(findDate('on 25/12/2026')).toBe('2026-12-25');
    expect(findDate('tomorrow')).toBeUndefined();
    expect(kindOf({ name: 'x', extraction_prompt: 'their phone number' })).toBe('phone');
  });
});

describe('offline compose with knowledge and facts', () => {
  const knowledge = [
    {
      chunk_id: 'p:1',
      title: 'Policies',
      heading: 'Policies › Warranty',
      text: 'Electronics carry a two-year warranty. Water damage is not covered.',
    },
    { chunk_id: 'p:2', title: 'Policies', heading: 'Policies › Shipping', text: 'Standard delivery takes 3-5 business days.' },
  ];
  it("answers from the passage that shares the question's terms and cites it", () => {
    const reply = composeReply({ agentName: 'Ada', message: 'What warranty do electronics have?', matched: [], history: [], knowledge });
    expect(reply.message).toContain('two-year warranty');
    expect(reply.cited_chunk_ids).toEqual(['p:1']);
  });
  it('cites nothing when no passage answers', () => {
    expect(
      composeReply({ agentName: 'Ada', message: 'Can I pay with bitcoin?', matched: [], history: [], knowledge }).cited_chunk_ids,
    ).toEqual([]);
  });
  it('says what the customer told before when asked', () => {
    const reply = composeReply({
      agentName: 'Ada',
      message: 'What is my email?',
      matched: [],
      history: [],
      facts: [{ subject: 'customer', predicate: 'email', object: 'a@b.example' }],
    });
    expect(reply.message).toContain('a@b.example');
  });
});
