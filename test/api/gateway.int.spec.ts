import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import {
  deleteRedisKeys,
  deleteStreams,
  describeWithService,
  eventually,
  inParallel,
  natsUrl,
  probeNats,
  probeRedis,
  redisUrl,
} from '@tenet/testing';
import { startAllInOne as startGateway } from '@tenet/hosts';

const json = async (url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
};

describe('session gateway (embedded adapters)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-gw-'));
    ({ app, url } = await startGateway({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const countAll = async (path: string): Promise<number> => ((await json(`${url}${path}`)).body as unknown[]).length;

  describe('agents: rule violations give 422 naming the field, and nothing is stored', () => {
    it.each([
      [{ name: '' }, ['body', 'name'], /name must be 1-100 characters/],
      [{ name: 'x'.repeat(101) }, ['body', 'name'], /name must be 1-100 characters/],
      [{ name: 'A', system_prompt: '' }, ['body', 'system_prompt'], /system_prompt must be 1-10000 characters/],
      [{ name: 'A', config: { max_history_length: 0 } }, ['body', 'config', 'max_history_length'], /must not be less than 1/],
      [{ name: 'A', config: { max_history_length: 1001 } }, ['body', 'config', 'max_history_length'], /must not be greater than 1000/],
      [{ name: 'A', config: { temperature: 2.1 } }, ['body', 'config', 'temperature'], /must not be greater than 2/],
      [{ name: 'A', config: { max_tokens: 100_001 } }, ['body', 'config', 'max_tokens'], /must not be greater than 100000/],
      [{ name: 'A', config: { tool_timeout_secs: 0 } }, ['body', 'config', 'tool_timeout_secs'], /must not be less than 1/],
      [{ name: 'A', composition_mode: 'poetic' }, ['body', 'composition_mode'], /composition_mode must be one of/],
      [{ name: 'A', unknown_field: 1 }, ['body', 'unknown_field'], /should not exist/],
    ])('%j', async (body, loc, msg) => {
      const before = await countAll('/agents');
      const response = await json(`${url}/agents`, 'POST', body);
      expect(response.status).toBe(422);
      const detail = (response.body as { detail: { loc: unknown[]; msg: string }[] }).detail;
      expect(detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, msg: expect.stringMatching(msg) as unknown })]));
      expect(await countAll('/agents')).toBe(before);
    });

    it('names each broken rule of a field once, even when two checks share its message', async () => {
      const response = await json(`${url}/agents`, 'POST', { name: null });
      expect(response.status).toBe(422);
      expect((response.body as { detail: unknown[] }).detail).toEqual([
        { loc: ['body', 'name'], msg: 'name must be 1-100 characters', type: expect.any(String) as unknown },
      ]);
    });

    it('creates, reads, lists, updates and deletes an agent; unknown ids are 404', async () => {
      const created = await json(`${url}/agents`, 'POST', { name: 'Support', description: 'Helps with orders', tags: ['t1'] });
      expect(created).toMatchObject({ status: 201 });
      const agent = created.body as { id: string; name: string; composition_mode: string };
      expect(agent).toMatchObject({ name: 'Support', composition_mode: 'fluid' });
      expect((await json(`${url}/agents/${agent.id}`)).body).toEqual(agent);
      expect(((await json(`${url}/agents`)).body as { id: string }[]).map((a) => a.id)).toContain(agent.id);
      // A partial update changes only what it names.
      expect((await json(`${url}/agents/${agent.id}`, 'PATCH', { name: 'Support 2', config: { temperature: 0.1 } })).body).toMatchObject({
        id: agent.id,
        name: 'Support 2',
        description: 'Helps with orders',
        config: { temperature: 0.1, max_tokens: 2048, max_history_length: 50 },
      });
      expect((await json(`${url}/agents/${agent.id}`)).body).toMatchObject({
        name: 'Support 2',
        description: 'Helps with orders',
        config: { temperature: 0.1, max_tokens: 2048 },
      });
      expect((await json(`${url}/agents/${agent.id}`, 'DELETE')).status).toBe(204);
      expect((await json(`${url}/agents/${agent.id}`)).status).toBe(404);
      expect((await json(`${url}/agents/nope`, 'PATCH', { name: 'x' })).status).toBe(404);
    });

    it('rejects malformed JSON with 400', async () => {
      expect((await json(`${url}/agents`, 'POST', '{"name": ')).status).toBe(400);
    });
  });

  describe('sessions and events', () => {
    let agentId: string;
    beforeAll(async () => {
      agentId = ((await json(`${url}/agents`, 'POST', { name: 'Support' })).body as { id: string }).id;
    });

    it.each([
      [{ config: { ttl_secs: 59 } }, ['body', 'config', 'ttl_secs']],
      [{ config: { ttl_secs: 86_401 } }, ['body', 'config', 'ttl_secs']],
      [{ config: { idle_timeout_secs: 29 } }, ['body', 'config', 'idle_timeout_secs']],
      [{ config: { idle_timeout_secs: 3_601 } }, ['body', 'config', 'idle_timeout_secs']],
      [{ config: { max_messages: 9 } }, ['body', 'config', 'max_messages']],
      [{ config: { max_messages: 1_001 } }, ['body', 'config', 'max_messages']],
      [{ expires_at: '2001-01-01T00:00:00Z' }, ['body', 'expires_at']],
    ])('session config %j → 422 naming the field, nothing stored', async (extra, loc) => {
      const before = await countAll('/sessions');
      const response = await json(`${url}/sessions`, 'POST', { agent_id: agentId, ...extra });
      expect(response.status).toBe(422);
      expect((response.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toContainEqual(loc);
      expect(await countAll('/sessions')).toBe(before);
    });

    it('a session must reference an existing agent (422 on agent_id)', async () => {
      const response = await json(`${url}/sessions`, 'POST', { agent_id: 'missing' });
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body)).toContain('agent_id must reference an existing agent');
    });

    // Customer messages start turns (see turns/turn.int.spec.ts); these tests use events that do not.
    it('stores events with contiguous offsets and filters them by kind, source and offset', async () => {
      await json(`${url}/customers`, 'POST', { id: 'c1', name: 'Customer 1' });
      const session = (await json(`${url}/sessions`, 'POST', { agent_id: agentId, customer_id: 'c1' })).body as {
        id: string;
        state: string;
      };
      expect(session.state).toBe('Active');
      const posted = [];
      posted.push(
        (
          await json(`${url}/sessions/${session.id}/events`, 'POST', {
            kind: 'message',
            source: 'human_agent_on_behalf_of_ai_agent',
            message: 'hello',
          })
        ).body,
      );
      posted.push(
        (await json(`${url}/sessions/${session.id}/events`, 'POST', { kind: 'custom', source: 'customer_ui', data: { page: '/cart' } }))
          .body,
      );
      posted.push(
        (
          await json(`${url}/sessions/${session.id}/events`, 'POST', {
            kind: 'message',
            source: 'human_agent',
            message: 'hi, I am Bob',
            participant: { display_name: 'Bob' },
          })
        ).body,
      );
      expect(posted.map((e) => (e as { offset: number }).offset)).toEqual([0, 1, 2]);
      const all = (await json(`${url}/sessions/${session.id}/events`)).body as { kind: string; source: string }[];
      expect(all.map((e) => `${e.kind}/${e.source}`)).toEqual([
        'message/human_agent_on_behalf_of_ai_agent',
        'custom/customer_ui',
        'message/human_agent',
      ]);
      expect(((await json(`${url}/sessions/${session.id}/events?kinds=message&source=human_agent`)).body as unknown[]).length).toBe(1);
      expect(((await json(`${url}/sessions/${session.id}/events?min_offset=2`)).body as { offset: number }[]).map((e) => e.offset)).toEqual(
        [2],
      );
    });

    it('validates events: message kind needs a message, enums are checked, unknown session is 404', async () => {
      const session = (await json(`${url}/sessions`, 'POST', { agent_id: agentId })).body as { id: string };
      const missing = await json(`${url}/sessions/${session.id}/events`, 'POST', { kind: 'message', source: 'customer' });
      expect(missing.status).toBe(422);
      expect(JSON.stringify(missing.body)).toContain('message is required for kind');
      expect((await json(`${url}/sessions/${session.id}/events`, 'POST', { kind: 'shout', source: 'customer', message: 'x' })).status).toBe(
        422,
      );
      expect((await json(`${url}/sessions/${session.id}/events?kinds=shout`)).status).toBe(422);
      expect((await json(`${url}/sessions/${session.id}/events`)).body).toEqual([]);
      expect((await json(`${url}/sessions/nope/events`, 'POST', { kind: 'message', source: 'customer', message: 'x' })).status).toBe(404);
    });

    it('long-polls: returns as soon as a matching event is appended, and 504 when none comes in time', async () => {
      const session = (await json(`${url}/sessions`, 'POST', { agent_id: agentId })).body as { id: string };
      const waiting = json(`${url}/sessions/${session.id}/events?min_offset=0&kinds=message&wait_for_data=30`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await json(`${url}/sessions/${session.id}/events`, 'POST', { kind: 'custom', source: 'system', data: {} });
      await json(`${url}/sessions/${session.id}/events`, 'POST', { kind: 'message', source: 'human_agent', message: 'are you there?' });
      const result = await waiting;
      expect(result.status).toBe(200);
      expect((result.body as { offset: number; kind: string }[]).map((e) => [e.offset, e.kind])).toEqual([[1, 'message']]);
      expect((await json(`${url}/sessions/${session.id}/events?min_offset=5&wait_for_data=1`)).status).toBe(504);
    });
  });
});

