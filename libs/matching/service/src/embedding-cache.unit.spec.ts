import { ProviderUnavailableError, type EmbeddingProvider, type EmbeddingResponse } from '@tenet/llm';
import { EmbeddingsBackingOffError } from './embedding-breaker.js';
import { EmbeddingCache } from './embedding-cache.js';

/** An embedding provider that records every call and answers a 2-dimension vector per text (or what `answer` says). */
class RecordingEmbeddings implements EmbeddingProvider {
  readonly name = 'fake';
  readonly model = 'fake-1';
  readonly dimensions = 2;
  readonly calls: string[][] = [];
  answer: (texts: string[]) => Promise<number[][]> = async (texts) => texts.map((t) => [t.length, 1]);

  async embed(texts: string[]): Promise<EmbeddingResponse> {
    this.calls.push(texts);
    return {
      vectors: await this.answer(texts),
      usage: { inputTokens: texts.length },
      provider: this.name,
      model: this.model,
      latencyMs: 1,
    };
  }
}

const context = { purpose: 'embed' };

describe('EmbeddingCache', () => {
  it('given guideline texts embedded once, when they are asked for again, then no provider call is made and the vectors are the same', async () => {
    const provider = new RecordingEmbeddings();
    const cache = new EmbeddingCache(provider, {});
    const first = await cache.embed({ guidelines: ['a', 'bb'] }, context);
    const second = await cache.embed({ guidelines: ['bb', 'a'] }, context);
    expect(provider.calls).toEqual([['a', 'bb']]);
    expect(first.computed).toBe(2);
    expect(second).toMatchObject({ computed: 0 });
    expect(second.usage).toBeUndefined();
    expect([...second.guidelines[0]!]).toEqual([2, 1]);
  });

  it('given a bound of 3 guideline vectors, when 5 distinct texts are embedded, then it holds 3, the least recently used are evicted and re-embedding them calls the provider again', async () => {
    const provider = new RecordingEmbeddings();
    const cache = new EmbeddingCache(provider, { maxEntries: 3 });
    const all = await cache.embed({ guidelines: ['t1', 't2', 't3', 't4', 't5'] }, context);
    // Every text gets its vector, even when the batch is larger than the bound.
    expect(all.guidelines.map((v) => v.length)).toEqual([2, 2, 2, 2, 2]);
    expect(cache.size.guidelines).toBe(3);
    await cache.embed({ guidelines: ['t3', 't4', 't5'] }, context);
    expect(provider.calls).toHaveLength(1);
    await cache.embed({ guidelines: ['t3'] }, context); // t3 most recent: t4 is now the least recently used
    await cache.embed({ guidelines: ['t1'] }, context);
    expect(provider.calls.at(-1)).toEqual(['t1']);
    expect(cache.size.guidelines).toBe(3);
    await cache.embed({ guidelines: ['t3', 't5'] }, context);
    expect(provider.calls).toHaveLength(2);
    await cache.embed({ guidelines: ['t4'] }, context);
    expect(provider.calls.at(-1)).toEqual(['t4']);
  });

  it('given many distinct customer messages, when embedded as queries, then they stay in their own small LRU and never push guideline vectors out', async () => {
    const provider = new RecordingEmbeddings();
    const cache = new EmbeddingCache(provider, { maxEntries: 2, maxQueryEntries: 3 });
    await cache.embed({ guidelines: ['g1', 'g2'] }, context);
    for (let i = 0; i < 100; i++) await cache.embed({ guidelines: ['g1', 'g2'], queries: [`message number ${i}`] }, context);
    expect(cache.size).toEqual({ guidelines: 2, queries: 3 });
    // Only the query was sent on each turn: the guideline vectors stayed cached.
    expect(provider.calls.slice(1).every((texts) => texts.length === 1 && texts[0]!.startsWith('message'))).toBe(true);
    // The previous message, back as history, is a cache hit.
    const calls = provider.calls.length;
    await cache.embed({ guidelines: [], queries: ['message number 99'] }, context);
    expect(provider.calls).toHaveLength(calls);
  });

  it('given query caching off, when the same message is embedded twice, then it is sent twice and nothing is kept', async () => {
    const provider = new RecordingEmbeddings();
    const cache = new EmbeddingCache(provider, { maxQueryEntries: 0 });
    await cache.embed({ guidelines: ['g'], queries: ['yes'] }, context);
    await cache.embed({ guidelines: ['g'], queries: ['yes'] }, context);
    expect(provider.calls).toEqual([['g', 'yes'], ['yes']]);
    expect(cache.size.queries).toBe(0);
  });

  it('given guideline and query texts missing, when embedding, then they go in one provider call, duplicates once, and come back in order', async () => {
    const provider = new RecordingEmbeddings();
    const cache = new EmbeddingCache(provider, {});
    const out = await cache.embed({ guidelines: ['aaa', 'b', 'aaa'], queries: ['cc', 'b'] }, context);
    expect(provider.calls).toEqual([['aaa', 'b', 'cc']]);
    expect(out.guidelines.map((v) => v[0])).toEqual([3, 1, 3]);
    expect(out.queries.map((v) => v[0])).toEqual([2, 1]);
    expect(out.usage).toMatchObject({ purpose: 'embed', provider: 'fake', model: 'fake-1', input_tokens: 3, output_tokens: 0 });
  });

  it('given a provider answering the wrong number of vectors, vectors of the wrong length or non-finite numbers, when embedding, then it fails with LLM.INVALID_OUTPUT and caches nothing', async () => {
    const provider = new RecordingEmbeddings();
    // Each call far past the previous one, so the breaker opened by each failure has closed again.
    let clock = 0;
    const cache = new EmbeddingCache(provider, { now: () => (clock += 1e9) });
    provider.answer = async () => [[1, 0]];
    await expect(cache.embed({ guidelines: ['a', 'b'] }, context)).rejects.toMatchObject({ code: 'LLM.INVALID_OUTPUT', path: '/vectors' });
    provider.answer = async (texts) => texts.map(() => [1, 0, 0]);
    await expect(cache.embed({ guidelines: ['a'] }, context)).rejects.toMatchObject({ code: 'LLM.INVALID_OUTPUT', path: '/vectors/0' });
    provider.answer = async (texts) => texts.map(() => [Number.NaN, 0]);
    await expect(cache.embed({ guidelines: ['a'] }, context)).rejects.toMatchObject({ code: 'LLM.INVALID_OUTPUT' });
    expect(cache.size).toEqual({ guidelines: 0, queries: 0 });
  });

  it('given a provider slower than the timeout, when embedding, then it fails with a retryable LLM.UNAVAILABLE, and the late answer is still cached for the next turn', async () => {
    const provider = new RecordingEmbeddings();
    let release: () => void = () => undefined;
    provider.answer = (texts) => new Promise((resolve) => (release = () => resolve(texts.map(() => [1, 1]))));
    const cache = new EmbeddingCache(provider, { timeoutMs: 20 });
    await expect(cache.embed({ guidelines: ['slow'] }, context)).rejects.toMatchObject({ code: 'LLM.UNAVAILABLE', retryable: true });
    release();
    await new Promise((resolve) => setImmediate(resolve));
    const next = await cache.embed({ guidelines: ['slow'] }, context);
    expect(next.computed).toBe(0);
    expect(provider.calls).toHaveLength(1);
  });

  it('given nonsensical bounds, when building the cache, then it refuses', () => {
    const provider = new RecordingEmbeddings();
    expect(() => new EmbeddingCache(provider, { maxEntries: 0 })).toThrow(RangeError);
    expect(() => new EmbeddingCache(provider, { maxQueryEntries: -1 })).toThrow(RangeError);
    expect(() => new EmbeddingCache(provider, { timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe('EmbeddingCache circuit breaker', () => {
  const guidelines = Array.from({ length: 1000 }, (_, i) => `guideline ${i}`);

  it('given a failing provider, when turns keep asking for the whole set, then it is called once per growing interval, not once per turn, and recovers after a successful trial', async () => {
    const provider = new RecordingEmbeddings();
    provider.answer = async () => {
      throw new ProviderUnavailableError('fake', 'down', true);
    };
    let clock = 0;
    const cache = new EmbeddingCache(provider, { backoffMs: 1_000, backoffMaxMs: 4_000, now: () => clock });
    const turn = (): Promise<unknown> => cache.embed({ guidelines, queries: [`message at ${clock}`] }, context);

    await expect(turn()).rejects.toMatchObject({ code: 'LLM.UNAVAILABLE' });
    // 50 turns within the first interval: skipped at once, with the opening failure's code; no provider call.
    for (let i = 0; i < 50; i++) await expect(turn()).rejects.toBeInstanceOf(EmbeddingsBackingOffError);
    await expect(turn()).rejects.toMatchObject({ code: 'LLM.UNAVAILABLE', retryable: true });
    expect(provider.calls).toHaveLength(1);

    clock = 1_000; // the trial fails: the interval doubles to 2 s
    await expect(turn()).rejects.toMatchObject({ message: 'down' });
    clock = 2_999;
    await expect(turn()).rejects.toBeInstanceOf(EmbeddingsBackingOffError);
    expect(provider.calls).toHaveLength(2);
    clock = 3_000; // fails again: 4 s, then capped at 4 s
    await expect(turn()).rejects.toMatchObject({ message: 'down' });
    clock = 7_000;
    await expect(turn()).rejects.toMatchObject({ message: 'down' });
    expect(cache.breaker.backoffMs).toBe(4_000);
    clock = 10_999;
    await expect(turn()).rejects.toBeInstanceOf(EmbeddingsBackingOffError);
    expect(provider.calls).toHaveLength(4);

    provider.answer = async (texts) => texts.map((t) => [t.length, 1]);
    clock = 11_000;
    await expect(turn()).resolves.toMatchObject({ computed: 1001 });
    expect(cache.breaker.backoffMs).toBe(0);
    clock = 11_001;
    await expect(turn()).resolves.toMatchObject({ computed: 1 });
    expect(provider.calls).toHaveLength(6);
  });

  it('given the breaker open, when every text is cached, then the lookup still succeeds without a provider call', async () => {
    const provider = new RecordingEmbeddings();
    let clock = 0;
    const cache = new EmbeddingCache(provider, { backoffMs: 1_000, now: () => clock });
    await cache.embed({ guidelines: ['g1'], queries: ['q'] }, context);
    provider.answer = async () => {
      throw new ProviderUnavailableError('fake', 'down', true);
    };
    await expect(cache.embed({ guidelines: ['g2'] }, context)).rejects.toMatchObject({ code: 'LLM.UNAVAILABLE' });
    clock = 10;
    await expect(cache.embed({ guidelines: ['g1'], queries: ['q'] }, context)).resolves.toMatchObject({ computed: 0 });
    expect(provider.calls).toHaveLength(2);
  });
});
