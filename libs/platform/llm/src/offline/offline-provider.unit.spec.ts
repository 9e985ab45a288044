import { readFileSync } from 'node:fs';
import { llmProviderConformance } from '../testing/index.js';
import { composeReplyRequest, type ComposeReplyInput, type ComposeReplyOutput } from '../tasks/compose-reply.js';
import {
  matchGuidelinesRequest,
  parseToolArguments,
  type MatchGuidelinesInput,
  type MatchGuidelinesOutput,
} from '../tasks/match-guidelines.js';
import { composeReply } from './compose.js';
import { OfflineProvider } from './offline-provider.js';

llmProviderConformance('offline', async () => ({ provider: new OfflineProvider(), dispose: async () => undefined }));

const guidelines = [
  {
    id: 'refund',
    condition: "The customer asks about refunds, returns, or mentions 'money back'",
    action: 'Explain the 30-day refund policy and offer to check their order status',
  },
  { id: 'greet', condition: 'The customer greets the agent', action: 'Greet them warmly' },
  { id: 'cancel', condition: 'The customer wants to cancel an order', action: 'Tell them orders can be cancelled until they ship' },
  {
    id: 'ship',
    condition: 'The customer asks where their package is or about delivery times',
    action: 'Ask for the order number to track the shipment',
  },
  { id: 'price', condition: 'The customer asks how much something costs', action: 'Point them to the pricing page' },
];
const context = { purpose: 'test' };
const provider = new OfflineProvider();

async function relevance(message: string, id: string): Promise<number> {
  const input: MatchGuidelinesInput = { message, history: [], guidelines };
  const { value } = await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(matchGuidelinesRequest(input, context));
  return value.matches.find((m) => m.guideline_id === id)!.relevance;
}

describe('OfflineProvider: match_guidelines', () => {
  it.each([
    ['I want my money back for order 12345', 'refund'],
    ['Can I return these shoes?', 'refund'],
    ['hi there!', 'greet'],
    ['Hey', 'greet'],
    ['Please stop my purchase, I changed my mind', 'cancel'],
    ['I need to cancel my order', 'cancel'],
    ['Where is my parcel? It has not been delivered', 'ship'],
    ['When will my package arrive?', 'ship'],
    ['What is the price of the premium plan?', 'price'],
    ['Hello! My order arrived broken and I want my money back', 'refund'],
  ])('"%s" is relevant (>= 0.3) to %s', async (message, id) => {
    expect(await relevance(message, id)).toBeGreaterThanOrEqual(0.3);
  });

  it.each([
    ["what's the weather like", 'refund'],
    ["what's the weather like", 'ship'],
    ["what's the weather like", 'greet'],
    ['I want my money back', 'greet'],
    ['hello', 'refund'],
    ['Tell me a joke about cats', 'price'],
  ])('"%s" is unrelated to %s: well below 0.3', async (message, id) => {
    expect(await relevance(message, id)).toBeLessThan(0.1);
  });

  it.each([
    ['Where is my package? It has not arrived', 'cancel'],
    ['How much does shipping cost?', 'ship'],
  ])('"%s" shares a word with %s but is about something else: below 0.3', async (message, id) => {
    expect(await relevance(message, id)).toBeLessThan(0.3);
  });

  it('weighs a quoted phrase of the condition more than its other words', async () => {
    const quoted = [{ id: 'q', condition: "The customer mentions 'voucher' while talking about their basket or checkout or account" }];
    const plain = [{ id: 'p', condition: 'The customer mentions voucher while talking about their basket or checkout or account' }];
    const score = async (g: MatchGuidelinesInput['guidelines']): Promise<number> =>
      (
        await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(
          matchGuidelinesRequest({ message: 'is my voucher still valid?', history: [], guidelines: g }, context),
        )
      ).value.matches[0]!.relevance;
    expect(await score(quoted)).toBeGreaterThan(await score(plain));
  });

  it('scores every guideline, in [0, 1], with a reason, the same way every time', async () => {
    const request = matchGuidelinesRequest(
      { message: 'Hello, I want a refund for my purchase', history: [{ role: 'agent', content: 'Hi!' }], guidelines },
      context,
    );
    const first = await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(request);
    const second = await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(structuredClone(request));
    expect(first.value).toEqual(second.value);
    expect(first.usage).toEqual(second.usage);
    expect(first.value.matches.map((m) => m.guideline_id)).toEqual(guidelines.map((g) => g.id));
    for (const match of first.value.matches) {
      expect(match.relevance).toBeGreaterThanOrEqual(0);
      expect(match.relevance).toBeLessThanOrEqual(1);
      expect(match.confidence).toBeGreaterThanOrEqual(0);
      expect(match.confidence).toBeLessThanOrEqual(1);
      expect(match.reasoning).not.toBe('');
    }
  });
});

