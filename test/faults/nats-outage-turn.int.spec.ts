import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { OfflineProvider } from '@tenet/llm';
import { eventually, startOwnNats, startOwnRedis, type OwnServer } from '@tenet/testing';

/** Longer than the ~10.5 s after which turns used to fail (`RequestError: connection disconnected`), well within the 120 s deadline. */
const OUTAGE_MS = 16_000;

interface StatusEvent {
  offset: number;
  kind: string;
  data: { status?: string; data?: Record<string, unknown> };
}

/**
 * Issue 26 item 7: docs/reliability.md promises that a turn's matcher requests are retried with backoff until the
 * turn deadline. A turn whose customer message arrives while NATS is down (own nats-server, killed with SIGKILL)
 * must answer `ready` once NATS is back within the deadline — not fail when the client reports the disconnect.
 */
describe('a turn across a NATS outage shorter than its deadline (own nats-server, killed and restarted)', () => {
  let nats: OwnServer;
  let redis: OwnServer;
  let dir: string;
  let host: { app: INestApplication; url: string } | undefined;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startOwnNats(), startOwnRedis()]);
    dir = mkdtempSync(join(tmpdir(), 'tenet-nats-outage-turn-'));
    const env = { TENET_MODE: 'distributed', TENET_DATA_DIR: dir, NATS_URL: nats.url, REDIS_URL: redis.url, TENET_NAMESPACE: `outage-turn-${randomUUID()}`, TENET_DEMO: 'off', TENET_AUTH: 'off' };
    host = await startAllInOne(env, { provider: new OfflineProvider() });
  }, 120_000);

  afterAll(async () => {
    await host?.app.close().catch(() => undefined);
    await Promise.all([nats?.dispose(), redis?.dispose()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async <T>(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${host!.url}${path}`, { method, headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(30_000), ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: response.status, body: (await response.json()) as T };
  };

  const finalStatus = (sessionId: string, offset: number): Promise<StatusEvent['data']> =>
    eventually(
      async () => {
        const { body } = await call<StatusEvent[]>(`/sessions/${sessionId}/events?min_offset=${offset + 1}&kinds=status`);
        const final = body.find((e) => e.data.status === 'ready' || e.data.status === 'error');
        expect(final).toBeDefined();
        return final!.data;
      },
      { timeoutMs: 150_000, intervalMs: 250 },
    );

  it('a message taken during the outage is answered once NATS is back, within the turn deadline', async () => {
    const agent = (await call<{ id: string }>('/agents', 'POST', { name: 'Support' })).body;
    await call('/guidelines', 'POST', { condition: 'The customer asks about refunds', action: 'Explain the 30-day refund policy', tags: [`agent:${agent.id}`] });
    const session = (await call<{ id: string }>('/sessions', 'POST', { agent_id: agent.id })).body;

    await nats.kill();
    const during = await call<{ offset: number }>(`/sessions/${session.id}/events`, 'POST', { kind: 'message', source: 'customer', message: 'I want a refund' });
    expect(during.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await nats.start();

    expect(await finalStatus(session.id, during.body.offset)).toMatchObject({ status: 'ready' });
  }, 240_000);
});
