import { cosineSimilarity, type EmbeddingProvider, type EmbeddingResponse } from '../embeddings/embedding.port.js';

/** An embedding provider ready to answer (the offline vectorizer, an adapter talking to a local wire server, …). */
export interface EmbeddingProviderHarness {
  provider: EmbeddingProvider;
  dispose(): Promise<void>;
}

const context = { purpose: 'conformance', sessionId: 'session-1', agentId: 'agent-1' };

/** The texts the suite embeds, for harnesses that compute answers from them. */
export const conformanceTexts = {
  refund: 'I want a refund for my order',
  moneyBack: 'Can I get my money back for this order?',
  weather: 'What will the weather be like tomorrow in Paris?',
  greeting: 'Hello there, good morning!',
} as const;

function expectWellFormed(response: EmbeddingResponse, provider: EmbeddingProvider, count: number): void {
  expect(response.provider).toBe(provider.name);
  expect(typeof response.model).toBe('string');
  expect(response.model.length).toBeGreaterThan(0);
  expect(response.vectors).toHaveLength(count);
  for (const vector of response.vectors) {
    expect(vector).toHaveLength(provider.dimensions);
    expect(vector.every(Number.isFinite)).toBe(true);
  }
  expect(Number.isInteger(response.usage.inputTokens)).toBe(true);
  expect(response.usage.inputTokens).toBeGreaterThanOrEqual(0);
  expect(Number.isFinite(response.latencyMs)).toBe(true);
  expect(response.latencyMs).toBeGreaterThanOrEqual(0);
}

/**
 * The contract every EmbeddingProvider meets, run from each adapter's spec: one vector per text, in order, of the
 * advertised length; stable for the same text; nearer for texts about the same thing; usage and attribution.
 */
export function embeddingProviderConformance(name: string, createHarness: () => Promise<EmbeddingProviderHarness>): void {
  describe(`EmbeddingProvider conformance: ${name}`, () => {
    let harness: EmbeddingProviderHarness;

    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('answers one vector per text, in order, each of the advertised length, with usage and the answering provider', async () => {
      const texts = [conformanceTexts.refund, conformanceTexts.weather, conformanceTexts.greeting];
      const response = await harness.provider.embed(texts, context);
      expectWellFormed(response, harness.provider, texts.length);
      expect(response.usage.inputTokens).toBeGreaterThan(0);
      const [refund] = (await harness.provider.embed([conformanceTexts.refund], context)).vectors;
      expect(cosineSimilarity(response.vectors[0]!, refund!)).toBeGreaterThan(0.99);
      expect(cosineSimilarity(response.vectors[1]!, refund!)).toBeLessThan(0.99);
    });

    it('places texts about the same thing nearer than unrelated ones', async () => {
      const { vectors } = await harness.provider.embed(
        [conformanceTexts.refund, conformanceTexts.moneyBack, conformanceTexts.weather],
        context,
      );
      const [refund, moneyBack, weather] = vectors as [number[], number[], number[]];
      expect(cosineSimilarity(refund, moneyBack)).toBeGreaterThan(cosineSimilarity(refund, weather));
    });

    it('answers nothing for no texts, and the zero vector for a blank one', async () => {
      const none = await harness.provider.embed([], context);
      expectWellFormed(none, harness.provider, 0);
      expect(none.usage.inputTokens).toBe(0);
      const blank = await harness.provider.embed(['  ', conformanceTexts.greeting], context);
      expectWellFormed(blank, harness.provider, 2);
      expect(blank.vectors[0]!.every((x) => x === 0)).toBe(true);
      expect(blank.vectors[1]!.some((x) => x !== 0)).toBe(true);
    });

    it('answers concurrent calls independently and leaves the texts untouched', async () => {
      const a = [conformanceTexts.refund, conformanceTexts.weather];
      const b = [conformanceTexts.greeting];
      const before = structuredClone([a, b]);
      const [first, second] = await Promise.all([harness.provider.embed(a, context), harness.provider.embed(b, context)]);
      expectWellFormed(first, harness.provider, 2);
      expectWellFormed(second, harness.provider, 1);
      expect([a, b]).toEqual(before);
    });
  });
}