describe('OfflineProvider: the demo agent (examples/demo-agent.json) answers each question with its one guideline', () => {
  const file = JSON.parse(readFileSync(new URL('../../../../../examples/demo-agent.json', import.meta.url), 'utf8')) as {
    guidelines: { id: string; condition: string; action: string }[];
  };
  // Tools are the gateway's business (it resolves `service:tool` ids); scoring needs conditions and actions.
  const demo = { guidelines: file.guidelines.map(({ id, condition, action }) => ({ id, condition, action })) };

  it.each([
    ['Hello!', 'demo-greeting'],
    ['How long does shipping take?', 'demo-delivery'],
    ['I want to cancel my order', 'demo-cancel'],
    ['Can I get my money back?', 'demo-refund'],
    ['I forgot my password', 'demo-account'],
    ['Can I talk to a human?', 'demo-human'],
    ['Thanks!', 'demo-thanks'],
  ])('given "%s", when matched, then only %s reaches the 0.3 threshold', async (message, id) => {
    const input: MatchGuidelinesInput = { message, history: [], guidelines: demo.guidelines };
    const { value } = await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(matchGuidelinesRequest(input, context));
    expect(value.matches.filter((m) => m.relevance >= 0.3).map((m) => m.guideline_id)).toEqual([id]);
  });

  // The order-status guideline (with its lookup tool) takes priority over the delivery one by a relationship the
  // turn resolves; the matcher alone scores both.
  it.each([['Where is my package?'], ["My order hasn't arrived yet"], ['where is my order 55555']])(
    'given "%s", the order-status and delivery guidelines reach the threshold',
    async (message) => {
      const input: MatchGuidelinesInput = { message, history: [], guidelines: demo.guidelines };
      const { value } = await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(matchGuidelinesRequest(input, context));
      expect(
        value.matches
          .filter((m) => m.relevance >= 0.3)
          .map((m) => m.guideline_id)
          .sort(),
      ).toEqual(['demo-delivery', 'demo-order-status']);
    },
  );
});

