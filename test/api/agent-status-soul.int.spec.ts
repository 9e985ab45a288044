import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { OpenAiProvider } from '@tenet/llm';
import { openAiCompletion, startWireServer, type RecordedRequest, type WireServer } from '@tenet/llm/testing';
import { gatewayHttp } from './support/gateway-http.js';

const schemaOf = (request: RecordedRequest): string =>
  (request.body['response_format'] as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? '';
const systemOf = (request: RecordedRequest): string =>
  String((request.body['messages'] as { role: string; content: string }[])[0]?.content ?? '');

describe('agent status and soul reach sessions and the model', () => {
  let app: INestApplication;
  let url: string;
  let wire: WireServer;
  let dir: string;
  const { call, created } = gatewayHttp(() => url);

  beforeAll(async () => {
    wire = await startWireServer((request) =>
      schemaOf(request) === 'guideline_matches'
        ? openAiCompletion({ matches: [] })
        : openAiCompletion({ message: 'Hello there.', cited_guideline_ids: [], canned_response_id: '' }),
    );
    dir = mkdtempSync(join(tmpdir(), 'tenet-status-'));
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' },
      { provider: new OpenAiProvider({ apiKey: 'sk-test-soul-000000000000', baseURL: wire.url, maxRetries: 0 }) },
    ));
  });

  afterAll(async () => {
    await app.close();
    await wire.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const turnEnds = async (sessionId: string): Promise<string | undefined> => {
    const posted = (await call(`/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message: 'hi' })).body as {
      offset: number;
      correlation_id: string;
    };
    for (let i = 0; i < 60; i++) {
      const events = (await call(`/sessions/${sessionId}/events?min_offset=${posted.offset + 1}&kinds=status&wait_for_data=5`)).body as {
        correlation_id: string;
        data: { status: string };
      }[];
      const end = events.find((e) => e.correlation_id === posted.correlation_id && ['ready', 'error'].includes(e.data.status));
      if (end) return end.data.status;
    }
    return undefined;
  };

  it("the soul's document, tone, restrictions and forbidden topics are in the instructions of every call", async () => {
    const agent = await created('/agents', {
      name: 'Soulful',
      soul: {
        document: 'You are Ada, patient and kind.',
        tone: 'warm and brief',
        restrictions: ['never promise refunds'],
        forbidden_topics: ['politics'],
      },
    });
    await created('/guidelines', { condition: 'the customer greets', action: 'greet back', tags: [`agent:${agent.id}`] });
    const session = await created('/sessions', { agent_id: agent.id });
    wire.requests.length = 0;
    expect(await turnEnds(session.id)).toBe('ready');
    const match = wire.requests.find((r) => schemaOf(r) === 'guideline_matches');
    const compose = wire.requests.find((r) => schemaOf(r) === 'reply');
    for (const request of [match, compose]) {
      const system = systemOf(request!);
      expect(system).toContain('You are Ada, patient and kind.');
      expect(system).toContain('Tone of voice: warm and brief');
      expect(system).toContain('- never promise refunds');
      expect(system).toMatch(/Forbidden topics[^\n]*\n- politics/);
    }
    expect((await call(`/agents/${agent.id}`)).body).toMatchObject({
      status: 'active',
      soul: { tone: 'warm and brief', restrictions: ['never promise refunds'], forbidden_topics: ['politics'] },
    });
  }, 120_000);

  it('an agent says when it was last changed: updated_at is its creation time until a PATCH moves it', async () => {
    const agent = await created<{ id: string; creation_utc: string; updated_at: string }>('/agents', { name: 'Timestamps' });
    expect(agent.updated_at).toBe(agent.creation_utc);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const patched = (await call(`/agents/${agent.id}`, 'PATCH', { description: 'changed' })).body as {
      creation_utc: string;
      updated_at: string;
    };
    expect(patched.creation_utc).toBe(agent.creation_utc);
    expect(Date.parse(patched.updated_at)).toBeGreaterThan(Date.parse(agent.creation_utc));
    expect(((await call(`/agents/${agent.id}`)).body as { updated_at: string }).updated_at).toBe(patched.updated_at);
  });

  it('an inactive agent accepts no new session (409) but finishes the sessions it has', async () => {
    const agent = await created('/agents', { name: 'Pausing' });
    const existing = await created('/sessions', { agent_id: agent.id });
    expect((await call(`/agents/${agent.id}`, 'PATCH', { status: 'inactive' })).body).toMatchObject({ status: 'inactive' });
    const refused = await call('/sessions', 'POST', { agent_id: agent.id });
    expect(refused.status).toBe(409);
    expect((refused.body as { detail: string }).detail).toMatch(/inactive and accepts no new sessions/);
    expect(await turnEnds(existing.id)).toBe('ready');
    await call(`/agents/${agent.id}`, 'PATCH', { status: 'active' });
    expect((await call('/sessions', 'POST', { agent_id: agent.id })).status).toBe(201);
  }, 120_000);

  it('an archived agent is read-only: no new events in its sessions, no changes but its status', async () => {
    const agent = await created('/agents', { name: 'Old' });
    const session = await created('/sessions', { agent_id: agent.id });
    await call(`/agents/${agent.id}`, 'PATCH', { status: 'archived' });
    expect((await call(`/sessions/${session.id}/events`, 'POST', { kind: 'message', source: 'customer', message: 'hi' })).status).toBe(409);
    expect((await call(`/agents/${agent.id}`, 'PATCH', { name: 'Renamed' })).status).toBe(409);
    expect((await call(`/sessions/${session.id}/events`)).status).toBe(200);
    expect((await call(`/agents/${agent.id}`, 'PATCH', { status: 'inactive' })).body).toMatchObject({ status: 'inactive' });
  });

  it.each([
    [{ status: 'paused' }, ['body', 'status'], /status must be one of active, inactive, archived/],
    [{ soul: { tone: '' } }, ['body', 'soul', 'tone'], /soul.tone must be 1-500 characters/],
    [{ soul: { forbidden_topics: 'politics' } }, ['body', 'soul', 'forbidden_topics'], /array/],
  ])('%j is refused with a 422 naming the field', async (body, loc, msg) => {
    const reply = await call('/agents', 'POST', { name: 'Bad', ...body });
    expect(reply.status).toBe(422);
    expect((reply.body as { detail: { loc: unknown[]; msg: string }[] }).detail).toContainEqual(
      expect.objectContaining({ loc, msg: expect.stringMatching(msg) as unknown }),
    );
  });
});
