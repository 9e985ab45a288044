import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startAllInOne } from '@tenet/hosts';
import { OfflineProvider } from '@tenet/llm';
import { eventually, startOwnNats, startOwnRedis, type OwnServer } from '@tenet/testing';
import { faultHttp } from './support/own-stack.js';

/** Longer than the NATS client's default reconnect budget (10 attempts, 2 s apart), after which it used to give up for good. */
const OUTAGE_MS = 25_000;

/**
 * docs/reliability.md#nats-outage-any-length: a NATS outage longer than the client's default reconnect budget. The test owns its nats-server
 * (a free port, its own JetStream store), kills it with SIGKILL, keeps it down for 25 s and starts it again on the
 * same port and store. The gateway must take messages during the outage (the log is the record; notifications are
 * best effort), tell readiness from liveness, and afterwards run turns, publish them and meter them without a restart.
 */
describe('a NATS outage longer than the client default reconnect budget (own nats-server, killed and restarted)', () => {
  let nats: OwnServer;
  let redis: OwnServer;
  let dir: string;
  let host: { app: INestApplication; url: string } | undefined;
  let subscriber: NatsConnection | undefined;
  const namespace = `outage-${randomUUID()}`;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startOwnNats(), startOwnRedis()]);
    dir = mkdtempSync(join(tmpdir(), 'tenet-nats-outage-'));
    const env = {
      TENET_MODE: 'distributed',
      TENET_DATA_DIR: dir,
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      TENET_NAMESPACE: namespace,
      TENET_DEMO: 'off',
      TENET_AUTH: 'off',
    };
    host = await startAllInOne(env, { provider: new OfflineProvider() });
  });

  afterAll(async () => {
    await subscriber?.close().catch(() => undefined);
    await host?.app.close().catch(() => undefined);
    await Promise.all([nats?.dispose(), redis?.dispose()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const { call, finalStatus } = faultHttp(() => host!.url);

  /** Posts a customer message and waits for its turn's final status. */
  const turn = async (sessionId: string, message: string): Promise<Awaited<ReturnType<typeof finalStatus>>> => {
    const posted = await call<{ offset: number }>(`/sessions/${sessionId}/events`, 'POST', {
      kind: 'message',
      source: 'customer',
      message,
    });
    expect(posted.status).toBe(201);
    return finalStatus(sessionId, posted.body.offset);
  };

  it('keeps accepting messages, says not ready while NATS is down, and after it returns runs, publishes and meters turns without a restart', async () => {
    const agent = (await call<{ id: string }>('/agents', 'POST', { name: 'Support' })).body;
    await call('/guidelines', 'POST', {
      condition: 'The customer asks about refunds',
      action: 'Explain the 30-day refund policy',
      tags: [`agent:${agent.id}`],
    });
    const session = (await call<{ id: string }>('/sessions', 'POST', { agent_id: agent.id })).body;
    expect(await turn(session.id, 'I want a refund')).toMatchObject({ status: 'ready' });
    expect((await call<{ status: string }>('/readyz')).body.status).toBe('ok');
    const usageBefore = await eventually(
      async () => {
        const { body } = await call<{ calls: number }>(`/agents/${agent.id}/usage`);
        expect(body.calls).toBeGreaterThan(0);
        return body.calls;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );

    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    // Liveness stays cheap and green; readiness names the dependency that is down.
    expect((await call('/healthz')).status).toBe(200);
    const notReady = await call<{ status: string; error: Record<string, unknown> }>('/readyz');
    expect(notReady.status).toBe(503);
    expect(Object.keys(notReady.body.error)).toEqual(['nats']);
    // The log takes the message; its notification is dropped or buffered, never a 500.
    const during = await call<{ offset: number }>(`/sessions/${session.id}/events`, 'POST', {
      kind: 'message',
      source: 'customer',
      message: 'are you there?',
    });
    expect(during.status).toBe(201);

    await nats.start();
    await eventually(async () => expect((await call<{ status: string }>('/readyz')).status).toBe(200), {
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    // The turn of the message taken during the outage ends one way or the other (the matcher was unreachable).
    await finalStatus(session.id, during.body.offset);

    subscriber = await connect({ servers: nats.url });
    const published: string[] = [];
    subscriber.subscribe(`${namespace}.tenet.v1.session.${session.id}.>`, { callback: (_error, msg) => void published.push(msg.subject) });
    await subscriber.flush();

    // A customer message after the outage starts a turn that the matcher answers over NATS, the relay publishes it,
    // and the metering consumer (a JetStream durable that lived through the outage) records its usage.
    expect(await turn(session.id, 'I still want my money back')).toMatchObject({ status: 'ready' });
    await eventually(
      () =>
        expect(published).toEqual(
          expect.arrayContaining([
            `${namespace}.tenet.v1.session.${session.id}.message_created`,
            `${namespace}.tenet.v1.session.${session.id}.status_changed`,
          ]),
        ),
      {
        timeoutMs: 30_000,
      },
    );
    await eventually(
      async () => expect((await call<{ calls: number }>(`/agents/${agent.id}/usage`)).body.calls).toBeGreaterThan(usageBefore),
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  }, 240_000);
});
