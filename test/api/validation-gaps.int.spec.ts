import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { keyedHttp, type TextReply as Reply } from './support/gateway-http.js';

/** Facts of unknown customers, impossible dates, unbounded priorities, and echoed paths. */
describe('validation gaps: unknown customers, impossible dates, unbounded priorities, echoed paths', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let agentId = '';

  const http = keyedHttp(() => url);
  const call = (method: string, path: string, body?: unknown): Promise<Reply> => http(method, path, undefined, body);
  const locs = (reply: Reply): unknown[] => ((reply.body as { detail: { loc: unknown[] }[] }).detail ?? []).map((d) => d.loc);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-validation-gaps-'));
    ({ app, url } = await startAllInOne({
      TENET_MODE: 'embedded',
      TENET_DATA_DIR: dir,
      TENET_DEMO: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_AUTH: 'off',
    }));
    agentId = ((await call('POST', '/agents', { name: 'Usage agent' })).body as { id: string }).id;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('facts of a customer that does not exist are 404, on every memory route; of real ones (and the guest) they are kept', async () => {
    const fact = { subject: 'customer', predicate: 'prefers', object: 'email' };
    expect(await call('POST', '/customers/nobody-here/memory', fact)).toMatchObject({
      status: 404,
      body: { detail: 'customer nobody-here not found' },
    });
    expect((await call('GET', '/customers/nobody-here/memory')).status).toBe(404);
    expect((await call('DELETE', '/customers/nobody-here/memory/some-fact')).status).toBe(404);
    const customer = ((await call('POST', '/customers', { name: 'Ann' })).body as { id: string }).id;
    expect((await call('POST', `/customers/${customer}/memory`, fact)).status).toBe(201);
    expect((await call('POST', '/customers/guest/memory', fact)).status).toBe(201);
    // A deleted customer has no memory to add to.
    expect((await call('DELETE', `/customers/${customer}`)).status).toBe(204);
    expect((await call('POST', `/customers/${customer}/memory`, fact)).status).toBe(404);
  });

  it('impossible dates are refused, not rolled over; to before from is refused', async () => {
    const impossible = await call('GET', `/agents/${agentId}/usage?from=2024-02-30`);
    expect(impossible.status).toBe(422);
    expect(locs(impossible)).toEqual([['query', 'from']]);
    expect(locs(await call('GET', `/agents/${agentId}/usage?to=2023-02-29T00:00:00Z`))).toEqual([['query', 'to']]);
    const backwards = await call('GET', `/agents/${agentId}/usage?from=2024-03-02T00:00:00Z&to=2024-03-01T00:00:00Z`);
    expect(backwards.status).toBe(422);
    expect(backwards.body).toEqual({ detail: [{ loc: ['query', 'to'], msg: 'to must not be before from', type: 'value_error.range' }] });
    expect((await call('GET', `/agents/${agentId}/usage?from=2024-02-29&to=2024-03-01T00:00:00Z`)).status).toBe(200);
    expect(locs(await call('GET', '/customers/guest/memory?at=2024-02-30T00:00:00Z'))).toEqual([['query', 'at']]);
    expect((await call('GET', '/customers/guest/memory?at=2024-02-29T00:00:00Z')).status).toBe(200);
  });

  it('a journey priority is bounded like a guideline priority, on create and on PATCH', async () => {
    const journey = { title: 'Returns', description: 'returns', conditions: ['the customer wants a return'] };
    for (const priority of [1e308, 1001, -1001]) {
      const refused = await call('POST', '/journeys', { ...journey, priority });
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({
        detail: [{ loc: ['body', 'priority'], msg: 'priority must be an integer from -1000 to 1000', type: expect.any(String) as unknown }],
      });
    }
    const created = await call('POST', '/journeys', { ...journey, priority: 1000 });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect(locs(await call('PATCH', `/journeys/${id}`, { priority: 1e308 }))).toEqual([['body', 'priority']]);
    expect(((await call('GET', `/journeys/${id}`)).body as { priority: number }).priority).toBe(1000);
  });

  it('path-like values are not echoed back in errors', async () => {
    const probes = ['../../etc/passwd', '..\\..\\windows\\win.ini', '/etc/shadow', '<script>alert(1)</script>'];
    for (const probe of probes) {
      const encoded = encodeURIComponent(probe);
      const replies = [
        await call('GET', `/agents/${encoded}`),
        await call('GET', `/knowledge/sources/${encoded}`),
        await call('POST', '/sessions', { agent_id: probe }),
        await call('POST', '/knowledge/sources', { title: 't', format: probe, content: 'x' }),
        await call('POST', '/knowledge/sources', { title: 't', format: 'markdown', content: 'x', agent_ids: [probe] }),
        await call('POST', '/guidelines', { condition: 'c', action: 'a', journey_id: probe }),
        await call('GET', `/no-such-route/${encoded}`),
      ];
      for (const reply of replies) {
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expect(reply.status).toBeLessThan(500);
        expect(reply.text).not.toContain(probe);
        expect(reply.text).not.toContain(JSON.stringify(probe).slice(1, -1));
        expect(reply.text).not.toMatch(/etc\/passwd|etc\/shadow|win\.ini|<script>/);
      }
    }
    expect(await call('GET', '/agents/no-such-agent')).toMatchObject({ status: 404, body: { detail: 'agent no-such-agent not found' } });
    expect(await call('GET', '/no-such-route')).toMatchObject({ status: 404, body: { detail: 'Cannot GET /no-such-route' } });
    expect(await call('GET', `/no-such-route/${encodeURIComponent('../../etc/passwd')}`)).toMatchObject({
      status: 404,
      body: { detail: 'Not Found' },
    });
  });
});
