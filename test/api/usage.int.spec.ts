import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne as startGateway } from '@tenet/hosts';
import { eventually } from '@tenet/testing';

/** An OpenAI-compatible server on loopback: answers each task in the chat-completions wire format with usage. */
function openAiWireServer(): Promise<{ url: string; reported: { prompt: number; completion: number }[]; server: Server }> {
  const reported: { prompt: number; completion: number }[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      // Chat completions only: anything else (embeddings) is a 404, which the caller degrades from.
      if (req.url !== '/chat/completions' && req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not served here' } }));
        return;
      }
      const body = JSON.parse(raw) as { response_format: { json_schema: { name: string } }; messages: { content: string }[] };
      const task = body.response_format.json_schema.name;
      // The last user message lists the guidelines as `- id: <id>` (matching) or the actions as `- [<id>] …` (reply).
      const prompt = body.messages.at(-1)!.content;
      const ids = (pattern: RegExp): string[] => [...prompt.matchAll(pattern)].map((m) => m[1]!);
      const content =
        task === 'guideline_matches'
          ? {
              matches: ids(/^- id: (\S+)$/gm).map((id) => ({
                guideline_id: id,
                relevance: 0.9,
                confidence: 0.8,
                reasoning: 'the customer asks exactly this',
              })),
            }
          : { message: 'Our refund window is 30 days.', cited_guideline_ids: ids(/^- \[(\S+)\] /gm) };
      const usage = { prompt: 100 + reported.length * 7, completion: 20 + reported.length };
      reported.push(usage);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${reported.length}`,
          object: 'chat.completion',
          created: 1_800_000_000,
          model: 'gpt-4o-mini-2024-07-18',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(content), refusal: null } }],
          usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, reported, server }),
    ),
  );
}

describe('token spend per agent (OpenAI adapter against a local wire-format server)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let wire: Awaited<ReturnType<typeof openAiWireServer>>;
  const saved = { ...process.env };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-usage-'));
    wire = await openAiWireServer();
    Object.assign(process.env, { TENET_LLM_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: wire.url });
    ({ app, url } = await startGateway({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' }));
  });

  afterAll(async () => {
    await app.close();
    process.env = saved;
    await new Promise((resolve) => wire.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as T };
  };

  it('GET /agents/{id}/usage sums exactly the usage the provider reported, priced from the table', async () => {
    const agent = (await call<{ id: string }>('POST', '/agents', { name: 'Support' })).body;
    await call('POST', '/guidelines', {
      condition: 'The customer asks about refunds',
      action: 'Explain the refund policy',
      tags: [`agent:${agent.id}`],
    });
    const session = (await call<{ id: string }>('POST', '/sessions', { agent_id: agent.id })).body;
    const before = new Date().toISOString();
    for (const message of ['I want a refund', 'and another one']) {
      const posted = (
        await call<{ offset: number }>('POST', `/sessions/${session.id}/events`, { kind: 'message', source: 'customer', message })
      ).body;
      let ready = false;
      let offset = posted.offset + 1;
      while (!ready) {
        const events = (
          await call<{ offset: number; data: { status?: string } }[]>(
            'GET',
            `/sessions/${session.id}/events?min_offset=${offset}&kinds=status&wait_for_data=30`,
          )
        ).body;
        ready = events.some((e) => e.data.status === 'ready');
        offset = events.at(-1)!.offset + 1;
      }
    }
    expect(wire.reported).toHaveLength(4); // match + compose, twice
    const input = wire.reported.reduce((a, r) => a + r.prompt, 0);
    const output = wire.reported.reduce((a, r) => a + r.completion, 0);
    // Token records reach metering through the published usage events, a moment after the turn.
    const usage = await eventually(async () => {
      const summary = (
        await call<{
          calls: number;
          input_tokens: number;
          output_tokens: number;
          cost_estimate_usd: number;
          by_model: { model: string }[];
        }>('GET', `/agents/${agent.id}/usage?from=${before}`)
      ).body;
      expect(summary).toMatchObject({ calls: 4, input_tokens: input, output_tokens: output });
      return summary;
    });
    expect(usage.cost_estimate_usd).toBeCloseTo((input * 0.15 + output * 0.6) / 1_000_000, 12);
    expect(usage.by_model.map((m) => m.model)).toEqual(['gpt-4o-mini-2024-07-18']);
    // Outside the window there is nothing; a bad timestamp is a 422 naming the parameter; unknown agents 404.
    expect((await call<{ calls: number }>('GET', `/agents/${agent.id}/usage?to=${before}`)).body.calls).toBe(0);
    expect((await call('GET', `/agents/${agent.id}/usage?from=yesterday`)).status).toBe(422);
    expect((await call('GET', '/agents/nope/usage')).status).toBe(404);
  });
});
