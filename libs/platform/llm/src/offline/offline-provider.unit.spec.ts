import { OfflineProvider, composeReply, matchGuidelines } from './offline-provider.js';

const guidelines = [
  { id: 'refund', condition: "The customer asks about refunds, returns, or mentions 'money back'", action: 'Explain the 30-day refund policy and offer to check their order status' },
  { id: 'greet', condition: 'The customer greets the agent', action: 'Greet them warmly' },
  { id: 'cancel', condition: 'The customer wants to cancel an order', action: 'Tell them orders can be cancelled until they ship' },
  { id: 'ship', condition: 'The customer asks where their package is or about delivery times', action: 'Ask for the order number to track the shipment' },
];
const score = (message: string, id: string): number => matchGuidelines({ message, history: [], guidelines }).matches.find((m) => m.guideline_id === id)!.relevance;

describe('offline provider', () => {
  it.each([
    ['I want my money back for order 12345', 'refund'],
    ['Can I return these shoes?', 'refund'],
    ['hi there!', 'greet'],
    ['Where is my parcel? It has not been delivered', 'ship'],
    ['Where is my package? It has not arrived', 'ship'],
    ['Hello! My order arrived broken and I want my money back', 'refund'],
  ])('"%s" is relevant (>= 0.3) to %s', (message, id) => {
    expect(score(message, id)).toBeGreaterThanOrEqual(0.3);
  });

  it.each([
    ["what's the weather like", 'refund'],
    ["what's the weather like", 'ship'],
    ['I want my money back', 'greet'],
    ['hello', 'refund'],
    ['Where is my package? It has not arrived', 'cancel'],
  ])('"%s" is not relevant (< 0.3) to %s', (message, id) => {
    expect(score(message, id)).toBeLessThan(0.3);
  });

  it('is deterministic', () => {
    const input = { message: 'refund please', history: [], guidelines };
    expect(matchGuidelines(input)).toEqual(matchGuidelines(input));
  });

  it('composes a reply from the matched actions, addressed to the customer, citing them', () => {
    const reply = composeReply({ agentName: 'Support', message: 'refund?', matched: [{ guideline_id: 'refund', action: guidelines[0]!.action }], history: [] });
    expect(reply).toEqual({ message: 'I will explain the 30-day refund policy and offer to check your order status.', cited_guideline_ids: ['refund'] });
    expect(composeReply({ agentName: 'Ada', message: 'hi', matched: [{ guideline_id: 'g', action: 'Greet them and introduce yourself so you can help' }], history: [] }).message).toBe(
      'I will greet you and introduce myself so I can help.',
    );
    expect(composeReply({ agentName: 'Support', message: 'x', matched: [], history: [] }).cited_guideline_ids).toEqual([]);
  });

  it('reports estimated token usage and refuses unknown tasks', async () => {
    const provider = new OfflineProvider();
    const response = await provider.generate({ task: { kind: 'match_guidelines', input: { message: 'hi', history: [], guidelines } }, system: 's', prompt: 'p'.repeat(40), schemaName: 'x', schema: {}, context: { purpose: 'test' } });
    expect(response.usage.inputTokens).toBeGreaterThan(0);
    expect(response.usage.outputTokens).toBeGreaterThan(0);
    await expect(provider.generate({ task: { kind: 'write_poem', input: {} }, system: '', prompt: '', schemaName: 'x', schema: {}, context: { purpose: 'test' } })).rejects.toMatchObject({ code: 'LLM.UNSUPPORTED_TASK' });
  });
});
