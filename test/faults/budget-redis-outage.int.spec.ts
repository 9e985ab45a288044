import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { OfflineProvider } from '@tenet/llm';
import { startOwnNats, startOwnRedis, type OwnServer } from '@tenet/testing';

interface SessionEvent {
  offset: number;
  kind: string;
  correlation_id: string;
  data: { status?: string; message?: string; data?: { code?: string; exception?: string } };
}

/**
 * Issue 26 item 8: with the budget store (Redis) down, a budgeted agent's turn fails closed with
 * `BUDGET.UNAVAILABLE` — promptly, no LLM call made uncounted — while agents without a budget keep answering; once
 * Redis is back, budgeted turns answer again. Own nats-server and redis-server on free ports.
 */
describe('budgets while Redis is down (own redis-server): fail closed with BUDGET.UNAVAILABLE', () => {
  let nats: OwnServer;
  let redis: OwnServer;
  let dir: string;
  let host: { app: INestApplication; url: string } | undefined;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startOwnNats(), startOwnRedis()]);
    dir = mkdtempSync(join(tmpdir(), 'tenet-budget-redis-'));
    const env = { TENET_MODE: 'distributed', TENET_DATA_DIR: dir, NATS_URL: nats.url, REDIS_URL: redis.url, TENET_NAMESPACE: `budget-redis-${randomUUID()}`, TENET_DEMO: 'off', TENET_AUTH: 'off' };
    host = await startAllInOne(env, { provider: new OfflineProvider() });
  }, 120_000);

  afterAll(async () => {
    await host?.app.close().catch(() => undefined);
    await Promise.all([nats?.dispose(), redis?.dispose()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async <T>(path: string, method = 'GET', body?: unknown): Promise<T> => {
    const response = await fetch(`${host!.url}${path}`, { method, headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(15_000), ...(body ? { body: JSON.stringify(body) } : {}) });
    return (await response.json()) as T;
  };

  /** A customer message and the turn's end (ready or error), with how long the turn took. */
  const turn = async (agentId: string): Promise<{ end: SessionEvent; ms: number }> => {
    const session = await call<{ id: string }>('/sessions', 'POST', { agent_id: agentId });
    const started = Date.now();
    const posted = await call<SessionEvent>(`/sessions/${session.id}/events`, 'POST', { kind: 'message', source: 'customer', message: 'hello' });
    for (let attempt = 0; attempt < 60; attempt++) {
      const events = (await call<SessionEvent[]>(`/sessions/${session.id}/events?min_offset=${posted.offset + 1}&wait_for_data=5`)).filter((e) => e.correlation_id === posted.correlation_id);
      const end = events.find((e) => e.data.status === 'ready' || e.data.status === 'error');
      if (end) return { end, ms: Date.now() - started };
    }
    throw new Error('the turn did not end');
  };

  it('refuses budgeted turns with BUDGET.UNAVAILABLE while Redis is down, and answers again once it is back', async () => {
    const budgeted = (await call<{ id: string }>('/agents', 'POST', { name: 'Budgeted', budget: { limits: [{ period: 'day', tokens: 1_000_000 }] } })).id;
    const unbudgeted = (await call<{ id: string }>('/agents', 'POST', { name: 'Free' })).id;
    expect((await turn(budgeted)).end.data.status).toBe('ready');

    await redis.kill();
    const refused = await turn(budgeted);
    expect(refused.end.data).toMatchObject({ status: 'error', data: { code: 'BUDGET.UNAVAILABLE' } });
    // Bounded: the store's answer is awaited at most 5 s, far from the 120 s turn deadline.
    expect(refused.ms).toBeLessThan(30_000);
    expect((await turn(unbudgeted)).end.data.status).toBe('ready');

    await redis.start();
    let back: SessionEvent | undefined;
    for (let attempt = 0; attempt < 10 && back?.data.status !== 'ready'; attempt++) back = (await turn(budgeted)).end;
    expect(back?.data.status).toBe('ready');
  }, 240_000);
});
