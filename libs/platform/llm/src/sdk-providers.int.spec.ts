import { AnthropicProvider } from './anthropic/anthropic-provider.js';
import type { LlmProvider, LlmRequest } from './llm.port.js';
import { OpenAiProvider } from './openai/openai-provider.js';
import { composeReplySchema, type ComposeReplyOutput } from './tasks.js';
import { startWireServer, type WireReply } from './testing-wire-server.js';

const request: LlmRequest = {
  task: { kind: 'compose_reply', input: {} },
  system: 'You are Support.',
  prompt: 'The customer wants a refund.',
  schemaName: 'reply',
  schema: composeReplySchema as unknown as Record<string, unknown>,
  temperature: 0.2,
  context: { purpose: 'compose_reply' },
};
const answer: ComposeReplyOutput = { message: 'Our refund window is 30 days.', cited_guideline_ids: ['g1'] };

const openAiCompletion = (content: unknown): WireReply => ({
  status: 200,
  body: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_800_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(content), refusal: null } }],
    usage: { prompt_tokens: 123, completion_tokens: 45, total_tokens: 168 },
  },
});
const anthropicMessage = (input: unknown): WireReply => ({
  status: 200,
  body: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'reply', input }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 210, output_tokens: 33 },
  },
});
const rateLimited: WireReply = { status: 429, headers: { 'retry-after': '1' }, body: { error: { type: 'rate_limit_error', message: 'slow down' } } };
const unauthorised: WireReply = { status: 401, body: { error: { type: 'authentication_error', message: 'invalid x-api-key' } } };

const providers: [string, (baseURL: string) => LlmProvider, (value: unknown) => WireReply, number, number][] = [
  ['OpenAI', (baseURL) => new OpenAiProvider({ apiKey: 'sk-test', baseURL }), openAiCompletion, 123, 45],
  ['Anthropic', (baseURL) => new AnthropicProvider({ apiKey: 'sk-ant-test', baseURL }), anthropicMessage, 210, 33],
];

describe.each(providers)('%s provider against a local server speaking its wire format', (name, create, ok, inputTokens, outputTokens) => {
  it('sends the structured-output request and returns the validated value with the reported usage', async () => {
    const server = await startWireServer([ok(answer)]);
    try {
      const response = await create(server.url).generate<unknown, ComposeReplyOutput>(request);
      expect(response.value).toEqual(answer);
      expect(response.usage).toEqual({ inputTokens, outputTokens });
      expect(server.requests).toHaveLength(1);
      const body = server.requests[0]!.body;
      if (name === 'OpenAI') {
        expect(server.requests[0]!.url).toBe('/chat/completions');
        expect(body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2, response_format: { type: 'json_schema', json_schema: { name: 'reply', strict: true, schema: composeReplySchema } } });
        expect(body['messages']).toEqual([
          { role: 'system', content: 'You are Support.' },
          { role: 'user', content: 'The customer wants a refund.' },
        ]);
      } else {
        expect(server.requests[0]!.url).toBe('/v1/messages');
        expect(body).toMatchObject({ system: 'You are Support.', tool_choice: { type: 'tool', name: 'reply' }, tools: [{ name: 'reply', input_schema: composeReplySchema }] });
      }
    } finally {
      await server.close();
    }
  });

  it('retries a 429 after the advertised retry-after, then succeeds', async () => {
    const server = await startWireServer([rateLimited, ok(answer)]);
    try {
      const response = await create(server.url).generate<unknown, ComposeReplyOutput>(request);
      expect(response.value).toEqual(answer);
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(900);
    } finally {
      await server.close();
    }
  });

  it('fails fast on bad credentials: LLM.AUTHENTICATION after exactly one request', async () => {
    const server = await startWireServer([unauthorised, ok(answer)]);
    try {
      await expect(create(server.url).generate(request)).rejects.toMatchObject({ code: 'LLM.AUTHENTICATION' });
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('rejects output that violates the schema, naming the path', async () => {
    const server = await startWireServer([ok({ message: 'hi', cited_guideline_ids: 'g1' })]);
    try {
      await expect(create(server.url).generate(request)).rejects.toMatchObject({ code: 'LLM.INVALID_OUTPUT', message: expect.stringContaining('/cited_guideline_ids') as unknown });
    } finally {
      await server.close();
    }
  });
});
