import { createServer } from 'node:http';
import { embeddingProviderConformance } from '../testing/index.js';
import { openAiEmbeddings, startWireServer, type RecordedRequest, type WireReply, type WireServer } from '../testing/wire-server.js';
import { cosineSimilarity } from './embedding.port.js';
import { createEmbeddingProvider } from './embedding-provider-factory.js';
import { OfflineVectorizer } from './offline-vectorizer.js';
import { OpenAiEmbeddingProvider, type OpenAiEmbeddingProviderOptions } from './openai-embeddings.js';

// The local server answers with the offline vectorizer's vectors at the model's length, so similarity is meaningful.
const vectorizers = new Map<number, OfflineVectorizer>();
const vectorOf =
  (dimensions: number) =>
  (text: string): number[] => {
    if (!vectorizers.has(dimensions)) vectorizers.set(dimensions, new OfflineVectorizer({ dimensions }));
    return vectorizers.get(dimensions)!.vectorize(text);
  };
const answer = (request: RecordedRequest, options: Parameters<typeof openAiEmbeddings>[2] = {}): WireReply =>
  openAiEmbeddings(request, vectorOf(typeof request.body['dimensions'] === 'number' ? request.body['dimensions'] : 1536), options);

const context = { purpose: 'embed_guidelines', agentId: 'a-1' };
const create = (url: string, options: Partial<OpenAiEmbeddingProviderOptions> = {}) =>
  new OpenAiEmbeddingProvider({ apiKey: 'sk-test', baseURL: url, ...options });

embeddingProviderConformance('openai over its wire format', async () => {
  const server = await startWireServer((request) => answer(request));
  return { provider: create(server.url), dispose: () => server.close() };
});

const rateLimited: WireReply = {
  status: 429,
  headers: { 'retry-after': '1' },
  body: { error: { type: 'rate_limit_error', message: 'slow down' } },
};
const unauthorised: WireReply = {
  status: 401,
  headers: { 'x-should-retry': 'true' },
  body: { error: { type: 'invalid_request_error', message: 'invalid api key' } },
};

describe('OpenAI embeddings against a local server speaking its wire format', () => {
  let server: WireServer | undefined;
  const serve = async (respond: Parameters<typeof startWireServer>[0]): Promise<WireServer> => (server = await startWireServer(respond));
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends the embeddings request the SDK makes (base64 vectors, decoded) and reports the usage and model the API reports', async () => {
    const { url, requests } = await serve((r) => answer(r, { model: 'text-embedding-3-small-v2', promptTokens: () => 17 }));
    const response = await create(url).embed(['I want a refund', 'Where is my parcel?'], context);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).toBe('/embeddings');
    expect(requests[0]!.headers['authorization']).toBe('Bearer sk-test');
    expect(requests[0]!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['I want a refund', 'Where is my parcel?'],
      encoding_format: 'base64',
    });
    expect(response).toMatchObject({ usage: { inputTokens: 17 }, provider: 'openai', model: 'text-embedding-3-small-v2' });
    // Float32 on the wire: equal to the float64 original to about 7 digits.
    const expected = vectorOf(1536)('I want a refund');
    response.vectors[0]!.forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 6));
  });

  it('asks for shortened vectors when configured, and checks their length', async () => {
    const { url, requests } = await serve((r) => answer(r));
    const provider = create(url, { model: 'text-embedding-3-large', dimensions: 256 });
    const { vectors } = await provider.embed(['refund'], context);
    expect(requests[0]!.body).toMatchObject({ model: 'text-embedding-3-large', dimensions: 256 });
    expect(vectors[0]).toHaveLength(256);
  });

  it('batches the texts and returns the vectors in input order whatever order each answer lists them in', async () => {
    const { url, requests } = await serve((r) => {
      const reply = answer(r, { promptTokens: (texts) => texts.length * 10 });
      (reply.body as { data: unknown[] }).data.reverse();
      return reply;
    });
    const texts = ['refund', 'parcel', 'cancel', 'hello', 'price'];
    const response = await create(url, { batchSize: 2 }).embed(texts, context);
    // The batches are sent concurrently: they may arrive in any order.
    expect(requests.map((r) => JSON.stringify(r.body['input'])).sort()).toEqual(
      [['cancel', 'hello'], ['price'], ['refund', 'parcel']].map((x) => JSON.stringify(x)),
    );
    expect(response.usage.inputTokens).toBe(50);
    texts.forEach((text, i) => expect(cosineSimilarity(response.vectors[i]!, vectorOf(1536)(text))).toBeGreaterThan(0.9999));
  });

  it('refuses a concurrency outside 1..16', () => {
    expect(() => create('http://127.0.0.1:9', { concurrency: 0 })).toThrow(RangeError);
    expect(() => create('http://127.0.0.1:9', { concurrency: 17 })).toThrow(RangeError);
  });

  it('does not send blank texts (the API rejects them): they get the zero vector', async () => {
    const { url, requests } = await serve((r) => answer(r));
    const { vectors } = await create(url).embed(['', 'refund', '  '], context);
    expect(requests[0]!.body['input']).toEqual(['refund']);
    expect(vectors.map((v) => v.some((x) => x !== 0))).toEqual([false, true, false]);
  });

  it('retries a 429 after the advertised retry-after, then succeeds', async () => {
    let calls = 0;
    const { url, requests } = await serve((r) => (calls++ === 0 ? rateLimited : answer(r)));
    const response = await create(url).embed(['refund'], context);
    expect(response.vectors).toHaveLength(1);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(980);
    expect(response.latencyMs).toBeGreaterThanOrEqual(980);
  });

  it('reports LLM.RATE_LIMITED with the advertised delay once retries are spent', async () => {
    const { url, requests } = await serve([rateLimited]);
    await expect(create(url, { maxRetries: 0 }).embed(['refund'], context)).rejects.toMatchObject({
      code: 'LLM.RATE_LIMITED',
      retryAfterMs: 1000,
      provider: 'openai',
    });
    expect(requests).toHaveLength(1);
  });

  it('fails at once on bad credentials: LLM.AUTHENTICATION after exactly one request', async () => {
    const { url, requests } = await serve([unauthorised]);
    await expect(create(url).embed(['refund'], context)).rejects.toMatchObject({ code: 'LLM.AUTHENTICATION', retryable: false });
    expect(requests).toHaveLength(1);
  });

  it('retries transient server errors, and reports LLM.UNAVAILABLE when they persist', async () => {
    let calls = 0;
    const { url } = await serve((r) => (calls++ === 0 ? { status: 503, body: { error: { message: 'busy' } } } : answer(r)));
    await expect(create(url, { retryPolicy: { baseDelayMs: 20, maxDelayMs: 40 } }).embed(['refund'], context)).resolves.toMatchObject({
      provider: 'openai',
    });
    await server!.close();
    server = undefined;
    await expect(
      create(url, { maxRetries: 1, retryPolicy: { baseDelayMs: 20, maxDelayMs: 40 } }).embed(['refund'], context),
    ).rejects.toMatchObject({ code: 'LLM.UNAVAILABLE', retryable: true });
  });

  it('rejects vectors of the wrong length or missing ones with LLM.INVALID_OUTPUT', async () => {
    const { url } = await serve((r) => openAiEmbeddings(r, () => [0.1, 0.2, 0.3]));
    await expect(create(url).embed(['refund'], context)).rejects.toMatchObject({ code: 'LLM.INVALID_OUTPUT', path: '/data/0/embedding' });
    await server!.close();
    await serve((r) => ({ ...answer(r), body: { ...(answer(r).body as object), data: [] } }));
    await expect(create(server!.url).embed(['refund'], context)).rejects.toMatchObject({ code: 'LLM.INVALID_OUTPUT', path: '/data/0' });
  });

  it('is what createEmbeddingProvider builds from the environment, base URL and model included', async () => {
    const { url, requests } = await serve((r) => answer(r));
    const provider = createEmbeddingProvider({
      OPENAI_API_KEY: 'sk-env',
      OPENAI_BASE_URL: url,
      TENET_EMBEDDING_MODEL: 'text-embedding-3-large',
      TENET_EMBEDDING_DIMENSIONS: '512',
    });
    const { vectors } = await provider.embed(['refund'], context);
    expect(requests[0]!.body).toMatchObject({ model: 'text-embedding-3-large', dimensions: 512 });
    expect(requests[0]!.headers['authorization']).toBe('Bearer sk-env');
    expect(vectors[0]).toHaveLength(512);
  });
});

