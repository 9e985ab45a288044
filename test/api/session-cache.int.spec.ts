import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { gatewayHttp, type TurnEvent } from './support/gateway-http.js';

interface Session {
  id: string;
  labels: string[];
  status: string;
  message_count?: number;
}

/**
 * Issue 27: a gateway keeps at most TENET_SESSION_CACHE_SIZE session records in memory. With a cap of 2, every
 * session but the last two read is evicted — and must still take turns, show its events and be listed, filtered,
 * paged, changed and deleted exactly as a cached one.
 */
describe('session record cache bound (all-in-one, TENET_SESSION_CACHE_SIZE=2)', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  const { call, created, turnEvents } = gatewayHttp(() => url);
  const before = process.env['TENET_SESSION_CACHE_SIZE'];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-session-cache-'));
    // The typed config of startAllInOne is read from the process environment.
    process.env['TENET_SESSION_CACHE_SIZE'] = '2';
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
  });

  afterAll(async () => {
    await app.close();
    if (before === undefined) delete process.env['TENET_SESSION_CACHE_SIZE'];
    else process.env['TENET_SESSION_CACHE_SIZE'] = before;
    rmSync(dir, { recursive: true, force: true });
  });

  it('an evicted session takes a turn, shows its events, and is listed, paged, changed and deleted', async () => {
    const agent = (await created('/agents', { name: 'Support' })).id;
    await created('/guidelines', {
      condition: 'The customer asks about refunds',
      action: 'Explain the 30-day refund policy',
      tags: [`agent:${agent}`],
    });
    const sessions: Session[] = [];
    for (let i = 0; i < 6; i++) sessions.push(await created<Session>('/sessions', { agent_id: agent }));
    // Read the newest ones last: the oldest is evicted from a cache of two.
    for (const session of sessions) expect((await call(`/sessions/${session.id}`)).status).toBe(200);
    const oldest = sessions[0]!;

    const turn = await turnEvents<TurnEvent & { data: { status?: string; message?: string } }>(oldest.id, 'Can I get a refund?');
    expect(turn.filter((e) => e.kind === 'status').map((e) => e.data.status)).toContain('ready');
    expect(turn.some((e) => e.kind === 'message' && e.source === 'ai_agent')).toBe(true);
    for (const session of sessions.slice(1)) await call(`/sessions/${session.id}`); // evicted again
    const events = (await call(`/sessions/${oldest.id}/events?kinds=message`)).body as { source: string }[];
    expect(events.map((e) => e.source)).toEqual(['customer', 'ai_agent']);
    expect((await call(`/sessions/${oldest.id}`)).body).toMatchObject({ id: oldest.id, message_count: 2 });

    const listed = (await call(`/sessions?agent_id=${agent}`)).body as Session[];
    expect(listed.map((s) => s.id)).toEqual(sessions.map((s) => s.id));
    const page = (await call(`/sessions?agent_id=${agent}&limit=4`)).body as {
      items: Session[];
      total_count: number;
      has_more: boolean;
      next_cursor: string;
    };
    expect(page).toMatchObject({ total_count: 6, has_more: true });
    expect(page.items.map((s) => s.id)).toEqual(sessions.slice(0, 4).map((s) => s.id));
    const rest = (await call(`/sessions?agent_id=${agent}&limit=4&cursor=${page.next_cursor}`)).body as {
      items: Session[];
      has_more: boolean;
    };
    expect(rest).toMatchObject({ has_more: false });
    expect(rest.items.map((s) => s.id)).toEqual(sessions.slice(4).map((s) => s.id));

    expect((await call(`/sessions/${oldest.id}`, 'PATCH', { labels: { upsert: ['vip'] } })).status).toBe(200);
    for (const session of sessions.slice(1)) await call(`/sessions/${session.id}`);
    expect(((await call(`/sessions?labels=vip`)).body as Session[]).map((s) => s.id)).toEqual([oldest.id]);
    expect((await call(`/sessions/${oldest.id}`, 'DELETE')).status).toBe(204);
    expect((await call(`/sessions/${oldest.id}`)).status).toBe(404);
    expect(((await call(`/sessions?agent_id=${agent}`)).body as Session[]).map((s) => s.id)).toEqual(sessions.slice(1).map((s) => s.id));
  });
});
