import { llmProviderConformance } from '../testing/index.js';
import { composeReplyRequest } from '../tasks/compose-reply.js';
import { matchGuidelinesRequest, type MatchGuidelinesInput, type MatchGuidelinesOutput } from '../tasks/match-guidelines.js';
import { composeReply } from './compose.js';
import { OfflineProvider } from './offline-provider.js';

llmProviderConformance('offline', async () => ({ provider: new OfflineProvider(), dispose: async () => undefined }));

const guidelines = [
  { id: 'refund', condition: "The customer asks about refunds, returns, or mentions 'money back'", action: 'Explain the 30-day refund policy and offer to check their order status' },
  { id: 'greet', condition: 'The customer greets the agent', action: 'Greet them warmly' },
  { id: 'cancel', condition: 'The customer wants to cancel an order', action: 'Tell them orders can be cancelled until they ship' },
  { id: 'ship', condition: 'The customer asks where their package is or about delivery times', action: 'Ask for the order number to track the shipment' },
  { id: 'price', condition: "The customer asks how much something costs", action: 'Point them to the pricing page' },
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
      (await provider.generate<MatchGuidelinesInput, MatchGuidelinesOutput>(matchGuidelinesRequest({ message: 'is my voucher still valid?', history: [], guidelines: g }, context))).value.matches[0]!.relevance;
    expect(await score(quoted)).toBeGreaterThan(await score(plain));
  });

  it('scores every guideline, in [0, 1], with a reason, the same way every time', async () => {
    const request = matchGuidelinesRequest({ message: 'Hello, I want a refund for my purchase', history: [{ role: 'agent', content: 'Hi!' }], guidelines }, context);
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
      message: "Hello, I'm Support! I will explain the 30-day refund policy and offer to check your order status.",
      cited_guideline_ids: ['greet', 'refund'],
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
});

describe('OfflineProvider: usage and unknown tasks', () => {
  it('estimates usage from the prompt a model would have read (about four characters a token)', async () => {
    const short = await provider.generate(composeReplyRequest({ agentName: 'A', message: 'hi', matched: [], history: [] }, context));
    const long = await provider.generate(composeReplyRequest({ agentName: 'A', message: 'hi '.repeat(400), matched: [], history: [] }, context));
    expect(long.usage.inputTokens - short.usage.inputTokens).toBeGreaterThanOrEqual(250);
    expect(long.usage.inputTokens - short.usage.inputTokens).toBeLessThanOrEqual(350);
  });

  it('refuses task kinds it does not implement with LLM.UNSUPPORTED_TASK', async () => {
    await expect(provider.generate({ task: { kind: 'write_poem', input: {} }, system: '', prompt: 'a poem', schemaName: 'poem', schema: {}, context })).rejects.toMatchObject({
      code: 'LLM.UNSUPPORTED_TASK',
      taskKind: 'write_poem',
      retryable: false,
    });
  });
});