describe('OfflineProvider: compose_reply', () => {
  it('turns the matched actions into a first-person reply citing them', async () => {
    const request = composeReplyRequest(
      {
        agentName: 'Support',
        message: 'Hi, I want my money back',
        matched: [
          { guideline_id: 'greet', action: guidelines[1]!.action! },
          { guideline_id: 'refund', action: guidelines[0]!.action! },
        ],
        history: [],
      },
      context,
    );
    const { value, usage } = await provider.generate(request);
    expect(value).toEqual({
      message: "Hello, I'm Support! I will explain the 30-day refund policy. I'd be happy to check your order status.",
      cited_guideline_ids: ['greet', 'refund'],
      canned_response_id: '',
      cited_chunk_ids: [],
    });
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
  });

  it.each([
    ['Tell them orders can be cancelled until they ship', 'Orders can be cancelled until they ship.'],
    ['Ask for the order number to track the shipment', 'Could you share the order number to track the shipment?'],
    ['Ask the customer to describe their issue', 'Could you describe your issue?'],
    ["Say 'We are open 9 to 5, Monday to Friday.'", 'We are open 9 to 5, Monday to Friday.'],
    ['Introduce yourself so you can help', 'I will introduce myself so I can help.'],
  ])('"%s" becomes "%s"', (action, sentence) => {
    expect(composeReply({ agentName: 'Ada', message: 'x', matched: [{ guideline_id: 'g', action }], history: [] }).message).toBe(sentence);
  });

  it('answers politely, citing nothing, when no guideline matched', () => {
    const reply = composeReply({ agentName: 'Ada', message: "what's the weather like", matched: [], history: [] });
    expect(reply.cited_guideline_ids).toEqual([]);
    expect(reply.message).toContain('Ada');
  });

  it('given an agent that has already spoken, when no guideline matched, then it asks for more without introducing itself again', () => {
    const history = [
      { role: 'customer' as const, content: 'Where is my package?' },
      { role: 'agent' as const, content: 'Could you share your order number?' },
    ];
    const reply = composeReply({ agentName: 'Ada', message: '12345', matched: [], history });
    expect(reply).toEqual({
      message: 'Thanks. Could you tell me a little more about what you need?',
      cited_guideline_ids: [],
      canned_response_id: '',
      cited_chunk_ids: [],
    });
  });
});

describe('OfflineProvider: usage and unknown tasks', () => {
  it('estimates usage from the prompt a model would have read (about four characters a token)', async () => {
    const short = await provider.generate(composeReplyRequest({ agentName: 'A', message: 'hi', matched: [], history: [] }, context));
    const long = await provider.generate(
      composeReplyRequest({ agentName: 'A', message: 'hi '.repeat(400), matched: [], history: [] }, context),
    );
    expect(long.usage.inputTokens - short.usage.inputTokens).toBeGreaterThanOrEqual(250);
    expect(long.usage.inputTokens - short.usage.inputTokens).toBeLessThanOrEqual(350);
  });

  it('refuses task kinds it does not implement with LLM.UNSUPPORTED_TASK', async () => {
    await expect(
      provider.generate({ task: { kind: 'write_poem', input: {} }, system: '', prompt: 'a poem', schemaName: 'poem', schema: {}, context }),
    ).rejects.toMatchObject({
      code: 'LLM.UNSUPPORTED_TASK',
      taskKind: 'write_poem',
      retryable: false,
    });
  });
});