const [nats, redis] = await Promise.all([probeNats(), probeRedis()]);
describeWithService(nats.available ? redis : nats, 'two gateway processes (distributed: NATS, Redis, one event log)', () => {
  let dir: string;
  let gateways: { app: INestApplication; url: string }[];
  const namespace = `test-${randomUUID()}`;
  const redisPrefix = `test-${randomUUID()}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-gw2-'));
    const env = {
      TENET_MODE: 'distributed',
      TENET_DATA_DIR: dir,
      NATS_URL: natsUrl(),
      REDIS_URL: redisUrl(),
      TENET_REDIS_PREFIX: redisPrefix,
      TENET_NAMESPACE: namespace,
      TENET_AUTH: 'off',
    };
    gateways = [await startGateway(env), await startGateway(env)];
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.app.close();
    await deleteStreams(
      natsUrl(),
      tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
    );
    await deleteRedisKeys(redisUrl(), redisPrefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('wakes a long-poll on one gateway when the event is appended through the other', async () => {
    const a = gateways[0]!;
    const b = gateways[1]!;
    const agentId = ((await json(`${a.url}/agents`, 'POST', { name: 'Support' })).body as { id: string }).id;
    const sessionId = ((await json(`${b.url}/sessions`, 'POST', { agent_id: agentId })).body as { id: string }).id;
    const waiting = json(`${a.url}/sessions/${sessionId}/events?min_offset=0&wait_for_data=30`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await json(`${b.url}/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message: 'hello from b' });
    const result = await waiting;
    expect(result.status).toBe(200);
    expect((result.body as { data: { message: string } }[])[0]!.data.message).toBe('hello from b');
  });

  it('an idle session goes Idle through a BullMQ timer, and customer activity makes it Active again', async () => {
    const a = gateways[0]!;
    const agentId = ((await json(`${a.url}/agents`, 'POST', { name: 'Timers' })).body as { id: string }).id;
    // 30 s is the minimum idle timeout (docs/data-model.md#sessions).
    const created = await json(`${a.url}/sessions`, 'POST', { agent_id: agentId, config: { idle_timeout_secs: 30 } });
    expect(created).toMatchObject({ status: 201 });
    const sessionId = (created.body as { id: string }).id;
    expect(((await json(`${a.url}/sessions/${sessionId}`)).body as { state: string }).state).toBe('Active');
    await eventually(async () => expect(((await json(`${a.url}/sessions/${sessionId}`)).body as { state: string }).state).toBe('Idle'), {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    await json(`${a.url}/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message: 'back again' });
    // Active again — or already AwaitingInput, if the agent's reply to the message came first.
    expect(['Active', 'AwaitingInput']).toContain(((await json(`${a.url}/sessions/${sessionId}`)).body as { state: string }).state);
  }, 90_000);

  it('a session expires through a BullMQ timer at expires_at, and an expired session accepts no events', async () => {
    const a = gateways[0]!;
    const agentId = ((await json(`${a.url}/agents`, 'POST', { name: 'Expiry' })).body as { id: string }).id;
    // expires_at caps the lifetime below ttl_secs, which lets the test wait seconds, not a minute.
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const created = await json(`${a.url}/sessions`, 'POST', { agent_id: agentId, expires_at: expiresAt, config: { ttl_secs: 3_600 } });
    expect(created).toMatchObject({ status: 201 });
    const sessionId = (created.body as { id: string }).id;
    expect(((await json(`${a.url}/sessions/${sessionId}`)).body as { state: string }).state).toBe('Active');
    await eventually(async () => expect(((await json(`${a.url}/sessions/${sessionId}`)).body as { state: string }).state).toBe('Expired'), {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    const refused = await json(`${a.url}/sessions/${sessionId}/events`, 'POST', {
      kind: 'message',
      source: 'customer',
      message: 'still there?',
    });
    expect(refused.status).toBe(409);
  }, 30_000);

  it('2 gateways × 500 concurrent events on one session → offsets 0..999 exactly', async () => {
    const a = gateways[0]!;
    const b = gateways[1]!;
    const agentId = ((await json(`${a.url}/agents`, 'POST', { name: 'Load' })).body as { id: string }).id;
    const sessionId = ((await json(`${a.url}/sessions`, 'POST', { agent_id: agentId })).body as { id: string }).id;
    const post = (base: string, i: number) =>
      json(`${base}/sessions/${sessionId}/events`, 'POST', { kind: 'custom', source: 'system', data: { i } });
    // 1000 appends, 50 in flight at a time, alternating between the two processes: every append still races others.
    const results = await inParallel(1000, 50, (i) => (i % 2 === 0 ? post(a.url, i) : post(b.url, i)));
    expect(results.every((r) => r.status === 201)).toBe(true);
    const offsets = results.map((r) => (r.body as { offset: number }).offset).sort((x, y) => x - y);
    expect(offsets).toEqual([...Array(1000).keys()]);
    const stored = (await json(`${b.url}/sessions/${sessionId}/events`)).body as { offset: number }[];
    expect(stored.map((e) => e.offset)).toEqual([...Array(1000).keys()]);
  }, 180_000);
});
