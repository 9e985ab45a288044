import { embeddingProviderConformance } from '../testing/index.js';
import { cosineSimilarity } from './embedding.port.js';
import { createEmbeddingProvider } from './embedding-provider-factory.js';
import { OfflineVectorizer } from './offline-vectorizer.js';
import { OpenAiEmbeddingProvider } from './openai-embeddings.js';
import { LlmConfigurationError } from '../errors.js';

embeddingProviderConformance('offline vectorizer', async () => ({ provider: new OfflineVectorizer(), dispose: async () => undefined }));
embeddingProviderConformance('offline vectorizer, 64 dimensions', async () => ({
  provider: new OfflineVectorizer({ dimensions: 64 }),
  dispose: async () => undefined,
}));

const context = { purpose: 'test' };
const vectorizer = new OfflineVectorizer();
const similarity = (a: string, b: string): number => cosineSimilarity(vectorizer.vectorize(a), vectorizer.vectorize(b));

describe('OfflineVectorizer', () => {
  it('gives every machine the same vector for the same text: stored vectors stay comparable', () => {
    // If this changes, vectors stored with model tenet-hashing-1 no longer compare with new ones: bump the model name.
    const vector = vectorizer.vectorize('I want a refund');
    const nonZero = vector.flatMap((x, i) => (x === 0 ? [] : [[i, Math.round(x * 1e4) / 1e4]]));
    expect(nonZero).toEqual([
      [36, -0.2132],
      [37, -0.2132],
      [76, 0.8528],
      [237, -0.2132],
      [365, 0.2132],
      [393, 0.2132],
      [402, -0.2132],
    ]);
    expect(new OfflineVectorizer().vectorize('I want a refund')).toEqual(vector);
  });

  it('returns unit vectors (cosine = dot product) and the zero vector for text without words', async () => {
    const { vectors, usage, provider, model } = await vectorizer.embed(['Where is my parcel?', '?!', ''], context);
    expect(Math.hypot(...vectors[0]!)).toBeCloseTo(1, 10);
    expect(vectors[1]!.every((x) => x === 0)).toBe(true);
    expect(vectors[2]!.every((x) => x === 0)).toBe(true);
    expect({ provider, model }).toEqual({ provider: 'offline', model: 'tenet-hashing-1' });
    expect(usage.inputTokens).toBe(Math.ceil('Where is my parcel?'.length / 4) + 1);
  });

  it('reads synonyms, inflections and case as the same words, and ignores stop words', () => {
    expect(similarity('I want my money back', 'REFUND')).toBeGreaterThan(0.6);
    expect(similarity('cancel my subscription', 'stop the subscriptions')).toBeGreaterThan(0.8);
    expect(similarity('Where is my package?', 'When will my parcel arrive?')).toBeGreaterThan(0.4);
    expect(similarity('the refund', 'a refund, please')).toBeCloseTo(1, 5);
    expect(similarity('I want a refund for my order', 'What will the weather be like tomorrow in Paris?')).toBeLessThan(0.1);
  });

  it('lets word order count a little (bigrams)', () => {
    expect(similarity('order refund', 'order refund')).toBeCloseTo(1, 10);
    expect(similarity('order refund', 'refund order')).toBeLessThan(0.95);
    expect(similarity('order refund', 'refund order')).toBeGreaterThan(0.7);
  });

  it('refuses too few dimensions', () => {
    expect(() => new OfflineVectorizer({ dimensions: 4 })).toThrow(RangeError);
  });
});

describe('createEmbeddingProvider', () => {
  it('is offline without an OpenAI key, including with only an Anthropic key (Anthropic has no embeddings API)', () => {
    expect(createEmbeddingProvider({})).toBeInstanceOf(OfflineVectorizer);
    expect(createEmbeddingProvider({ ANTHROPIC_API_KEY: 'sk-ant' })).toBeInstanceOf(OfflineVectorizer);
    expect(createEmbeddingProvider({ TENET_EMBEDDING_DIMENSIONS: '128' })).toMatchObject({ dimensions: 128 });
  });

  it('uses OpenAI when its key is set, unless TENET_EMBEDDING_PROVIDER=offline', () => {
    expect(createEmbeddingProvider({ OPENAI_API_KEY: 'sk-1' })).toMatchObject({
      name: 'openai',
      model: 'text-embedding-3-small',
      dimensions: 1536,
    });
    expect(
      createEmbeddingProvider({
        OPENAI_API_KEY: 'sk-1',
        TENET_EMBEDDING_MODEL: 'text-embedding-3-large',
        TENET_EMBEDDING_DIMENSIONS: '256',
      }),
    ).toMatchObject({
      model: 'text-embedding-3-large',
      dimensions: 256,
    });
    expect(createEmbeddingProvider({ OPENAI_API_KEY: 'sk-1', TENET_EMBEDDING_PROVIDER: 'offline' })).toBeInstanceOf(OfflineVectorizer);
    expect(createEmbeddingProvider({ OPENAI_API_KEY: 'sk-1', TENET_EMBEDDING_PROVIDER: 'OpenAI' })).toBeInstanceOf(OpenAiEmbeddingProvider);
  });

  it('refuses configurations that cannot work, at startup', () => {
    expect(() => createEmbeddingProvider({ TENET_EMBEDDING_PROVIDER: 'openai' })).toThrow('needs OPENAI_API_KEY');
    expect(() => createEmbeddingProvider({ TENET_EMBEDDING_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-ant' })).toThrow(
      'Anthropic has no embeddings API',
    );
    expect(() => createEmbeddingProvider({ TENET_EMBEDDING_PROVIDER: 'cohere' })).toThrow(LlmConfigurationError);
    expect(() => createEmbeddingProvider({ OPENAI_API_KEY: 'sk-1', TENET_EMBEDDING_MODEL: 'my-local-model' })).toThrow(
      'TENET_EMBEDDING_DIMENSIONS',
    );
    expect(() => createEmbeddingProvider({ TENET_EMBEDDING_DIMENSIONS: 'many' })).toThrow(LlmConfigurationError);
  });
});
