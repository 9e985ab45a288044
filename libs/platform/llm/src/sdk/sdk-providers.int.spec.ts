import { AnthropicProvider } from '../anthropic/anthropic-provider.js';
import type { LlmProvider } from '../llm.port.js';
import { OpenAiProvider } from '../openai/openai-provider.js';
import { createLlmProvider, createLlmProviderFor } from '../provider-factory.js';
import { composeReplyRequest, composeReplySchema, type ComposeReplyOutput } from '../tasks/compose-reply.js';
import { llmProviderConformance } from '../testing/index.js';
import {
  anthropicToolUse,
  openAiCompletion,
  startWireServer,
  type RecordedRequest,
  type WireReply,
  type WireServer,
} from '../testing/wire-server.js';

const answer: ComposeReplyOutput = {
  message: 'Our refund window is 30 days.',
  cited_guideline_ids: ['refund'],
  canned_response_id: '',
  cited_chunk_ids: [],
};
const request = composeReplyRequest(
  {
    agentName: 'Support',
    message: 'I want my money back',
    matched: [{ guideline_id: 'refund', action: 'Explain the 30-day refund policy' }],
    history: [
      { role: 'agent', content: 'Hello, how can I help?' },
      { role: 'customer', content: 'Hi' },
    ],
  },
  { purpose: 'compose_reply', sessionId: 's-1', agentId: 'a-1' },
  { temperature: 0.2, maxTokens: 300 },
);

/** Valid answers to the conformance suite's requests, by the schema name the SDK sent. */
const cannedValues: Record<string, unknown> = {
  guideline_matches: { matches: [{ guideline_id: 'refund', relevance: 0.9, confidence: 0.8, reasoning: 'asks for money back' }] },
  reply: answer,
};

interface Adapter {
  name: 'openai' | 'anthropic';
  create(baseURL: string, options?: { maxRetries?: number; fast?: boolean }): LlmProvider;
  ok(name: string, value: unknown): WireReply;
  schemaNameOf(body: Record<string, unknown>): string;
  path: string;
  usage: { inputTokens: number; outputTokens: number };
  fromEnv(baseURL: string): Record<string, string>;
}

// Transient failures back off 500 ms by default; the tests that provoke them shorten it (429 waits what the server says).
const fastBackoff = { baseDelayMs: 20, maxDelayMs: 40 };

const adapters: Adapter[] = [
  {
    name: 'openai',
    create: (baseURL, o = {}) =>
      new OpenAiProvider({
        apiKey: 'sk-test',
        baseURL,
        ...(o.maxRetries !== undefined ? { maxRetries: o.maxRetries } : {}),
        ...(o.fast ? { retryPolicy: fastBackoff } : {}),
      }),
    ok: (_name, value) => openAiCompletion(value),
    schemaNameOf: (body) => (body['response_format'] as { json_schema: { name: string } }).json_schema.name,
    path: '/chat/completions',
    usage: { inputTokens: 123, outputTokens: 45 },
    fromEnv: (baseURL) => ({ OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: baseURL, TENET_LLM_MODEL: 'gpt-4.1-mini' }),
  },
  {
    name: 'anthropic',
    create: (baseURL, o = {}) =>
      new AnthropicProvider({
        apiKey: 'sk-ant-test',
        baseURL,
        ...(o.maxRetries !== undefined ? { maxRetries: o.maxRetries } : {}),
        ...(o.fast ? { retryPolicy: fastBackoff } : {}),
      }),
    ok: (name, value) => anthropicToolUse(name, value),
    schemaNameOf: (body) => (body['tool_choice'] as { name: string }).name,
    path: '/v1/messages',
    usage: { inputTokens: 210, outputTokens: 33 },
    fromEnv: (baseURL) => ({ ANTHROPIC_API_KEY: 'sk-ant-env', ANTHROPIC_BASE_URL: baseURL, TENET_LLM_MODEL: 'claude-sonnet-4-5' }),
  },
];

const rateLimited: WireReply = {
  status: 429,
  headers: { 'retry-after': '1' },
  body: { error: { type: 'rate_limit_error', message: 'slow down' } },
};
// Both SDKs obey `x-should-retry: true` even on a 401; Tenet's retry loop must not.
const unauthorised: WireReply = {
  status: 401,
  headers: { 'x-should-retry': 'true' },
  body: { error: { type: 'authentication_error', message: 'invalid api key' } },
};
const overloaded: WireReply = { status: 503, body: { error: { type: 'overloaded_error', message: 'busy' } } };

