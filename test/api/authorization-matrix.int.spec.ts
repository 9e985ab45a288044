import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { CALLERS, expectedFor, renderSecurityDoc, routesOf, type CallerName, type Route } from './support/security-matrix.js';

const ADMIN_KEY = 'bootstrap-admin-key-for-the-matrix-test-0123456789';

describe('authorization matrix: every route × (no key, each role, session token, another workspace)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let routes: Route[];
  const keys = {} as Record<CallerName, string | undefined>;
  let sessionId: string;

  const request = async (
    method: string,
    path: string,
    key: string | undefined,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // HTML (docs) or empty
    }
    return { status: response.status, body: parsed };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-matrix-'));
    ({ app, url } = await startAllInOne({
      TENET_MODE: 'embedded',
      TENET_DATA_DIR: dir,
      TENET_DEMO: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_AUTH: 'on',
      TENET_ADMIN_KEY: ADMIN_KEY,
      TENET_RATE_LIMIT_PER_KEY: '0',
    }));
    routes = routesOf(app);
    const mint = async (by: string, body: unknown): Promise<string> => {
      const reply = await request('POST', '/keys', by, body);
      expect(reply.status).toBe(201);
      return (reply.body as { key: string }).key;
    };
    keys.admin = await mint(ADMIN_KEY, { name: 'w1 admin', role: 'admin', workspace_id: 'w1' });
    keys['agent-runtime'] = await mint(keys.admin, { name: 'w1 runtime', role: 'agent-runtime' });
    keys['read-only'] = await mint(keys.admin, { name: 'w1 reader', role: 'read-only' });
    keys['other workspace (admin)'] = await mint(ADMIN_KEY, { name: 'w2 admin', role: 'admin', workspace_id: 'w2' });
    const agent = (await request('POST', '/agents', keys.admin, { name: 'Matrix' })).body as { id: string };
    sessionId = ((await request('POST', '/sessions', keys.admin, { agent_id: agent.id })).body as { id: string }).id;
    keys['session token'] = ((await request('POST', `/sessions/${sessionId}/tokens`, keys.admin, {})).body as { token: string }).token;
    keys['no key'] = undefined;
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('docs/security.md is the rendering of the routes and the access policy (run `npm run security:docs`)', () => {
    expect(readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8')).toBe(renderSecurityDoc(routes));
    expect(routes.length).toBeGreaterThan(80);
  });

  it('every route answers every caller as the matrix says', async () => {
    const mismatches: string[] = [];
    for (const route of routes) {
      for (const caller of CALLERS) {
        // The session token's own session where a route names one (nothing destructive: DELETE gets an unknown id);
        // every other id is unknown, so an authorized request ends in its handler or the workspace check (404/422).
        const path = route.path.replace(/:(\w+)/g, (_m, name: string) =>
          name === 'sessionId' && route.method !== 'DELETE' ? sessionId : `nope${name}`,
        );
        const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? {} : undefined;
        const { status } = await request(route.method, path, keys[caller], body);
        const expected = expectedFor(route, caller);
        const ok = expected === 'allowed' ? status !== 401 && status !== 403 : String(status) === expected;
        if (!ok) mismatches.push(`${route.method} ${route.path} as ${caller}: expected ${expected}, got ${status}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