describe('OfflineProvider: match_guidelines v2 (previously applied, tools, glossary)', () => {
  const match = async (input: MatchGuidelinesInput): Promise<MatchGuidelinesOutput['matches']> =>
    (await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(matchGuidelinesRequest(input, context))).value.matches;
  const refundWithTool = {
    id: 'refund',
    condition: 'The customer asks for a refund',
    action: 'Start a refund',
    tools: [
      {
        name: 'start_refund',
        description: 'Start a refund for an order',
        parameters: { type: 'object', properties: { order_id: { type: 'string' }, email: { type: 'string' } } },
      },
    ],
  };

  it('scores a previously applied guideline on the latest message only', async () => {
    const history = [
      { role: 'customer' as const, content: 'Hello, I want a refund' },
      { role: 'agent' as const, content: 'Which order is it about?' },
    ];
    const [fresh, applied] = await match({
      message: '12345',
      history,
      guidelines: [refundWithTool, { ...refundWithTool, id: 'refund-applied', previously_applied: true }],
    });
    // A bare answer continues the previous message for a guideline not yet applied…
    expect(fresh!.relevance).toBeGreaterThanOrEqual(0.3);
    expect(fresh!.reasoning).toContain('continues');
    // …but an applied one applies again only when its condition arises anew.
    expect(applied).toMatchObject({ relevance: 0, tool_arguments: [] });
    expect(applied!.reasoning).toContain('already applied');
    const [again] = await match({
      message: 'and I want a refund for my other order too',
      history,
      guidelines: [{ ...refundWithTool, previously_applied: true }],
    });
    expect(again!.relevance).toBeGreaterThanOrEqual(0.3);
  });

  it('extracts tool arguments from the conversation for guidelines that share a topic with it, as JSON objects', async () => {
    const [refund, greet] = await match({
      message: 'I want a refund for order 12345, my email is ada@example.com',
      history: [],
      guidelines: [refundWithTool, { id: 'greet', condition: 'The customer greets the agent', tools: refundWithTool.tools }],
    });
    expect(refund!.tool_arguments).toEqual([
      { tool_name: 'start_refund', arguments_json: JSON.stringify({ order_id: '12345', email: 'ada@example.com' }) },
    ]);
    expect(parseToolArguments(refund!.tool_arguments[0]!)).toEqual({ order_id: '12345', email: 'ada@example.com' });
    expect(greet).toMatchObject({ relevance: 0, tool_arguments: [] });
  });

  it('answers an empty arguments object for a related tool it finds nothing for, and [] for guidelines without tools', async () => {
    const [refund, plain] = await match({
      message: 'I want a refund',
      history: [],
      guidelines: [refundWithTool, { id: 'plain', condition: 'The customer asks for a refund' }],
    });
    expect(refund!.tool_arguments).toEqual([{ tool_name: 'start_refund', arguments_json: '{}' }]);
    expect(plain!.tool_arguments).toEqual([]);
  });

  it('reads glossary synonyms as their term, in the message and in conditions', async () => {
    const terms = [{ name: 'Premium Plan', description: 'Our top subscription', synonyms: ['gold tier', 'VIP package'] }];
    const guideline = [{ id: 'premium', condition: 'The customer asks about the Premium Plan' }];
    expect((await match({ message: 'what do I get with the gold tier?', history: [], guidelines: guideline }))[0]!.relevance).toBeLessThan(
      0.3,
    );
    expect(
      (await match({ message: 'what do I get with the gold tier?', history: [], guidelines: guideline, terms }))[0]!.relevance,
    ).toBeGreaterThanOrEqual(0.5);
    const bySynonym = [{ id: 'vip', condition: "The customer mentions the 'VIP package'" }];
    expect(
      (await match({ message: 'Tell me about the premium plan', history: [], guidelines: bySynonym, terms }))[0]!.relevance,
    ).toBeGreaterThanOrEqual(0.5);
  });

  it('tells a model the same: previously applied guidelines, tools with their parameters, the glossary', () => {
    const request = matchGuidelinesRequest(
      {
        message: 'refund please',
        history: [],
        guidelines: [{ ...refundWithTool, previously_applied: true }],
        terms: [{ name: 'Premium Plan', description: 'Our top subscription', synonyms: ['gold tier'] }],
      },
      context,
    );
    const prompt = request.messages![0]!.content;
    expect(prompt).toMatch(/^- id: refund$/m);
    expect(prompt).toContain('previously applied: yes');
    expect(prompt).toContain('tool: start_refund (Start a refund for an order); parameters: {"type":"object"');
    expect(request.system).toContain('arose anew in the latest message');
    expect(request.system).toContain('arguments_json');
    expect(request.system).toContain('- Premium Plan (also: gold tier): Our top subscription');
  });
});