/**
 * A local server speaking the embeddings wire format that holds each request for a while — the first batches
 * longest, so they finish last — and counts how many are in flight at once.
 */
async function startSlowServer(delayOf: (texts: string[]) => number, failWhen: (texts: string[]) => boolean = () => false) {
  const requests: RecordedRequest[] = [];
  const finished: string[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        at: performance.now(),
      };
      requests.push(recorded);
      const texts = (recorded.body['input'] as string[]).map(String);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        finished.push(texts);
        const reply = failWhen(texts) ? unauthorised : answer(recorded, { promptTokens: (t) => t.length * 10 });
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify(reply.body));
      }, delayOf(texts));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    finished,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

describe('OpenAI embeddings sends its batches with bounded concurrency', () => {
  const texts = [
    'refund',
    'parcel',
    'cancel',
    'hello',
    'price',
    'invoice',
    'warranty',
    'password',
    'exchange',
    'coupon',
    'delivery',
    'privacy',
  ];
  // Batch n (of 2 texts) answers after (6 - n) × 40 ms: the first batch sent is the last to finish.
  const delayOf = (batch: string[]): number => (6 - Math.floor(texts.indexOf(batch[0]!) / 2)) * 40;

  it('given 6 batches and the default concurrency, when embedding, then at most 4 requests are in flight and the vectors come back in input order although the batches finish in reverse', async () => {
    const server = await startSlowServer(delayOf);
    try {
      const response = await create(server.url, { batchSize: 2 }).embed(texts, context);
      expect(server.requests).toHaveLength(6);
      expect(server.maxInFlight()).toBe(4);
      expect(server.finished[0]).not.toEqual(['refund', 'parcel']);
      texts.forEach((text, i) => expect(cosineSimilarity(response.vectors[i]!, vectorOf(1536)(text))).toBeGreaterThan(0.9999));
      expect(response.usage.inputTokens).toBe(120);
    } finally {
      await server.close();
    }
  });

  it('given concurrency 1, when embedding several batches, then they are sent one after another', async () => {
    const server = await startSlowServer(() => 5);
    try {
      const response = await create(server.url, { batchSize: 5, concurrency: 1 }).embed(texts, context);
      expect(server.maxInFlight()).toBe(1);
      expect(server.requests.map((r) => r.body['input'])).toEqual([texts.slice(0, 5), texts.slice(5, 10), texts.slice(10)]);
      expect(response.vectors).toHaveLength(12);
    } finally {
      await server.close();
    }
  });

  it('given a batch that fails for good, when embedding, then the call fails with its error and batches not yet started are not sent', async () => {
    const server = await startSlowServer(
      () => 5,
      (batch) => batch[0] === 'cancel',
    );
    try {
      await expect(create(server.url, { batchSize: 2, concurrency: 2 }).embed(texts, context)).rejects.toMatchObject({
        code: 'LLM.AUTHENTICATION',
      });
      expect(server.requests.length).toBeLessThan(6);
    } finally {
      await server.close();
    }
  });
});
