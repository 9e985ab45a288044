import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';

const ADMIN_KEY = 'bootstrap-admin-key-for-the-bulk-routes-test-0123456789';

interface Reply {
  status: number;
  body: unknown;
}

/**
 * Issue 26 items 2 and 11: bulk and filter-driven routes touch only the caller's workspace, and a reference to
 * another workspace's resource is refused exactly like an unknown id (no existence oracle).
 */
describe('workspaces: bulk routes and references (auth on, embedded)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  const ws = { acme: { key: '', agent: '' }, globex: { key: '', agent: '' } };

  const call = async (method: string, path: string, key: string, body?: unknown): Promise<Reply> => {
    const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
  const idOf = (reply: Reply): string => {
    expect(reply.status).toBe(201);
    return (reply.body as { id: string }).id;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-bulk-routes-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline', TENET_AUTH: 'on', TENET_ADMIN_KEY: ADMIN_KEY, TENET_RATE_LIMIT_PER_KEY: '0' }));
    for (const name of ['acme', 'globex'] as const) {
      ws[name].key = ((await call('POST', '/keys', ADMIN_KEY, { name: `${name} admin`, role: 'admin', workspace_id: name })).body as { key: string }).key;
      ws[name].agent = idOf(await call('POST', '/agents', ws[name].key, { name: `${name} agent` }));
    }
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('bulk routes (item 2)', () => {
    it("DELETE /context-variables deletes the caller's variables only, with or without a tag filter", async () => {
      const tag = idOf(await call('POST', '/tags', ws.acme.key, { name: 'vip' }));
      const acmeTagged = idOf(await call('POST', '/context-variables', ws.acme.key, { name: 'plan', description: 'the plan', tags: [tag] }));
      const acmePlain = idOf(await call('POST', '/context-variables', ws.acme.key, { name: 'region', description: 'the region' }));
      const globexOwn = idOf(await call('POST', '/context-variables', ws.globex.key, { name: 'tier', description: 'the tier' }));

      // Another workspace's bulk delete, filtered by acme's tag or not at all: acme keeps both variables.
      expect((await call('DELETE', `/context-variables?tag_id=${tag}`, ws.globex.key)).status).toBe(204);
      expect((await call('DELETE', '/context-variables', ws.globex.key)).status).toBe(204);
      expect((await call('GET', `/context-variables/${acmeTagged}`, ws.acme.key)).status).toBe(200);
      expect((await call('GET', `/context-variables/${acmePlain}`, ws.acme.key)).status).toBe(200);
      expect((await call('GET', `/context-variables/${globexOwn}`, ws.globex.key)).status).toBe(404);
      // The default workspace's admin is no exception.
      expect((await call('DELETE', '/context-variables', ADMIN_KEY)).status).toBe(204);
      expect((await call('GET', `/context-variables/${acmePlain}`, ws.acme.key)).status).toBe(200);

      // Its own bulk delete still works, filter included.
      expect((await call('DELETE', `/context-variables?tag_id=${tag}`, ws.acme.key)).status).toBe(204);
      expect((await call('GET', `/context-variables/${acmeTagged}`, ws.acme.key)).status).toBe(404);
      expect((await call('GET', `/context-variables/${acmePlain}`, ws.acme.key)).status).toBe(200);
    });

    it("DELETE /sessions?customer_id=guest deletes the caller's guest sessions only", async () => {
      const acmeSession = idOf(await call('POST', '/sessions', ws.acme.key, { agent_id: ws.acme.agent }));
      const defaultAgent = idOf(await call('POST', '/agents', ADMIN_KEY, { name: 'default agent' }));
      const defaultSession = idOf(await call('POST', '/sessions', ADMIN_KEY, { agent_id: defaultAgent }));
      expect(((await call('GET', `/sessions/${acmeSession}`, ws.acme.key)).body as { customer_id: string }).customer_id).toBe('guest');
      expect((await call('DELETE', '/sessions?customer_id=guest', ADMIN_KEY)).status).toBe(204);
      expect((await call('GET', `/sessions/${defaultSession}`, ADMIN_KEY)).status).toBe(404);
      expect((await call('GET', `/sessions/${acmeSession}`, ws.acme.key)).status).toBe(200);
    });
  });
});