for (const adapter of adapters) {
  llmProviderConformance(`${adapter.name} over its wire format`, async () => {
    const server = await startWireServer((r: RecordedRequest) => {
      const name = adapter.schemaNameOf(r.body);
      return adapter.ok(name, cannedValues[name]);
    });
    return { provider: adapter.create(server.url), dispose: () => server.close() };
  });
}

describe.each(adapters)('$name provider against a local server speaking its wire format', (adapter) => {
  let server: WireServer | undefined;
  const serve = async (respond: Parameters<typeof startWireServer>[0]): Promise<WireServer> => (server = await startWireServer(respond));
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends the structured-output request and returns the validated value with the reported usage', async () => {
    const { url, requests } = await serve([adapter.ok('reply', answer)]);
    const response = await adapter.create(url).generate<unknown, ComposeReplyOutput>(request);
    expect(response).toMatchObject({ value: answer, usage: adapter.usage, provider: adapter.name });
    expect(response.model).toMatch(adapter.name === 'openai' ? /^gpt-4o-mini/ : /^claude-haiku-4-5/);
    expect(requests).toHaveLength(1);
    const { url: path, body, headers } = requests[0]!;
    expect(path).toBe(adapter.path);
    const conversation = [
      { role: 'assistant', content: 'Hello, how can I help?' },
      { role: 'user', content: 'Hi' },
      { role: 'user', content: request.messages!.at(-1)!.content },
    ];
    if (adapter.name === 'openai') {
      expect(headers['authorization']).toBe('Bearer sk-test');
      expect(body).toEqual({
        model: 'gpt-4o-mini',
        messages: [{ role: 'system', content: request.system }, ...conversation],
        response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: composeReplySchema, strict: true } },
        temperature: 0.2,
        max_completion_tokens: 300,
      });
    } else {
      // SDK 1.x sends the key as a bearer token (0.x used x-api-key); either way it must reach the server.
      expect(`${String(headers['x-api-key'] ?? '')} ${String(headers['authorization'] ?? '')}`).toContain('sk-ant-test');
      expect(headers['anthropic-version']).toBeDefined();
      expect(body).toEqual({
        model: 'claude-haiku-4-5',
        max_tokens: 300,
        system: request.system,
        // The messages API wants user-first alternation: the agent's greeting gets an opener, the customer's turns are joined.
        messages: [
          { role: 'user', content: '(conversation start)' },
          { role: 'assistant', content: 'Hello, how can I help?' },
          { role: 'user', content: `Hi\n\n${request.messages!.at(-1)!.content}` },
        ],
        tools: [{ name: 'reply', description: expect.any(String) as unknown, input_schema: composeReplySchema }],
        tool_choice: { type: 'tool', name: 'reply' },
        temperature: 0.2,
      });
    }
  });

  it('retries a 429 after the advertised retry-after, then succeeds', async () => {
    const { url, requests } = await serve([rateLimited, adapter.ok('reply', answer)]);
    const response = await adapter.create(url).generate<unknown, ComposeReplyOutput>(request);
    expect(response.value).toEqual(answer);
    expect(requests).toHaveLength(2);
    // retry-after: 1 → one second; a little slack for timer granularity.
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(980);
    expect(response.latencyMs).toBeGreaterThanOrEqual(980);
  });

  it('reports LLM.RATE_LIMITED with the advertised delay once retries are spent', async () => {
    const { url, requests } = await serve([rateLimited]);
    await expect(adapter.create(url, { maxRetries: 0 }).generate(request)).rejects.toMatchObject({
      code: 'LLM.RATE_LIMITED',
      retryAfterMs: 1000,
      retryable: true,
      provider: adapter.name,
    });
    expect(requests).toHaveLength(1);
  });

  it('fails at once on bad credentials: LLM.AUTHENTICATION after exactly one request', async () => {
    const { url, requests } = await serve([unauthorised, adapter.ok('reply', answer)]);
    const started = performance.now();
    await expect(adapter.create(url).generate(request)).rejects.toMatchObject({
      code: 'LLM.AUTHENTICATION',
      retryable: false,
      provider: adapter.name,
    });
    expect(requests).toHaveLength(1);
    // No backoff was slept (the default first backoff alone is ~400 ms).
    expect(performance.now() - started).toBeLessThan(400);
  });

  it('retries transient server errors, then succeeds', async () => {
    const { url, requests } = await serve([overloaded, adapter.ok('reply', answer)]);
    await expect(adapter.create(url, { fast: true }).generate(request)).resolves.toMatchObject({ value: answer });
    expect(requests).toHaveLength(2);
  });

  it('reports LLM.UNAVAILABLE when the server cannot be reached', async () => {
    const { url } = await serve([]);
    await server!.close();
    server = undefined;
    await expect(adapter.create(url, { maxRetries: 1, fast: true }).generate(request)).rejects.toMatchObject({
      code: 'LLM.UNAVAILABLE',
      retryable: true,
    });
  });

  it('rejects output that violates the schema with LLM.INVALID_OUTPUT naming the path, without retrying', async () => {
    const { url, requests } = await serve([
      adapter.ok('reply', { message: 'hi', cited_guideline_ids: 'refund' }),
      adapter.ok('reply', answer),
    ]);
    await expect(adapter.create(url).generate(request)).rejects.toMatchObject({
      code: 'LLM.INVALID_OUTPUT',
      path: '/cited_guideline_ids',
      message: expect.stringContaining('/cited_guideline_ids') as unknown,
    });
    expect(requests).toHaveLength(1);
  });

  it('is what createLlmProvider builds from the environment, base URL and model included', async () => {
    const { url, requests } = await serve([adapter.ok('reply', answer)]);
    const provider = createLlmProvider(adapter.fromEnv(url));
    expect(provider.name).toBe(adapter.name);
    await provider.generate(request);
    expect(requests[0]!.body['model']).toBe(adapter.fromEnv(url)['TENET_LLM_MODEL']);
  });
});

