import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { OfflineProvider } from '@tenet/llm';
import { Redis } from 'ioredis';
import { eventually, startOwnNats, startOwnRedis, type OwnServer } from '@tenet/testing';

const ADMIN_KEY = 'redis-outage-admin-key-0123456789abcdef';

/**
 * docs/reliability.md#redis-outage-and-a-redis-restart-without-persistence: Redis (BullMQ timers, rate limits) down must
 * not hold a request open nor fail it, and the timers a Redis restart without persistence loses are rebuilt from the
 * event log by the running host when Redis answers again. The test owns its redis-server (`--save ''`, no AOF) and
 * its nats-server, both on free ports.
 */
describe('a Redis outage and a Redis restart without persistence (own redis-server)', () => {
  let nats: OwnServer;
  let redis: OwnServer;
  let dir: string;
  let env: Record<string, string>;
  let host: { app: INestApplication; url: string } | undefined;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startOwnNats(), startOwnRedis()]);
    dir = mkdtempSync(join(tmpdir(), 'tenet-redis-outage-'));
    env = {
      TENET_MODE: 'distributed',
      TENET_DATA_DIR: dir,
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      TENET_NAMESPACE: `redis-${randomUUID()}`,
      TENET_DEMO: 'off',
      // Keys on, as distributed mode runs by default: every request passes the guard and its Redis rate limits.
      TENET_AUTH: 'on',
      TENET_ADMIN_KEY: ADMIN_KEY,
    };
    host = await startAllInOne(env, { provider: new OfflineProvider() });
  });

  afterAll(async () => {
    await host?.app.close().catch(() => undefined);
    await Promise.all([nats?.dispose(), redis?.dispose()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async <T>(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T }> => {
    // A POST that waits on Redis would hang for the whole outage; 15 s is far beyond any accept on a loaded machine.
    const response = await fetch(`${host!.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      signal: AbortSignal.timeout(15_000),
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const state = async (sessionId: string): Promise<string> => (await call<{ state: string }>(`/sessions/${sessionId}`)).body.state;

  it('answers requests while Redis is down, and after a restart that lost every key the running host rebuilds the timers from the log', async () => {
    const agent = (await call<{ id: string }>('/agents', 'POST', { name: 'Support' })).body;
    // Its lifetime timer is armed in Redis while Redis is up, then lost with Redis.
    const expiring = (
      await call<{ id: string }>('/sessions', 'POST', {
        agent_id: agent.id,
        expires_at: new Date(Date.now() + 20_000).toISOString(),
        config: { ttl_secs: 3_600 },
      })
    ).body;
    // 30 s is the minimum idle timeout (docs/data-model.md#sessions).
    const chatting = (await call<{ id: string }>('/sessions', 'POST', { agent_id: agent.id, config: { idle_timeout_secs: 30 } })).body;

    // Both sessions' timers are in Redis before it goes (armed in the background after each POST): what the restart
    // then loses only a rebuild brings back.
    const client = new Redis(redis.url);
    try {
      await eventually(async () => {
        const [, keys] = await client.scan('0', 'MATCH', '*session-timers:delayed', 'COUNT', 1000);
        expect(keys).toHaveLength(1);
        expect(await client.zcard(keys[0]!)).toBeGreaterThanOrEqual(2);
      });
    } finally {
      client.disconnect();
    }
    await redis.kill();
    const posted = await call<{ offset: number }>(`/sessions/${chatting.id}/events`, 'POST', {
      kind: 'message',
      source: 'customer',
      message: 'hello while Redis is down',
    });
    expect(posted.status).toBe(201);
    // Creating a session does not wait on Redis either.
    expect((await call('/sessions', 'POST', { agent_id: agent.id })).status).toBe(201);
    const notReady = await call<{ error: Record<string, unknown> }>('/readyz');
    expect(notReady.status).toBe(503);
    expect(Object.keys(notReady.body.error)).toContain('redis');
    // Reads pass the guard too: its rate limits are counted in the process while Redis does not answer (a 500 before).
    expect((await call('/agents')).status).toBe(200);
    expect((await call(`/sessions/${chatting.id}`)).status).toBe(200);

    // Redis comes back empty (no persistence): every timer key is gone. The running host rebuilds them from the event
    // log when Redis answers again — no restart (before, they stayed lost until the next start-up).
    await redis.start();
    expect(await state(expiring.id)).toBe('Active');
    await eventually(async () => expect(await state(expiring.id)).toBe('Expired'), { timeoutMs: 60_000, intervalMs: 500 });
    // The idle timer of the activity recorded during the outage fires too: about 30 s after that message.
    await eventually(async () => expect(await state(chatting.id)).toBe('Idle'), { timeoutMs: 90_000, intervalMs: 500 });
  }, 240_000);
});