describe('OfflineProvider: compose_reply composition modes', () => {
  const canned = [
    { id: 'refund-policy', value: 'Our refund policy gives you 30 days to return an item.', fields: [] },
    { id: 'order-status', value: 'Your order {{order_id}} is {{status}}.', fields: ['order_id', 'status'] },
    { id: 'hello', value: 'Hi there! How can I help you today?', fields: [] },
    { id: 'thanks-name', value: 'Thanks, {{customer_name}}!', fields: ['customer_name'] },
    { id: 'refund-or-cancel', value: 'Would you like a refund, or to cancel your order?', fields: [] },
  ];
  const greetAndRefund = [
    { guideline_id: 'greet', action: 'Greet them warmly' },
    { guideline_id: 'refund', action: 'Explain the 30-day refund policy and offer to check their order status' },
  ];
  const reply = (input: Partial<ComposeReplyInput>): ComposeReplyOutput =>
    composeReply({
      agentName: 'Support',
      message: 'Hi, I want my money back',
      matched: greetAndRefund.slice(1),
      history: [],
      canned_responses: canned,
      ...input,
    });

  it('ignores canned responses in fluid mode (the default)', () => {
    expect(reply({})).toEqual({
      message: "I will explain the 30-day refund policy. I'd be happy to check your order status.",
      cited_guideline_ids: ['refund'],
      canned_response_id: '',
      cited_chunk_ids: [],
    });
    expect(reply({ composition_mode: 'fluid' }).canned_response_id).toBe('');
  });

  it('canned_fluid: sends the template that says what the actions say, else the fluid reply', () => {
    expect(reply({ composition_mode: 'canned_fluid' })).toEqual({
      message: 'Our refund policy gives you 30 days to return an item.',
      cited_guideline_ids: ['refund'],
      canned_response_id: 'refund-policy',
      cited_chunk_ids: [],
    });
    const unrelated = reply({
      composition_mode: 'canned_fluid',
      matched: [{ guideline_id: 'hours', action: "Say 'We are open 9 to 5, Monday to Friday.'" }],
    });
    expect(unrelated).toEqual({
      message: 'We are open 9 to 5, Monday to Friday.',
      cited_guideline_ids: ['hours'],
      canned_response_id: '',
      cited_chunk_ids: [],
    });
  });

  it('strict_canned: only templates; canned_response_id "" (and nothing cited) when none overlaps, so the caller sends its no-match response', () => {
    expect(reply({ composition_mode: 'strict_canned', message: 'hello', matched: [] })).toMatchObject({
      message: 'Hi there! How can I help you today?',
      canned_response_id: 'hello',
    });
    const none = reply({ composition_mode: 'strict_canned', message: "what's the weather like", matched: [] });
    expect(none).toMatchObject({ canned_response_id: '', cited_guideline_ids: [] });
    expect(none.message.trim()).not.toBe('');
  });

  it('renders fields from field_values, and never sends a template with a field nobody supplied', () => {
    const status = reply({
      composition_mode: 'strict_canned',
      matched: [{ guideline_id: 'status', action: 'Tell them the status of their order' }],
      field_values: { order_id: '12345', status: 'shipped' },
    });
    expect(status).toEqual({
      message: 'Your order 12345 is shipped.',
      cited_guideline_ids: ['status'],
      canned_response_id: 'order-status',
      cited_chunk_ids: [],
    });
    const thanks = reply({ composition_mode: 'strict_canned', message: 'thanks!', matched: [] });
    expect(thanks.canned_response_id).not.toBe('thanks-name');
    expect(
      reply({ composition_mode: 'strict_canned', message: 'thanks!', matched: [], field_values: { customer_name: 'Ada' } }),
    ).toMatchObject({ message: 'Thanks, Ada!', canned_response_id: 'thanks-name' });
  });

  it('composited_canned: each sentence in the wording of the template about the same thing, the id only when one template is the whole reply', () => {
    expect(reply({ composition_mode: 'composited_canned', matched: greetAndRefund })).toEqual({
      // The offer keeps its own words: no renderable template is about checking an order's status.
      message:
        "Hi there! How can I help you today? Our refund policy gives you 30 days to return an item. I'd be happy to check your order status.",
      cited_guideline_ids: ['greet', 'refund'],
      canned_response_id: '',
      cited_chunk_ids: [],
    });
    expect(
      reply({ composition_mode: 'composited_canned', matched: [{ guideline_id: 'refund', action: 'Explain the 30-day refund policy' }] }),
    ).toMatchObject({
      message: 'Our refund policy gives you 30 days to return an item.',
      canned_response_id: 'refund-policy',
      cited_chunk_ids: [],
    });
  });

  it('asks the customer to choose between the disambiguation candidates', () => {
    const disambiguation = {
      candidates: [
        { guideline_id: 'refund', condition: 'The customer asks about refunds' },
        { guideline_id: 'cancel', condition: 'The customer wants to cancel their order' },
      ],
    };
    for (const composition_mode of ['fluid', 'canned_fluid', 'composited_canned'] as const) {
      expect(reply({ composition_mode, matched: [], message: 'about my order', disambiguation })).toEqual({
        message: 'Just to be sure I help with the right thing, which one do you mean: refunds, or cancel your order?',
        cited_guideline_ids: [],
        canned_response_id: '',
        cited_chunk_ids: [],
      });
    }
    // Strict mode asks through a template that offers every candidate, or leaves it to the caller.
    expect(reply({ composition_mode: 'strict_canned', matched: [], message: 'about my order', disambiguation })).toMatchObject({
      canned_response_id: 'refund-or-cancel',
    });
    expect(
      reply({
        composition_mode: 'strict_canned',
        matched: [],
        message: 'about my order',
        disambiguation,
        canned_responses: canned.slice(0, 3),
      }),
    ).toMatchObject({ canned_response_id: '' });
  });

  it('tells a model the mode, the templates and the field values', () => {
    const request = composeReplyRequest(
      {
        agentName: 'Support',
        message: 'hi',
        matched: greetAndRefund,
        history: [],
        composition_mode: 'strict_canned',
        canned_responses: canned,
        field_values: { order_id: '12345' },
      },
      context,
    );
    const prompt = request.messages!.at(-1)!.content;
    expect(prompt).toMatch(/^- \[greet\] Greet them warmly$/m);
    expect(prompt).toContain('[Canned responses]\n- (refund-policy) Our refund policy');
    expect(prompt).toContain('[Field values]\n- order_id = 12345');
    expect(request.system).toContain('Reply only with one of the canned responses');
    const fluid = composeReplyRequest({ agentName: 'Support', message: 'hi', matched: [], history: [], canned_responses: canned }, context);
    expect(fluid.messages!.at(-1)!.content).not.toContain('[Canned responses]');
  });
});

