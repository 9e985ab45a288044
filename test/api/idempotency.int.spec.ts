import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { gatewayHttp, type Reply } from './support/gateway-http.js';

/** `Idempotency-Key` on `POST /sessions/{id}/events`. */
describe('Idempotency-Key on posting an event', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  const { call, created } = gatewayHttp(() => url);
  const start = async (): Promise<void> => {
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' }));
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-idempotency-'));
    await start();
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (sessionId: string, body: unknown, key?: string): Promise<Reply> => {
    const response = await fetch(`${url}/sessions/${sessionId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const messages = async (sessionId: string): Promise<{ id: string; source: string }[]> =>
    (await call(`/sessions/${sessionId}/events?kinds=message&source=human_agent`)).body as { id: string; source: string }[];
  const newSession = async (): Promise<string> =>
    (await created('/sessions', { agent_id: (await created('/agents', { name: 'Idem' })).id })).id;
  const message = { kind: 'message', source: 'human_agent', message: 'your parcel left today' };

  it('a retry with the same key returns the first event and stores nothing more', async () => {
    const sessionId = await newSession();
    const first = await post(sessionId, message, 'key-1');
    const retry = await post(sessionId, { message: 'your parcel left today', source: 'human_agent', kind: 'message' }, 'key-1'); // same body, other key order
    expect(first.status).toBe(201);
    expect(retry).toEqual(first);
    expect(await messages(sessionId)).toHaveLength(1);
    // Without a key, or with another, each post is a new event.
    expect((await post(sessionId, message, 'key-2')).body).not.toEqual(first.body);
    await post(sessionId, message);
    expect(await messages(sessionId)).toHaveLength(3);
  });

  it('the same key with a different body is a 422 naming the header, and writes nothing', async () => {
    const sessionId = await newSession();
    await post(sessionId, message, 'key-x');
    const reused = await post(sessionId, { ...message, message: 'something else' }, 'key-x');
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({
      detail: [
        expect.objectContaining({ loc: ['header', 'Idempotency-Key'], msg: expect.stringContaining('different request body') as unknown }),
      ],
    });
    expect(await messages(sessionId)).toHaveLength(1);
  });

  it('a malformed key is refused', async () => {
    const sessionId = await newSession();
    const reply = await post(sessionId, message, 'x'.repeat(256));
    expect(reply.status).toBe(422);
    expect(await messages(sessionId)).toHaveLength(0);
  });

  it('concurrent posts with one key write one event, and all get it', async () => {
    const sessionId = await newSession();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 ? post(sessionId, { kind: 'custom', source: 'system', data: { i } }) : post(sessionId, message, 'key-race'),
      ),
    );
    const keyed = replies.filter((_, i) => i % 2 === 0);
    expect(keyed.every((r) => r.status === 201)).toBe(true);
    expect(new Set(keyed.map((r) => (r.body as { id: string }).id)).size).toBe(1);
    expect(await messages(sessionId)).toHaveLength(1);
  }, 60_000);

  it('the key is durable: a retry after a restart on the same data still returns the first event', async () => {
    const sessionId = await newSession();
    const first = await post(sessionId, message, 'key-durable');
    await app.close();
    await start();
    expect(await post(sessionId, message, 'key-durable')).toEqual(first);
    expect(await messages(sessionId)).toHaveLength(1);
  }, 60_000);

  it('a key another gateway on the same log wrote after this one searched the session is still found', async () => {
    const sessionId = await newSession();
    // This gateway has searched the session's keys up to here (they are remembered, not searched again)...
    const before = await post(sessionId, message, 'key-here');
    await post(sessionId, { kind: 'custom', source: 'system', data: { n: 1 } });
    // ...and a second gateway process on the same event log takes the next keyed post.
    const other = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' });
    let elsewhere: Reply;
    try {
      const response = await fetch(`${other.url}/sessions/${sessionId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'key-there' },
        body: JSON.stringify(message),
      });
      elsewhere = { status: response.status, body: (await response.json()) as unknown };
    } finally {
      await other.app.close();
    }
    expect(elsewhere.status).toBe(201);
    // The platform's retry reaches this gateway: it answers with the other's event, writes nothing.
    expect(await post(sessionId, message, 'key-there')).toEqual(elsewhere);
    expect(await post(sessionId, message, 'key-here')).toEqual(before);
    expect(await messages(sessionId)).toHaveLength(2);
  }, 60_000);

  it('a customer message retried with its key starts one turn', async () => {
    const sessionId = await newSession();
    const customer = { kind: 'message', source: 'customer', message: 'hello' };
    const first = await post(sessionId, customer, 'key-turn');
    expect(await post(sessionId, customer, 'key-turn')).toEqual(first);
    const acknowledged = async (): Promise<number> =>
      ((await call(`/sessions/${sessionId}/events?kinds=status`)).body as { data: { status: string } }[]).filter(
        (e) => e.data.status === 'acknowledged',
      ).length;
    const ready = (await call(`/sessions/${sessionId}/events?kinds=message&source=ai_agent&wait_for_data=60`)).body as unknown[];
    expect(ready).toHaveLength(1);
    expect(await acknowledged()).toBe(1);
  }, 90_000);

  describe('POST /sessions', () => {
    const createSession = async (body: unknown, key: string): Promise<Reply> => {
      const response = await fetch(`${url}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    const sessionCount = async (): Promise<number> => ((await call('/sessions')).body as unknown[]).length;

    it('a retried create returns the first session, also after a restart, and opens no second one', async () => {
      const agentId = (await created('/agents', { name: 'Keyed sessions' })).id;
      const first = await createSession({ agent_id: agentId, title: 'Order 1' }, 'create-1');
      expect(first.status).toBe(201);
      const before = await sessionCount();
      expect(await createSession({ title: 'Order 1', agent_id: agentId }, 'create-1')).toEqual(first);
      await app.close();
      await start();
      expect(await createSession({ agent_id: agentId, title: 'Order 1' }, 'create-1')).toEqual(first);
      expect(await sessionCount()).toBe(before);
      const other = await createSession({ agent_id: agentId, title: 'Order 2' }, 'create-1');
      expect(other.status).toBe(422);
      expect(await sessionCount()).toBe(before);
      expect((await createSession({ agent_id: agentId, title: 'Order 1' }, 'create-2')).body).not.toEqual(first.body);
    }, 60_000);

    it('concurrent keyed creates open one session', async () => {
      const agentId = (await created('/agents', { name: 'Racing sessions' })).id;
      const before = await sessionCount();
      const replies = await Promise.all(Array.from({ length: 10 }, () => createSession({ agent_id: agentId }, 'create-race')));
      expect(replies.every((r) => r.status === 201)).toBe(true);
      expect(new Set(replies.map((r) => (r.body as { id: string }).id)).size).toBe(1);
      expect(await sessionCount()).toBe(before + 1);
    }, 60_000);
  });
});