describe('fallback between providers, over their wire formats', () => {
  const servers: WireServer[] = [];
  const serve = async (respond: Parameters<typeof startWireServer>[0]): Promise<WireServer> => {
    const server = await startWireServer(respond);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('answers from the fallback configured in the environment when the primary rejects the key, after one request to it', async () => {
    const openai = await serve([unauthorised]);
    const anthropic = await serve([anthropicToolUse('reply', answer)]);
    const llm = createLlmProvider({
      TENET_LLM_PROVIDER: 'openai',
      OPENAI_API_KEY: 'sk-revoked',
      OPENAI_BASE_URL: openai.url,
      ANTHROPIC_API_KEY: 'sk-ant',
      ANTHROPIC_BASE_URL: anthropic.url,
      TENET_LLM_FALLBACK_PROVIDER: 'anthropic',
      TENET_LLM_FALLBACK_MODEL: 'claude-sonnet-4-5',
    });
    const response = await llm.generate<unknown, ComposeReplyOutput>(request);
    expect(response).toMatchObject({ value: answer, provider: 'anthropic', fallbackFrom: 'openai/gpt-4o-mini' });
    expect(openai.requests).toHaveLength(1);
    expect(anthropic.requests.map((r) => r.body['model'])).toEqual(['claude-sonnet-4-5']);
  });

  it('answers from the fallback at once when the primary asks us to come back later than worth waiting', async () => {
    const openai = await serve([{ ...rateLimited, headers: { 'retry-after': '120' } }]);
    const anthropic = await serve([anthropicToolUse('reply', answer)]);
    const llm = createLlmProviderFor(
      {
        provider: 'openai',
        model: 'gpt-4.1',
        baseURL: openai.url,
        apiKey: 'sk-agent',
        fallback: { provider: 'anthropic', baseURL: anthropic.url, apiKey: 'sk-ant-agent' },
      },
      {},
    );
    const started = performance.now();
    const response = await llm.generate<unknown, ComposeReplyOutput>(request);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(response).toMatchObject({ provider: 'anthropic', fallbackFrom: 'openai/gpt-4.1' });
    expect(openai.requests[0]!.headers['authorization']).toBe('Bearer sk-agent');
    expect(
      `${String(anthropic.requests[0]!.headers['x-api-key'] ?? '')} ${String(anthropic.requests[0]!.headers['authorization'] ?? '')}`,
    ).toContain('sk-ant-agent');
  });

  it('answers from the fallback when the primary answers out of schema', async () => {
    const anthropic = await serve([anthropicToolUse('reply', { message: 'hi' })]);
    const openai = await serve([openAiCompletion(answer)]);
    const llm = createLlmProviderFor(
      { provider: 'anthropic', baseURL: anthropic.url, apiKey: 'k', fallback: { provider: 'openai', baseURL: openai.url, apiKey: 'k' } },
      {},
    );
    await expect(llm.generate(request)).resolves.toMatchObject({ provider: 'openai', fallbackFrom: 'anthropic/claude-haiku-4-5' });
  });
});