describe('OfflineProvider: a message with no topic of its own continues the conversation', () => {
  const gettingStarted = {
    id: 'start',
    condition: 'The customer is new and asks how to get started',
    action: 'Welcome them and offer the getting started guide',
  };
  const refund = { id: 'refund', condition: 'The customer asks for a refund', action: 'Explain the refund policy' };
  const thanked = { id: 'thanked', condition: 'The customer thanks the agent', action: "Say 'You're welcome!'" };
  const first = 'I am new, how do I get started?';
  const agentTurn = { role: 'agent' as const, content: 'Welcome! Shall I send you the getting started guide?' };
  const scores = async (
    message: string,
    history: MatchGuidelinesInput['history'],
    g: MatchGuidelinesInput['guidelines'] = [gettingStarted, refund, thanked],
  ): Promise<Record<string, MatchGuidelinesOutput['matches'][number]>> => {
    const { value } = await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(
      matchGuidelinesRequest({ message, history, guidelines: g }, context),
    );
    return Object.fromEntries(value.matches.map((m) => [m.guideline_id, m]));
  };

  it('given a continuous guideline matched by the first message, when the customer answers "yes", then it still matches at 0.6 of its score', async () => {
    const before = (await scores(first, []))['start']!;
    expect(before.relevance).toBeGreaterThanOrEqual(0.3);
    const after = (await scores('yes', [{ role: 'customer', content: first }, agentTurn]))['start']!;
    expect(after.relevance).toBeCloseTo(before.relevance * 0.6, 3);
    expect(after.relevance).toBeGreaterThanOrEqual(0.3);
    expect(after.reasoning).toContain('continues the previous one');
  });

  it.each(['yes', 'ok', 'Okay!', 'sure', 'no', 'nope', 'thanks', 'ok, thanks', 'yes please', "I don't", '12345'])(
    'given the getting-started question, when the customer answers "%s", then the answer continues it',
    async (answer) => {
      const matches = await scores(answer, [{ role: 'customer', content: first }, agentTurn]);
      expect(matches['start']!.relevance).toBeGreaterThanOrEqual(0.3);
      expect(matches['refund']!.relevance).toBe(0);
    },
  );

  it('given a run of answers ("yes", then "ok"), when the customer answers again, then it continues the last message with a topic', async () => {
    const history = [
      { role: 'customer' as const, content: first },
      agentTurn,
      { role: 'customer' as const, content: 'yes' },
      { role: 'agent' as const, content: 'Here it is.' },
    ];
    expect((await scores('ok', history))['start']!.relevance).toBeGreaterThanOrEqual(0.3);
  });

  it.each([
    ['refund', 'refund', []],
    ['passport', 'passport', [{ id: 'passport', condition: 'The customer mentions their passport' }]],
  ] as const)(
    'given the getting-started question, when the customer says only "%s", then that one word is a topic of its own',
    async (message, id, extra) => {
      const matches = await scores(message, [{ role: 'customer', content: first }, agentTurn], [gettingStarted, refund, thanked, ...extra]);
      expect(matches[id]!.relevance).toBeGreaterThanOrEqual(0.3);
      expect(matches['start']!.relevance).toBe(0);
    },
  );

  it('given a guideline about thanks, when the customer says "thanks", then it matches on the message while the previous topic continues too', async () => {
    const matches = await scores('thanks!', [{ role: 'customer', content: first }, agentTurn]);
    expect(matches['thanked']!.relevance).toBeGreaterThanOrEqual(0.3);
    expect(matches['thanked']!.reasoning).toContain('mentions thank');
    expect(matches['start']!.relevance).toBeGreaterThanOrEqual(0.3);
  });

  it('given an affirmation before a topic ("Yes, I want a refund"), when scored, then it weighs as much as the topic alone', async () => {
    expect((await scores('Yes, I want a refund', []))['refund']!.relevance).toBe(
      (await scores('I want a refund', []))['refund']!.relevance,
    );
  });
});

