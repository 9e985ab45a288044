import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { ScriptedProvider } from '@tenet/llm/testing';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { generateSecretsKey, SecretBox, secretBoxFromEnv } from '@tenet/secrets';
import { outboundPolicyFromEnv, ToolServices } from '@tenet/tools-service';

const API_KEY = 'pk-live-0123456789abcdef-SECRET';
const ROTATED_KEY = 'pk-live-fedcba9876543210-ROTATED';

/** A Petstore-like API that wants its `api_key` header (and echoes it back, as careless APIs do); an OAuth2 token endpoint and an API behind it. */
async function petstore(): Promise<{
  url: string;
  hostPort: string;
  state: { key: string; tokenFetches: number; token: string; expiresIn: number };
  close(): Promise<void>;
}> {
  const state = { key: API_KEY, tokenFetches: 0, token: '', expiresIn: 3600 };
  const document = {
    openapi: '3.0.3',
    info: { title: 'Petstore with a key', version: '1' },
    components: { securitySchemes: { api_key: { type: 'apiKey', name: 'api_key', in: 'header' } } },
    security: [{ api_key: [] }],
    paths: {
      '/pet/{petId}': {
        get: { operationId: 'getPetById', parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }] },
      },
    },
  };
  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/openapi.json') return send(res, 200, document);
    if (url.pathname === '/oauth/token' && req.method === 'POST') {
      state.tokenFetches++;
      state.token = `token-${state.tokenFetches}-${Math.random().toString(36).slice(2)}`;
      return send(res, 200, { access_token: state.token, token_type: 'Bearer', expires_in: state.expiresIn });
    }
    const pet = /^\/pet\/(\d+)$/.exec(url.pathname);
    if (pet) {
      const bearer = req.headers.authorization === `Bearer ${state.token}` && state.token !== '';
      if (req.headers['api_key'] !== state.key && !bearer) return send(res, 401, { message: 'missing or wrong api_key' });
      return send(res, 200, {
        id: Number(pet[1]),
        name: 'Rex',
        status: 'available',
        received_key: req.headers['api_key'] ?? req.headers.authorization,
      });
    }
    send(res, 404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, hostPort: new URL(base).host, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * Credentials for tool services (ADR 0022), set with `auth` on PUT /services/{name}, sealed with
 * TENET_SECRETS_KEY, write-only, applied by the executor, redacted from whatever echoes them; OAuth2 tokens are
 * fetched once, cached, refreshed on 401 and on expiry.
 */
describe('tool-service credentials (embedded, scripted model)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let api: Awaited<ReturnType<typeof petstore>>;
  const saved = process.env['TENET_SECRETS_KEY'];
  const provider = new ScriptedProvider();

  const call = async (path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: unknown; text: string }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined, text };
  };

  async function turn(sessionId: string): Promise<{ kind: string; source: string; data: Record<string, unknown> }[]> {
    const posted = (
      await call(`/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message: 'Tell me about pet 7' })
    ).body as { offset: number; correlation_id: string };
    let events: { offset: number; kind: string; source: string; correlation_id: string; data: Record<string, unknown> }[] = [];
    for (let offset = posted.offset + 1; ;) {
      const next = (await call(`/sessions/${sessionId}/events?min_offset=${offset}&wait_for_data=30`)).body as typeof events;
      events = [...events, ...next];
      if (events.some((e) => e.kind === 'status' && (e.data['status'] === 'ready' || e.data['status'] === 'error')))
        return events.filter((e) => e.correlation_id === posted.correlation_id);
      offset = (events.at(-1)?.offset ?? offset - 1) + 1;
    }
  }

  beforeAll(async () => {
    process.env['TENET_SECRETS_KEY'] = generateSecretsKey();
    dir = mkdtempSync(join(tmpdir(), 'tenet-tool-credentials-'));
    api = await petstore();
    provider.answerAlways<{ guidelines: { id: string; tools?: { name: string }[] }[] }>('match_guidelines', (request) => ({
      matches: request.task.input.guidelines.map((g) => ({
        guideline_id: g.id,
        relevance: 1,
        confidence: 1,
        reasoning: 'scripted',
        tool_arguments: (g.tools ?? []).map((t) => ({ tool_name: t.name, arguments_json: '{"petId":7}' })),
      })),
    }));
    provider.answerAlways<{ tool_results?: { data?: unknown; error?: string }[] }>('compose_reply', (request) => ({
      message: `Result: ${JSON.stringify((request.task.input.tool_results ?? []).map((r) => r.data ?? r.error))}`,
      cited_guideline_ids: [],
      canned_response_id: '',
      cited_chunk_ids: [],
    }));
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' },
      { provider, toolAllowedHosts: [api.hostPort] },
    ));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await api?.close();
    if (saved === undefined) delete process.env['TENET_SECRETS_KEY'];
    else process.env['TENET_SECRETS_KEY'] = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  const register = (name: string, auth?: unknown) =>
    call(`/services/${name}`, 'PUT', {
      kind: 'openapi',
      openapi: { url: api.url, source: `${api.url}/openapi.json` },
      ...(auth === undefined ? {} : { auth }),
    });

  async function petTurn(service: string) {
    const agent = (await call('/agents', 'POST', { name: `${service} agent` })).body as { id: string };
    expect(
      (
        await call('/guidelines', 'POST', {
          condition: 'The customer asks about a pet',
          action: 'Look the pet up',
          tools: [`${service}:getPetById`],
          tags: [`agent:${agent.id}`],
        })
      ).status,
    ).toBe(201);
    return turn(((await call('/sessions', 'POST', { agent_id: agent.id })).body as { id: string }).id);
  }

  it('the API answers 200 through a turn with the credential set, 401 without; the secret is in no read, event or result', async () => {
    const put = await register('pets', { scheme: 'api_key', in: 'header', name: 'api_key', value: API_KEY });
    expect(put.status).toBe(200);
    expect((put.body as { auth: unknown }).auth).toEqual({ scheme: 'api_key', secret_hint: '…CRET' });
    expect((await register('pets-open')).status).toBe(200);

    const withKey = await petTurn('pets');
    const tool = withKey.find((e) => e.kind === 'tool')?.data['tool_calls'] as {
      result: { data: { name?: string; received_key?: string } };
    }[];
    expect(tool[0]?.result.data).toMatchObject({ name: 'Rex', received_key: '[REDACTED]' });
    expect(withKey.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data['message']).toContain('Rex');

    const withoutKey = await petTurn('pets-open');
    const failed = withoutKey.find((e) => e.kind === 'status' && e.data['status'] === 'ready')?.data['data'] as
      { tool_calls?: { status: string; error?: { message: string } }[] } | undefined;
    const lastStatus = withoutKey.filter((e) => e.kind === 'status').at(-1)?.data;
    expect(JSON.stringify(failed?.tool_calls ?? lastStatus)).toMatch(/HTTP 401/);

    // Nowhere to be read: the API, the stored events (sealed at rest), the session's events.
    const reads = [(await call('/services')).text, (await call('/services/pets')).text];
    const store = app.get<EventStore>(EVENT_STORE);
    const stored = JSON.stringify(await store.readAll({ afterPosition: 0, limit: 100_000 }));
    for (const text of [...reads, stored, JSON.stringify(withKey)]) expect(text).not.toContain(API_KEY);
    expect(stored).toContain('tsb1.');
  }, 120_000);

  it('rotation: a PUT with the new key replaces the old one; calls use the new key from then on', async () => {
    expect((await register('rotating', { scheme: 'api_key', in: 'header', name: 'api_key', value: API_KEY })).status).toBe(200);
    api.state.key = ROTATED_KEY;
    expect((await register('rotating', { scheme: 'api_key', in: 'header', name: 'api_key', value: ROTATED_KEY })).body).toMatchObject({
      auth: { scheme: 'api_key', secret_hint: '…ATED' },
    });
    const events = await petTurn('rotating');
    expect(JSON.stringify(events)).toContain('"name":"Rex"');
    expect(JSON.stringify(events)).not.toContain(ROTATED_KEY);
    api.state.key = API_KEY;
  }, 120_000);

  it('credentials that break a rule are a 422 naming the field; without TENET_SECRETS_KEY nothing is stored (503 naming it)', async () => {
    const bad = await register('bad-auth', { scheme: 'api_key', in: 'body', name: 'api_key', value: '' });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toMatch(/"loc":\["body","auth","in"\]/);
    expect(JSON.stringify(bad.body)).toMatch(/"loc":\["body","auth","value"\]/);
    const key = process.env['TENET_SECRETS_KEY'];
    delete process.env['TENET_SECRETS_KEY'];
    try {
      const refused = await register('no-key', { scheme: 'bearer', token: 'a-bearer-token-that-is-long' });
      expect(refused.status).toBe(503);
      expect(refused.text).toContain('TENET_SECRETS_KEY');
      expect((await call('/services/no-key')).status).toBe(404);
    } finally {
      process.env['TENET_SECRETS_KEY'] = key;
    }
  });
});

describe('OAuth2 client credentials in the executor', () => {
  it('fetches the token once, caches it, and fetches again on a 401 and after expiry', async () => {
    const api = await petstore();
    const box = new SecretBox(Buffer.from(generateSecretsKey(), 'hex'));
    const services = new ToolServices(outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: api.hostPort }), { secrets: box });
    const credentials = {
      scheme: 'oauth2_client_credentials',
      token_url: `${api.url}/oauth/token`,
      client_id: 'tenet',
      client_secret: 'client-secret-value-123',
    };
    const service = {
      name: 'oauth-pets',
      kind: 'openapi' as const,
      url: api.url,
      source: `${api.url}/openapi.json`,
      auth: {
        scheme: credentials.scheme,
        sealed: box.seal(JSON.stringify(credentials), 'tool-service:oauth-pets'),
        owner: 'tool-service:oauth-pets',
      },
    };
    const context = { agent_id: 'a', session_id: 's', customer_id: 'c' };
    const get = (key: string) => services.call(service, 'getPetById', { petId: 7 }, { idempotencyKey: key, timeoutMs: 10_000, context });
    try {
      for (const key of ['k1', 'k2', 'k3']) expect((await get(key)).data).toMatchObject({ name: 'Rex', received_key: 'Bearer [REDACTED]' });
      expect(api.state.tokenFetches).toBe(1);

      api.state.token = 'revoked-by-the-server';
      expect((await get('k4')).data).toMatchObject({ name: 'Rex' });
      expect(api.state.tokenFetches).toBe(2);

      // A token that expires within the safety margin is fetched again on the next call.
      api.state.expiresIn = 30;
      api.state.token = 'revoked-again';
      await get('k5');
      expect(api.state.tokenFetches).toBe(3);
      await get('k6');
      expect(api.state.tokenFetches).toBe(4);
    } finally {
      await services.close();
      await api.close();
    }
    expect(secretBoxFromEnv({})).toBeUndefined();
  });
});

describe('a gateway holding sealed credentials', () => {
  it('refuses to start without TENET_SECRETS_KEY, naming the variable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-tool-credentials-start-'));
    const api = await petstore();
    const saved = process.env['TENET_SECRETS_KEY'];
    const env = { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' };
    try {
      process.env['TENET_SECRETS_KEY'] = generateSecretsKey();
      const first = await startAllInOne(env, { toolAllowedHosts: [api.hostPort] });
      const put = await fetch(`${first.url}/services/pets`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          kind: 'openapi',
          openapi: { url: api.url, source: `${api.url}/openapi.json` },
          auth: { scheme: 'bearer', token: 'a-bearer-token-0123456789' },
        }),
      });
      expect(put.status).toBe(200);
      await first.app.close();
      delete process.env['TENET_SECRETS_KEY'];
      await expect(startAllInOne(env, { toolAllowedHosts: [api.hostPort] })).rejects.toThrow(
        /TENET_SECRETS_KEY is not set, but tool services pets have stored credentials/,
      );
    } finally {
      if (saved === undefined) delete process.env['TENET_SECRETS_KEY'];
      else process.env['TENET_SECRETS_KEY'] = saved;
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
