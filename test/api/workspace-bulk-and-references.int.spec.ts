import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { keyedHttp, type Reply } from './support/gateway-http.js';

const ADMIN_KEY = 'bootstrap-admin-key-for-the-bulk-routes-test-0123456789';

/**
 * docs/reliability.md#bad-input-bulk-routes-and-references-across-workspaces: bulk and filter-driven routes touch only the caller's workspace, and a reference to
 * another workspace's resource is refused exactly like an unknown id (no existence oracle).
 */
describe('workspaces: bulk routes and references (auth on, embedded)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  const ws = { acme: { key: '', agent: '' }, globex: { key: '', agent: '' } };

  const call = keyedHttp(() => url);
  const idOf = (reply: Reply): string => {
    expect(reply.status).toBe(201);
    return (reply.body as { id: string }).id;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-bulk-routes-'));
    ({ app, url } = await startAllInOne({
      TENET_MODE: 'embedded',
      TENET_DATA_DIR: dir,
      TENET_DEMO: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_AUTH: 'on',
      TENET_ADMIN_KEY: ADMIN_KEY,
      TENET_RATE_LIMIT_PER_KEY: '0',
    }));
    for (const name of ['acme', 'globex'] as const) {
      ws[name].key = (
        (await call('POST', '/keys', ADMIN_KEY, { name: `${name} admin`, role: 'admin', workspace_id: name })).body as { key: string }
      ).key;
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
      const acmeTagged = idOf(
        await call('POST', '/context-variables', ws.acme.key, { name: 'plan', description: 'the plan', tags: [tag] }),
      );
      const acmePlain = idOf(await call('POST', '/context-variables', ws.acme.key, { name: 'region', description: 'the region' }));
      const globexOwn = idOf(await call('POST', '/context-variables', ws.globex.key, { name: 'tier', description: 'the tier' }));

      // Another workspace's bulk delete, filtered by acme's tag (a reference to it: 404) or not at all: acme keeps both.
      expect((await call('DELETE', `/context-variables?tag_id=${tag}`, ws.globex.key)).status).toBe(404);
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

  describe('references (item 11)', () => {
    /** The same answer for another workspace's id as for an id that exists nowhere: status and body, id aside. */
    const sameAsUnknown = async (send: (id: string) => Promise<Reply>, foreignId: string): Promise<Reply> => {
      const foreign = await send(foreignId);
      const unknown = await send('no-such-thing-0001');
      expect(foreign.status).toBe(unknown.status);
      expect(JSON.stringify(foreign.body).replaceAll(foreignId, '<id>')).toBe(
        JSON.stringify(unknown.body).replaceAll('no-such-thing-0001', '<id>'),
      );
      expect(foreign.status).toBeGreaterThanOrEqual(400);
      expect(foreign.status).toBeLessThan(500);
      return foreign;
    };

    it("another workspace's journey on a guideline, on create and on PATCH", async () => {
      const journey = idOf(
        await call('POST', '/journeys', ws.acme.key, {
          title: 'Returns',
          description: 'returns',
          conditions: ['the customer wants a return'],
        }),
      );
      await sameAsUnknown(
        (id) => call('POST', '/guidelines', ws.globex.key, { condition: 'the customer asks', action: 'answer', journey_id: id }),
        journey,
      );
      const own = idOf(await call('POST', '/guidelines', ws.globex.key, { condition: 'the customer asks', action: 'answer' }));
      await sameAsUnknown((id) => call('PATCH', `/guidelines/${own}`, ws.globex.key, { journey_id: id }), journey);
      expect(
        ((await call('GET', `/guidelines/${own}`, ws.globex.key)).body as { guideline: { journey_id?: unknown } }).guideline.journey_id ??
          null,
      ).toBeNull();
      // Its own journey is fine.
      const globexJourney = idOf(
        await call('POST', '/journeys', ws.globex.key, { title: 'Orders', description: 'orders', conditions: ['the customer orders'] }),
      );
      expect((await call('PATCH', `/guidelines/${own}`, ws.globex.key, { journey_id: globexJourney })).status).toBe(200);
    });

    it("another workspace's guideline in an evaluation", async () => {
      const guideline = idOf(await call('POST', '/guidelines', ws.acme.key, { condition: 'the customer greets', action: 'greet back' }));
      const evaluate = (id: string) =>
        call('POST', '/evaluations', ws.globex.key, {
          payloads: [
            {
              kind: 'guideline',
              guideline: {
                content: { condition: 'the customer greets', action: 'wave' },
                tool_ids: [],
                operation: 'update',
                updated_id: id,
              },
            },
          ],
        });
      await sameAsUnknown(evaluate, guideline);
    });

    it("another workspace's tags on an agent (PATCH add and remove, create), and its agent as a tag", async () => {
      const acmeTag = idOf(await call('POST', '/tags', ws.acme.key, { name: 'vip' }));
      await sameAsUnknown((id) => call('PATCH', `/agents/${ws.globex.agent}`, ws.globex.key, { tags: { add: [id] } }), acmeTag);
      await sameAsUnknown((id) => call('PATCH', `/agents/${ws.globex.agent}`, ws.globex.key, { tags: { remove: [id] } }), acmeTag);
      await sameAsUnknown((id) => call('POST', '/agents', ws.globex.key, { name: 'tagged', tags: [id] }), acmeTag);
      await sameAsUnknown(
        (id) =>
          call('POST', '/capabilities', ws.globex.key, {
            title: 'Refunds',
            description: 'refunds',
            signals: ['refund'],
            tags: [`agent:${id}`],
          }),
        ws.acme.agent,
      );
      expect(((await call('GET', `/agents/${ws.globex.agent}`, ws.globex.key)).body as { tags: string[] }).tags).toEqual([]);
      const globexTag = idOf(await call('POST', '/tags', ws.globex.key, { name: 'vip' }));
      expect((await call('PATCH', `/agents/${ws.globex.agent}`, ws.globex.key, { tags: { add: [globexTag] } })).status).toBe(200);
    });

    it("another workspace's guidelines and tags in relationships and list filters", async () => {
      const acmeGuideline = idOf(
        await call('POST', '/guidelines', ws.acme.key, { condition: 'the customer is angry', action: 'apologise' }),
      );
      const globexGuideline = idOf(
        await call('POST', '/guidelines', ws.globex.key, { condition: 'the customer is happy', action: 'thank them' }),
      );
      await sameAsUnknown(
        (id) =>
          call('POST', '/relationships', ws.globex.key, { source_guideline: globexGuideline, target_guideline: id, kind: 'priority' }),
        acmeGuideline,
      );
      const acmeTag = idOf(await call('POST', '/tags', ws.acme.key, { name: 'billing' }));
      await sameAsUnknown((id) => call('GET', `/guidelines?tag_id=${id}`, ws.globex.key), acmeTag);
      await sameAsUnknown((id) => call('GET', `/relationships?guideline_id=${id}`, ws.globex.key), acmeGuideline);
    });
  });
});