describe('OfflineProvider: compose_reply says each action whole', () => {
  const compose = async (action: string): Promise<string> =>
    (
      await provider.generate<ComposeReplyInput, ComposeReplyOutput>(
        composeReplyRequest({ agentName: 'Ada', message: 'x', matched: [{ guideline_id: 'g', action }], history: [] }, context),
      )
    ).value.message;

  it('given "Remind them to bring a valid passport", when composed, then the reply is a whole sentence, not the fragment "To bring …"', async () => {
    expect(await compose('Remind them to bring a valid passport')).toBe('Please remember to bring a valid passport.');
  });

  it('given "Welcome them and offer the getting started guide", when composed, then the greeting keeps the offer', async () => {
    expect(await compose('Welcome them and offer the getting started guide')).toBe(
      "Hello, I'm Ada! I will offer the getting started guide.",
    );
  });

  it('given "Greet the customer" alone, when composed, then the reply is just the greeting', async () => {
    expect(await compose('Greet the customer')).toBe("Hello, I'm Ada!");
  });

  it('given a two-clause action in composited_canned mode, when composed, then each sentence takes the template about its own part', () => {
    const canned = [
      { id: 'guide', value: 'Here is our getting started guide: tenet.example/start', fields: [] },
      { id: 'passport', value: 'Remember your passport for international trips.', fields: [] },
    ];
    const reply = composeReply({
      agentName: 'Ada',
      message: 'I am new',
      history: [],
      composition_mode: 'composited_canned',
      canned_responses: canned,
      matched: [{ guideline_id: 'welcome', action: 'Welcome them and offer the getting started guide' }],
    });
    expect(reply).toEqual({
      message: "Hello, I'm Ada! Here is our getting started guide: tenet.example/start",
      cited_guideline_ids: ['welcome'],
      canned_response_id: '',
      cited_chunk_ids: [],
    });
  });
});
