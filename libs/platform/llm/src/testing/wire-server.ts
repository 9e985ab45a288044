import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** performance.now() when the request arrived. */
  at: number;
}

export interface WireReply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export interface WireServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP server answering in a provider's wire format and recording every request: how the official
 * SDK clients are exercised end to end (serialisation, headers, status handling) without network access.
 * Exported from `@tenet/llm/testing` for specs and Tenet's own process tests.
 */
export async function startWireServer(
  respond: WireReply[] | ((request: RecordedRequest) => WireReply | Promise<WireReply>),
): Promise<WireServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
        at: performance.now(),
      };
      requests.push(recorded);
      // A function may answer late or never (a hanging provider): the reply is awaited.
      const reply =
        typeof respond === 'function'
          ? await respond(recorded)
          : (respond[requests.length - 1] ?? {
              status: 500,
              headers: { 'x-should-retry': 'false' },
              body: { error: { message: `the wire script has only ${respond.length} replies` } },
            });
      if (res.destroyed) return; // the client gave up (aborted) while the reply was pending
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the wire server has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Keep-alive sockets of the SDKs' fetch would otherwise hold close() open.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** An OpenAI chat completion whose message content is the JSON of `value`. */
export const openAiCompletion = (value: unknown, usage = { prompt_tokens: 123, completion_tokens: 45 }): WireReply => ({
  status: 200,
  body: {
    id: 'chatcmpl-tenet-1',
    object: 'chat.completion',
    created: 1_800_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [
      { index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: JSON.stringify(value), refusal: null } },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  },
});

/** An Anthropic message whose only content block is a call of tool `name` with `input`. */
export const anthropicToolUse = (name: string, input: unknown, usage = { input_tokens: 210, output_tokens: 33 }): WireReply => ({
  status: 200,
  body: {
    id: 'msg_tenet_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5-20251001',
    content: [{ type: 'tool_use', id: 'toolu_tenet_1', name, input }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage,
  },
});

/**
 * An OpenAI embeddings answer to a recorded `/embeddings` request: one vector per input from `vectorOf`, encoded
 * as the request asked (the SDK asks for base64 little-endian float32 unless told otherwise), with usage.
 */
export function openAiEmbeddings(
  request: RecordedRequest,
  vectorOf: (text: string) => number[],
  options: { model?: string; promptTokens?: (texts: string[]) => number } = {},
): WireReply {
  const input = request.body['input'];
  const texts = Array.isArray(input) ? input.map(String) : [String(input)];
  const base64 = request.body['encoding_format'] === 'base64';
  const promptTokens = options.promptTokens?.(texts) ?? texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  return {
    status: 200,
    body: {
      object: 'list',
      model: options.model ?? String(request.body['model']),
      data: texts.map((text, index) => {
        const vector = vectorOf(text);
        return { object: 'embedding', index, embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector };
      }),
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    },
  };
}
