import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';

const ADMIN_KEY = 'bootstrap-admin-key-for-the-confinement-test-0123456789';

interface Reply {
  status: number;
  body: unknown;
  text: string;
}

/**
 * What the path-and-reference guard alone did not confine (ADR 0018 consequences): knowledge sources and search,
 * paged lists' total_count, and the usage page — each seen from two workspaces of one gateway (auth on, embedded).
 */
describe('workspace confinement of knowledge, paged lists and the usage page (auth on, embedded)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  const ws = { acme: { key: '', agent: '' }, globex: { key: '', agent: '' } };

  const call = async (method: string, path: string, key: string, body?: unknown): Promise<Reply> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // HTML
    }
    return { status: response.status, body: parsed, text };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-confinement-'));
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
      const key = await call('POST', '/keys', ADMIN_KEY, { name: `${name} admin`, role: 'admin', workspace_id: name });
      expect(key.status).toBe(201);
      ws[name].key = (key.body as { key: string }).key;
      const agent = await call('POST', '/agents', ws[name].key, { name: `${name} support agent` });
      ws[name].agent = (agent.body as { id: string }).id;
    }
  }, 120_000);

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("knowledge sources and search are the creating workspace's only", async () => {
    const source = (id: string, agentIds: string[], content: string) => ({
      id,
      title: `${id} handbook`,
      format: 'markdown',
      content,
      agent_ids: agentIds,
    });
    expect(
      (
        await call(
          'POST',
          '/knowledge/sources',
          ws.acme.key,
          source('acme-refunds', [ws.acme.agent], '# Refunds\nAcme refunds within 30 days of purchase.'),
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await call(
          'POST',
          '/knowledge/sources',
          ws.globex.key,
          source('globex-refunds', [ws.globex.agent], '# Refunds\nGlobex refunds within 14 days of purchase.'),
        )
      ).status,
    ).toBe(201);

    // Another workspace's source: not listed, not readable, not deletable, not replaceable by id.
    const listed = (await call('GET', '/knowledge/sources', ws.globex.key)).body as { id: string }[];
    expect(listed.map((s) => s.id)).toEqual(['globex-refunds']);
    expect((await call('GET', '/knowledge/sources/acme-refunds', ws.globex.key)).status).toBe(404);
    expect((await call('DELETE', '/knowledge/sources/acme-refunds', ws.globex.key)).status).toBe(404);
    expect((await call('POST', '/knowledge/sources', ws.globex.key, source('acme-refunds', [ws.globex.agent], '# Hijacked'))).status).toBe(
      404,
    );
    expect(((await call('GET', '/knowledge/sources/acme-refunds', ws.acme.key)).body as { title: string; chunk_count: number }).title).toBe(
      'acme-refunds handbook',
    );

    // Tagging another workspace's agent is naming a resource of it (404); untagged is refused outside default (422).
    expect((await call('POST', '/knowledge/sources', ws.globex.key, source('globex-sneaky', [ws.acme.agent], '# Sneaky'))).status).toBe(
      404,
    );
    const untagged = await call('POST', '/knowledge/sources', ws.globex.key, source('globex-untagged', [], '# Everyone'));
    expect(untagged.status).toBe(422);
    expect(JSON.stringify(untagged.body)).toContain('agent_ids must name at least one agent of workspace globex');

    // Search: with another workspace's agent → 404; without an agent → only the caller's sources' hits.
    expect((await call('GET', `/knowledge/search?q=refunds&agent_id=${ws.acme.agent}`, ws.globex.key)).status).toBe(404);
    const hits = (
      (await call('GET', '/knowledge/search?q=refunds%20purchase&max_results=10', ws.globex.key)).body as {
        chunks: { source_id: string }[];
      }
    ).chunks;
    expect(hits.length).toBeGreaterThan(0);
    expect(new Set(hits.map((h) => h.source_id))).toEqual(new Set(['globex-refunds']));
    const own = (
      (await call('GET', `/knowledge/search?q=refunds&agent_id=${ws.acme.agent}`, ws.acme.key)).body as { chunks: { source_id: string }[] }
    ).chunks;
    expect(new Set(own.map((h) => h.source_id))).toEqual(new Set(['acme-refunds']));
  });

  it("paged lists count only the caller's items in total_count and pages", async () => {
    for (let i = 0; i < 3; i++) await call('POST', '/sessions', ws.acme.key, { agent_id: ws.acme.agent });
    for (let i = 0; i < 5; i++) await call('POST', '/sessions', ws.globex.key, { agent_id: ws.globex.agent });
    const acmePage = (await call('GET', '/sessions?limit=2', ws.acme.key)).body as {
      items: { id: string }[];
      total_count: number;
      has_more: boolean;
      next_cursor?: string;
    };
    expect(acmePage).toMatchObject({ total_count: 3, has_more: true });
    expect(acmePage.items).toHaveLength(2);
    const rest = (await call('GET', `/sessions?limit=2&cursor=${acmePage.next_cursor}`, ws.acme.key)).body as {
      items: unknown[];
      total_count: number;
      has_more: boolean;
    };
    expect(rest).toMatchObject({ total_count: 3, has_more: false });
    expect(rest.items).toHaveLength(1);
    expect(((await call('GET', '/sessions?limit=100', ws.globex.key)).body as { total_count: number }).total_count).toBe(5);

    for (const name of ['Ann', 'Bob']) await call('POST', '/customers', ws.acme.key, { name });
    await call('POST', '/customers', ws.globex.key, { name: 'Cy' });
    const customers = (await call('GET', '/customers?limit=1', ws.acme.key)).body as {
      items: { name: string }[];
      total_count: number;
      has_more: boolean;
      next_cursor?: string;
    };
    // The shared guest customer is the default workspace's: not counted for acme.
    expect(customers).toMatchObject({ total_count: 2, has_more: true });
    const second = (await call('GET', `/customers?limit=5&cursor=${customers.next_cursor}`, ws.acme.key)).body as {
      items: { name: string }[];
      has_more: boolean;
    };
    expect([...customers.items, ...second.items].map((c) => c.name).sort()).toEqual(['Ann', 'Bob']);
    expect(second.has_more).toBe(false);
  });

  it("the usage page and its JSON show the caller's agents only", async () => {
    const page = await call('GET', '/admin/usage?range=24h', ws.acme.key);
    expect(page.status).toBe(200);
    expect(page.text).toContain('acme support agent');
    expect(page.text).not.toContain('globex support agent');
    const json = await call('GET', '/admin/usage?range=24h&format=json', ws.acme.key);
    expect(json.status).toBe(200);
    expect((json.body as { agents: { id: string; name: string }[] }).agents.map((a) => a.name)).toEqual(['acme support agent']);
    const globex = (await call('GET', '/admin/usage?format=json', ws.globex.key)).body as {
      agents: { name: string }[];
      buckets: unknown[];
    };
    expect(globex.agents.map((a) => a.name)).toEqual(['globex support agent']);
    expect(globex.buckets.length).toBeGreaterThan(0);
    const bad = await call('GET', '/admin/usage?format=xml', ws.acme.key);
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('format must be one of html, json');
  });

  it("a turn is grounded in its own workspace's sources only: default's untagged source applies to default's agents", async () => {
    const warranty = '# Warranty\nEvery Initech gadget carries a lifetime warranty on parts and labour.';
    expect(
      (
        await call('POST', '/knowledge/sources', ADMIN_KEY, {
          id: 'default-warranty',
          title: 'Warranty',
          format: 'markdown',
          content: warranty,
        })
      ).status,
    ).toBe(201);
    const defaultAgent = ((await call('POST', '/agents', ADMIN_KEY, { name: 'default support agent' })).body as { id: string }).id;
    const citedIn = async (key: string, agentId: string): Promise<string[]> => {
      const session = (await call('POST', '/sessions', key, { agent_id: agentId })).body as { id: string };
      const posted = (
        await call('POST', `/sessions/${session.id}/events`, key, {
          kind: 'message',
          source: 'customer',
          message: 'What warranty do Initech gadgets carry on parts and labour?',
        })
      ).body as { offset: number; correlation_id: string };
      const seen: {
        offset: number;
        kind: string;
        source: string;
        correlation_id: string;
        data: { status?: string; data?: { memory?: unknown }; sources?: { source_id: string }[] };
      }[] = [];
      for (let offset = posted.offset + 1, i = 0; i < 60; i++) {
        const events = (await call('GET', `/sessions/${session.id}/events?min_offset=${offset}&wait_for_data=10`, key)).body as typeof seen;
        seen.push(...events);
        offset = (events.at(-1)?.offset ?? offset - 1) + 1;
        const end = seen.find(
          (e) =>
            e.kind === 'status' && e.correlation_id === posted.correlation_id && (e.data.status === 'ready' || e.data.status === 'error'),
        );
        if (!end) continue;
        expect(end.data.status).toBe('ready');
        const reply = seen.find((e) => e.kind === 'message' && e.source === 'ai_agent' && e.correlation_id === posted.correlation_id);
        return (reply?.data.sources ?? []).map((s) => s.source_id);
      }
      throw new Error('the turn did not end');
    };
    // The control: default's own agent is answered from it and cites it (so an empty list below means confinement).
    expect(await citedIn(ADMIN_KEY, defaultAgent)).toContain('default-warranty');
    expect(await citedIn(ws.acme.key, ws.acme.agent)).not.toContain('default-warranty');
  }, 120_000);

  it("intents are their workspace's: names are unique per agent within it, lists and reads are confined, a turn classifies with its own", async () => {
    const weather = { name: 'weather_question', description: 'Ask about the weather', keywords: ['weather'] };
    const acmeIntent = await call('POST', '/intents', ws.acme.key, weather);
    expect(acmeIntent.status).toBe(201);
    // Untagged intents apply within their workspace only, so another workspace may use the name.
    const globexIntent = await call('POST', '/intents', ws.globex.key, {
      name: 'weather_question',
      description: 'Ask about the forecast',
      keywords: ['forecast'],
    });
    expect(globexIntent.status).toBe(201);
    expect((await call('POST', '/intents', ws.acme.key, weather)).status).toBe(422);
    const acmeId = (acmeIntent.body as { id: string }).id;
    expect(((await call('GET', '/intents', ws.globex.key)).body as { id: string }[]).map((i) => i.id)).not.toContain(acmeId);
    expect((await call('GET', `/intents/${acmeId}`, ws.globex.key)).status).toBe(404);
    expect((await call('PATCH', `/intents/${acmeId}`, ws.globex.key, { description: 'taken over' })).status).toBe(404);

    const intentOf = async (key: string, agentId: string): Promise<unknown> => {
      const session = (await call('POST', '/sessions', key, { agent_id: agentId })).body as { id: string };
      const posted = (
        await call('POST', `/sessions/${session.id}/events`, key, {
          kind: 'message',
          source: 'customer',
          message: 'How is the weather today?',
        })
      ).body as { offset: number; correlation_id: string };
      for (let i = 0; i < 60; i++) {
        const events = (
          await call('GET', `/sessions/${session.id}/events?min_offset=${posted.offset + 1}&wait_for_data=10&kinds=status`, key)
        ).body as { correlation_id: string; data: { status?: string; data?: { intent?: unknown } } }[];
        const ready = events.find((e) => e.correlation_id === posted.correlation_id && e.data.status === 'ready');
        if (ready) return ready.data.data?.intent;
      }
      throw new Error('the turn did not end');
    };
    expect(await intentOf(ws.acme.key, ws.acme.agent)).toMatchObject({ name: 'weather_question', outcome: 'recognized' });
    // Without intents of its own, globex's turn classifies nothing: acme's untagged intent does not reach it.
    expect((await call('DELETE', `/intents/${(globexIntent.body as { id: string }).id}`, ws.globex.key)).status).toBe(204);
    expect(await intentOf(ws.globex.key, ws.globex.agent)).toBeUndefined();
  }, 120_000);
});
