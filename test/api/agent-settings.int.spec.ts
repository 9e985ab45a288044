import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { OpenAiProvider } from '@tenet/llm';
import { openAiCompletion, startWireServer, type RecordedRequest, type WireServer } from '@tenet/llm/testing';
import { gatewayHttp } from './support/gateway-http.js';

const API_KEY = 'sk-tenet-test-0123456789abcdefXYZ';

interface StatusEvent {
  offset: number;
  kind: string;
  /** Parlant's status data: the status, and its details under `data`. */
  data: { status?: string; data?: { code?: string; exception?: string } };
}

/** What the model was asked to produce: the structured-output name of an OpenAI chat completion request. */
const schemaOf = (request: RecordedRequest): string =>
  (request.body['response_format'] as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? '';
const systemOf = (request: RecordedRequest): string =>
  String((request.body['messages'] as { role: string; content: string }[])[0]?.content ?? '');
const conversationLength = (request: RecordedRequest): number =>
  (request.body['messages'] as { role: string }[]).filter((m) => m.role !== 'system' && m.role !== 'developer').length;

/** An app whose matcher talks to an OpenAI-wire stand-in through the official SDK, as it would to OpenAI. */
async function startWithWire(
  respond: (request: RecordedRequest) => ReturnType<typeof openAiCompletion>,
): Promise<{ app: INestApplication; url: string; wire: WireServer; dir: string }> {
  const wire = await startWireServer(respond);
  const dir = mkdtempSync(join(tmpdir(), 'tenet-settings-'));
  const provider = new OpenAiProvider({ apiKey: API_KEY, baseURL: wire.url, maxRetries: 0 });
  const { app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' }, { provider });
  return { app, url, wire, dir };
}

/** Posts a customer message and returns the turn's final status event (ready or error). */
async function turn(url: string, sessionId: string, message: string): Promise<StatusEvent> {
  const { call } = gatewayHttp(() => url);
  const posted = (await call(`/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message })).body as {
    offset: number;
  };
  for (let from = posted.offset + 1; ;) {
    const events = (await call(`/sessions/${sessionId}/events?min_offset=${from}&kinds=status&wait_for_data=60`)).body as StatusEvent[];
    const last = events.find((e) => e.data.status === 'ready' || e.data.status === 'error');
    if (last) return last;
    from = (events.at(-1)?.offset ?? from - 1) + 1;
  }
}

describe("item 15: the agent's settings reach the model", () => {
  let started: Awaited<ReturnType<typeof startWithWire>>;
  const { call, created } = gatewayHttp(() => started.url);

  beforeAll(async () => {
    started = await startWithWire((request) =>
      schemaOf(request) === 'guideline_matches'
        ? openAiCompletion({ matches: [] })
        : openAiCompletion({ message: 'Arr, how can I help?', cited_guideline_ids: [], canned_response_id: '' }),
    );
  });

  afterAll(async () => {
    await started.app.close();
    await started.wire.close();
    rmSync(started.dir, { recursive: true, force: true });
  });

  it('system_prompt reaches both calls; temperature and max_tokens reach the reply; max_history_length above 20 is honoured', async () => {
    const agent = await created('/agents', {
      name: 'Pirate',
      system_prompt: 'Always answer like a pirate.',
      config: { temperature: 1.1, max_tokens: 321, max_history_length: 30 },
    });
    await created('/guidelines', { condition: 'the customer greets', action: 'greet back', tags: [`agent:${agent.id}`] });
    const session = await created('/sessions', { agent_id: agent.id });
    for (let i = 0; i < 25; i++)
      await created(`/sessions/${session.id}/events`, { kind: 'message', source: 'human_agent', message: `earlier ${i}` });
    started.wire.requests.length = 0;

    expect((await turn(started.url, session.id, 'hello')).data.status).toBe('ready');
    const match = started.wire.requests.find((r) => schemaOf(r) === 'guideline_matches');
    const compose = started.wire.requests.find((r) => schemaOf(r) === 'reply');
    expect(systemOf(match!)).toContain('Always answer like a pirate.');
    expect(systemOf(compose!)).toContain('Always answer like a pirate.');
    expect(compose!.body).toMatchObject({ temperature: 1.1, max_completion_tokens: 321 });
    // 25 earlier messages and the new one: all within max_history_length 30 (main capped the history at 20).
    expect(conversationLength(compose!)).toBe(26);
  }, 120_000);

  it("the session's max_messages narrows the history a turn reads", async () => {
    const agent = await created('/agents', { name: 'Short memory', config: { max_history_length: 1000 } });
    const session = await created('/sessions', { agent_id: agent.id, config: { max_messages: 10 } });
    for (let i = 0; i < 15; i++)
      await created(`/sessions/${session.id}/events`, { kind: 'message', source: 'human_agent', message: `earlier ${i}` });
    started.wire.requests.length = 0;
    expect((await turn(started.url, session.id, 'hello')).data.status).toBe('ready');
    expect(conversationLength(started.wire.requests.find((r) => schemaOf(r) === 'reply')!)).toBe(11);
  }, 120_000);

  it("takes the settings that were once refused: a session's auto_extract and a required variable", async () => {
    const agent = await created<{ id: string }>('/agents', { name: 'Any' });
    expect((await call('/sessions', 'POST', { agent_id: agent.id, config: { auto_extract: true } })).body).toMatchObject({
      config: { auto_extract: true },
    });
    expect((await call('/context-variables', 'POST', { name: 'needed', required: true })).body).toMatchObject({ required: true });
  });

  it('the OpenAPI description says so', async () => {
    const schemas = (
      (await call('/openapi.json')).body as {
        components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
      }
    ).components.schemas;
    expect(schemas['AgentConfigDto']?.properties['auto_extract_context']?.description).toMatch(/ONE LLM call/);
    expect(schemas['SessionConfigDto']?.properties['auto_extract']?.description).toMatch(/null \(the default\) lets the agent decide/);
    expect(schemas['SessionConfigDto']?.properties['max_messages']?.description).toMatch(/max_history_length/);
    expect(schemas['ContextVariableCreationDto']?.properties['required']?.description).toMatch(/missing_context/);
  });
});

describe('item 13: leaks', () => {
  let started: Awaited<ReturnType<typeof startWithWire>>;
  const { call, created } = gatewayHttp(() => started.url);

  beforeAll(async () => {
    // A misbehaving proxy: fails every call and echoes the request's Authorization header in its error text.
    started = await startWithWire((request) => ({
      status: 500,
      headers: { 'x-should-retry': 'false' },
      body: {
        error: { message: `upstream failed; you sent authorization: ${String(request.headers['authorization'])}`, type: 'server_error' },
      },
    }));
  });

  afterAll(async () => {
    await started.app.close();
    await started.wire.close();
    rmSync(started.dir, { recursive: true, force: true });
  });

  it("a failed turn's error event carries a stable code and a generic message, never the provider's text", async () => {
    const agent = await created('/agents', { name: 'Leaky' });
    await created('/guidelines', { condition: 'the customer greets', action: 'greet back', tags: [`agent:${agent.id}`] });
    const session = await created('/sessions', { agent_id: agent.id });
    const failed = await turn(started.url, session.id, 'hello');
    expect(failed.data).toEqual({
      status: 'error',
      data: { code: 'LLM.UNAVAILABLE', exception: expect.stringMatching(/not available/) as unknown },
    });
    const events = (await call(`/sessions/${session.id}/events`)).body as { kind: string; source: string; data: Record<string, unknown> }[];
    // The customer is told, in the agent's failure reply, that the provider is down; the error status keeps the code.
    expect(events.filter((e) => e.kind === 'message' && e.source === 'ai_agent').map((e) => e.data['error_type'])).toEqual([
      'provider_unavailable',
    ]);
    const everything = JSON.stringify(events);
    expect(started.wire.requests.length).toBeGreaterThan(0);
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain('upstream failed');
  }, 120_000);

  it("the provider's error, as operators' logs and RPC replies carry it, has the key redacted", async () => {
    const provider = new OpenAiProvider({ apiKey: API_KEY, baseURL: started.wire.url, maxRetries: 0 });
    const failure = provider.generate({
      task: { kind: 'x', input: {} },
      system: 's',
      prompt: 'p',
      schemaName: 'x',
      schema: { type: 'object' },
      context: { purpose: 'test' },
    });
    await expect(failure).rejects.toThrow(/upstream failed; you sent authorization: \[REDACTED\]/);
    await expect(failure).rejects.not.toThrow(API_KEY);
  });

  it('/healthz names no file path; no response says X-Powered-By', async () => {
    const health = await fetch(`${started.url}/healthz`);
    expect(await health.text()).not.toContain(started.dir);
    expect(health.headers.get('x-powered-by')).toBeNull();
    expect((await fetch(`${started.url}/agents`)).headers.get('x-powered-by')).toBeNull();
  });
});
