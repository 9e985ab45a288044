import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { contractFor, MATCHER_COMPOSE_SUBJECT, sessionMetaStreamId, sessionStreamId, type ComposeReplyRequestV1 } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import type { DeliveredMessage, MessageBus } from '@tenet/messaging';
import { EVENT_STORE, MESSAGE_BUS } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { gatewayHttp } from './support/gateway-http.js';

interface Session {
  id: string;
  agent_id: string;
  customer_id: string;
  mode: string;
  title?: string;
  metadata: Record<string, unknown>;
  labels: string[];
  consumption_offsets: { client: number };
  state: string;
  status: string;
}
interface Event {
  id: string;
  offset: number;
  kind: string;
  source: string;
  data: { message?: string; status?: string };
  metadata: Record<string, unknown>;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

describe('sessions: update, filters, pagination, ending, hand-off and event edits (all-in-one, offline provider)', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  let store: EventStore;
  const { call, created, details } = gatewayHttp(() => url);
  const newAgent = async (name = 'Support'): Promise<string> => (await created('/agents', { name })).id;
  const newSession = (agentId: string, extra: Record<string, unknown> = {}): Promise<Session> =>
    created<Session>('/sessions', { agent_id: agentId, ...extra });
  const events = async (sessionId: string, query = ''): Promise<Event[]> =>
    (await call(`/sessions/${sessionId}/events${query}`)).body as Event[];
  const say = (sessionId: string, source: string, message: string): Promise<Event> =>
    created<Event>(`/sessions/${sessionId}/events`, { kind: 'message', source, message });
  /** Waits until every turn started in the session has ended (each `acknowledged` has its ready/cancelled/error). */
  const turnsIdle = (sessionId: string): Promise<void> =>
    eventually(
      async () => {
        const statuses = (await events(sessionId, '?kinds=status')) as (Event & { correlation_id: string })[];
        const open = statuses.filter(
          (e) =>
            e.data.status === 'acknowledged' &&
            !statuses.some((f) => f.correlation_id === e.correlation_id && ['ready', 'cancelled', 'error'].includes(f.data.status ?? '')),
        );
        expect(open).toEqual([]);
      },
      { timeoutMs: 60_000 },
    );

  /** Every compose request a turn sent to the matcher, by session. */
  const composed: ComposeReplyRequestV1[] = [];
  const historyOf = (sessionId: string): string[] =>
    (composed.filter((r) => r.session_id === sessionId).at(-1)?.history ?? []).map((m) => `${m.role}:${m.content}`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-sessions-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' }));
    store = app.get<EventStore>(EVENT_STORE);
    const bus = app.get<MessageBus>(MESSAGE_BUS);
    const request = bus.request.bind(bus);
    jest.spyOn(bus, 'request').mockImplementation((subject, data, options) => {
      if (subject === MATCHER_COMPOSE_SUBJECT) composed.push(data as ComposeReplyRequestV1);
      return request(subject, data, options);
    });
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('PATCH changes title, metadata (set/unset), labels (upsert/remove), consumption offsets and mode', async () => {
    const agent = await newAgent();
    const session = await newSession(agent, { title: 'First', metadata: { a: 1, b: 2 }, labels: ['vip', 'billing'] });
    const patched = await call(`/sessions/${session.id}`, 'PATCH', {
      title: 'Renamed',
      metadata: { set: { c: { nested: true } }, unset: ['a'] },
      labels: { upsert: ['urgent', 'vip'], remove: ['billing'] },
      consumption_offsets: { client: 3 },
      mode: 'manual',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      title: 'Renamed',
      metadata: { b: 2, c: { nested: true } },
      labels: ['vip', 'urgent'],
      consumption_offsets: { client: 3 },
      mode: 'manual',
      status: 'active',
    });
    expect((await call(`/sessions/${session.id}`)).body).toEqual(patched.body);
  });

  it('PATCH refuses bad values with a 422 naming the field, and answers 404 for an unknown session', async () => {
    const session = await newSession(await newAgent());
    const bad = await call(`/sessions/${session.id}`, 'PATCH', { mode: 'sleepy', consumption_offsets: { client: -1 }, agent_id: 'nope' });
    expect(bad.status).toBe(422);
    expect(
      details(bad)
        .map((d) => d.loc.join('.'))
        .sort(),
    ).toEqual(['body.consumption_offsets.client', 'body.mode']);
    const missingAgent = await call(`/sessions/${session.id}`, 'PATCH', { agent_id: 'no-such-agent' });
    expect(missingAgent.status).toBe(422);
    expect(details(missingAgent)[0]!.loc).toEqual(['body', 'agent_id']);
    expect((await call('/sessions/nope', 'PATCH', { title: 'x' })).status).toBe(404);
  });

  it('GET /sessions filters by agent_id, customer_id and labels, and paginates with limit/cursor', async () => {
    const [a, b] = [await newAgent('A'), await newAgent('B')];
    const customer = (await created('/customers', { name: 'Ann' })).id;
    const ofA = [await newSession(a), await newSession(a, { customer_id: customer, labels: ['x'] }), await newSession(a)];
    await newSession(b, { customer_id: customer });
    const listed = (await call(`/sessions?agent_id=${a}`)).body as Session[];
    expect(listed.map((s) => s.id)).toEqual(ofA.map((s) => s.id));
    expect(((await call(`/sessions?agent_id=${a}&customer_id=${customer}`)).body as Session[]).map((s) => s.id)).toEqual([ofA[1]!.id]);
    expect((await call(`/sessions?customer_id=${customer}`)).body as Session[]).toHaveLength(2);
    expect(((await call(`/sessions?agent_id=${a}&labels=x`)).body as Session[]).map((s) => s.id)).toEqual([ofA[1]!.id]);

    const first = (await call(`/sessions?agent_id=${a}&limit=2`)).body as {
      items: Session[];
      total_count: number;
      has_more: boolean;
      next_cursor: string;
    };
    expect(first).toMatchObject({ total_count: 3, has_more: true });
    expect(first.items.map((s) => s.id)).toEqual(ofA.slice(0, 2).map((s) => s.id));
    const second = (await call(`/sessions?agent_id=${a}&limit=2&cursor=${first.next_cursor}`)).body as {
      items: Session[];
      has_more: boolean;
      next_cursor?: string;
    };
    expect(second.items.map((s) => s.id)).toEqual([ofA[2]!.id]);
    expect(second.has_more).toBe(false);
    expect(second.next_cursor).toBeUndefined();
    const desc = (await call(`/sessions?agent_id=${a}&limit=1&sort=desc`)).body as { items: Session[] };
    expect(desc.items[0]!.id).toBe(ofA[2]!.id);
    const bad = await call(`/sessions?limit=0&cursor=garbage`);
    expect(bad.status).toBe(422);
    expect(details(bad).map((d) => d.loc.join('.'))).toEqual(['query.limit']);
    expect(details(await call('/sessions?limit=1&cursor=garbage'))[0]!.loc).toEqual(['query', 'cursor']);
  });

  it('DELETE /sessions?agent_id&customer_id deletes only the matching sessions; their streams stay in the log', async () => {
    const [a, b] = [await newAgent('A'), await newAgent('B')];
    const gone = [await newSession(a, { customer_id: 'guest' }), await newSession(a)];
    const kept = await newSession(b);
    expect((await call('/sessions', 'DELETE')).status).toBe(422);
    expect((await call(`/sessions?agent_id=${a}&customer_id=guest`, 'DELETE')).status).toBe(204);
    expect((await call(`/sessions?agent_id=${a}`)).body as Session[]).toEqual([]);
    expect((await call(`/sessions/${gone[0]!.id}`)).status).toBe(404);
    expect((await call(`/sessions/${kept.id}`)).status).toBe(200);
    const meta = await store.readStream(sessionMetaStreamId(gone[0]!.id));
    expect(meta[0]!.type).toBe('SessionOpened');
    expect(meta.at(-1)!.type).toBe('SessionDeleted');
  });

  it('ends a session as completed or abandoned; an ended session takes no events and cannot end twice', async () => {
    const agent = await newAgent();
    const done = await newSession(agent);
    const ended = await call(`/sessions/${done.id}`, 'PATCH', { status: 'completed' });
    expect(ended.body).toMatchObject({ state: 'Completed', status: 'completed' });
    expect((await call(`/sessions/${done.id}/events`, 'POST', { kind: 'message', source: 'customer', message: 'hi' })).status).toBe(409);
    expect((await call(`/sessions/${done.id}`, 'PATCH', { status: 'abandoned' })).status).toBe(409);
    const left = await newSession(agent);
    expect((await call(`/sessions/${left.id}`, 'PATCH', { status: 'abandoned' })).body).toMatchObject({
      state: 'Completed',
      status: 'abandoned',
    });
    expect((await call(`/sessions/${left.id}`, 'PATCH', { status: 'paused' })).status).toBe(422);
  });

  it('hand-off: manual mode silences the agent while human agents answer; back in auto the agent replies with the whole history', async () => {
    const agent = await newAgent();
    await created('/guidelines', {
      condition: 'The customer asks about refunds or their money back',
      action: 'Explain the 30-day refund policy',
      tags: [`agent:${agent}`],
    });
    const session = await newSession(agent);
    const bus = app.get<MessageBus>(MESSAGE_BUS);
    const published: unknown[] = [];
    const subscription = await bus.consume(
      { durable: `handoff-${randomUUID()}`, filterSubject: `tenet.v1.session.${session.id}.mode_changed` },
      async (message: DeliveredMessage) => {
        published.push(message.data);
      },
    );

    await say(session.id, 'customer', 'Hello there');
    await turnsIdle(session.id);
    expect((await call(`/sessions/${session.id}`)).body).toMatchObject({ state: 'AwaitingInput' }); // the lifecycle state after the reply
    expect((await call(`/sessions/${session.id}`, 'PATCH', { mode: 'manual' })).status).toBe(200);
    const before = (await events(session.id)).length;
    for (const [customer, human] of [
      ['I want my money back', 'Hi, I am Sam from billing, let me look.'],
      ['Order 12345', 'Found it.'],
      ['Thanks', 'Refund issued.'],
    ] as const) {
      await say(session.id, 'customer', customer);
      await say(session.id, human === 'Found it.' ? 'human_agent_on_behalf_of_ai_agent' : 'human_agent', human);
    }
    const manualEnd = (await events(session.id)).length;

    await call(`/sessions/${session.id}`, 'PATCH', { mode: 'auto' });
    await say(session.id, 'customer', 'Can you also explain the refund policy?');
    await turnsIdle(session.id);
    const after = await events(session.id);
    // Checked after a later turn has ended: a turn started in manual mode would have left its statuses by now.
    const manual = after.slice(before, manualEnd);
    expect(manual.map((e) => `${e.source}:${e.kind}`)).toEqual([
      'customer:message',
      'human_agent:message',
      'customer:message',
      'human_agent_on_behalf_of_ai_agent:message',
      'customer:message',
      'human_agent:message',
    ]);
    const reply = after.filter((e) => e.kind === 'message' && e.source === 'ai_agent').at(-1)!;
    expect(reply.offset).toBeGreaterThan(manual.at(-1)!.offset);
    const ready = after.filter((e) => e.kind === 'status' && e.data.status === 'ready').at(-1)!;
    expect(ready.offset).toBeGreaterThan(reply.offset);
    // The turn's history holds the whole conversation, the human agents' messages included.
    expect(historyOf(session.id)).toEqual([
      'customer:Hello there',
      expect.stringMatching(/^agent:/),
      'customer:I want my money back',
      'agent:Hi, I am Sam from billing, let me look.',
      'customer:Order 12345',
      'agent:Found it.',
      'customer:Thanks',
      'agent:Refund issued.',
    ]);

    // Both changes are published, versioned and valid against the contract.
    await eventually(() => expect(published).toHaveLength(2));
    const validate = addFormats(new Ajv2020({ strict: false })).compile(contractFor('session.mode_changed')!.schema);
    expect(published.every((p) => validate(p))).toBe(true);
    expect(published.map((p) => (p as { data: { mode: string; reason: string } }).data)).toEqual([
      expect.objectContaining({ mode: 'manual', previous_mode: 'auto', reason: 'api', session_id: session.id }),
      expect.objectContaining({ mode: 'auto', previous_mode: 'manual', reason: 'api' }),
    ]);
    await subscription.stop();
  });

  it('a guideline with metadata.handoff: true hands the session to a human after its reply', async () => {
    const agent = await newAgent();
    const handoff = await created('/guidelines', {
      condition: 'The customer asks to talk to a human person',
      action: 'Tell them a person will take over',
      tags: [`agent:${agent}`],
      metadata: { handoff: true },
    });
    expect((await call('/guidelines', 'POST', { condition: 'x', action: 'y', metadata: { handoff: 'yes' } })).status).toBe(422);
    const session = await newSession(agent);
    await say(session.id, 'customer', 'Please let me talk to a human person');
    await turnsIdle(session.id);
    const all = await events(session.id);
    expect(all.some((e) => e.source === 'ai_agent' && e.kind === 'message')).toBe(true);
    expect((await call(`/sessions/${session.id}`)).body).toMatchObject({ mode: 'manual' });
    const change = (await store.readStream(sessionMetaStreamId(session.id))).find((e) => e.type === 'SessionModeChanged');
    expect(change?.data).toMatchObject({ mode: 'manual', reason: 'guideline', guideline_id: handoff.id });
    const count = all.length;
    await say(session.id, 'customer', 'Hello?');
    // Silent: no turn started (a human agent's message after it lands right behind it).
    await say(session.id, 'human_agent', 'Sam here');
    await turnsIdle(session.id);
    expect((await events(session.id)).slice(count).map((e) => e.source)).toEqual(['customer', 'human_agent']);
  });

  it('reads and patches one event, and deletes events from min_offset with a tombstone the views and the next turn honour', async () => {
    const agent = await newAgent();
    const session = await newSession(agent);
    await call(`/sessions/${session.id}`, 'PATCH', { mode: 'manual' });
    const kept = await say(session.id, 'human_agent', 'kept');
    const dropped = await say(session.id, 'customer', 'secret order 999');
    await say(session.id, 'human_agent', 'dropped too');

    expect((await call(`/sessions/${session.id}/events/${kept.id}`)).body).toEqual(kept);
    expect((await call(`/sessions/${session.id}/events/nope`)).status).toBe(404);
    const patched = await call(`/sessions/${session.id}/events/${kept.id}`, 'PATCH', { metadata: { set: { rating: 5, note: 'x' } } });
    expect(patched.body).toMatchObject({ id: kept.id, metadata: { rating: 5, note: 'x' } });
    await call(`/sessions/${session.id}/events/${kept.id}`, 'PATCH', { metadata: { unset: ['note'] } });
    expect((await events(session.id))[0]!.metadata).toEqual({ rating: 5 });

    expect((await call(`/sessions/${session.id}/events`, 'DELETE')).status).toBe(422);
    expect((await call(`/sessions/${session.id}/events?min_offset=${dropped.offset}`, 'DELETE')).status).toBe(204);
    expect((await events(session.id)).map((e) => e.id)).toEqual([kept.id]);
    // Deleting what is already deleted appends no second tombstone.
    const metaLength = (await store.readStream(sessionMetaStreamId(session.id))).length;
    expect((await call(`/sessions/${session.id}/events?min_offset=${dropped.offset + 1}`, 'DELETE')).status).toBe(204);
    expect(await store.readStream(sessionMetaStreamId(session.id))).toHaveLength(metaLength);
    expect((await call(`/sessions/nope/events?min_offset=0`, 'DELETE')).status).toBe(404);
    expect((await call(`/sessions/${session.id}/events/${dropped.id}`)).status).toBe(404);
    expect((await call(`/sessions/${session.id}/events?min_offset=1&wait_for_data=0`)).body).toEqual([]);
    // New events after the delete are visible, with new offsets (offsets are never reused in the log).
    const later = await say(session.id, 'human_agent', 'after');
    expect(later.offset).toBe(3);
    expect((await events(session.id)).map((e) => e.id)).toEqual([kept.id, later.id]);
    // The log keeps every original event.
    const logged = await store.readStream(sessionStreamId(session.id));
    expect(logged.map((e) => e.id)).toEqual([kept.id, dropped.id, expect.any(String), later.id]);
    expect((logged[1]!.data as { data: { message: string } }).data.message).toBe('secret order 999');

    // The next turn's history leaves the deleted message out.
    await call(`/sessions/${session.id}`, 'PATCH', { mode: 'auto' });
    await say(session.id, 'customer', 'hello again');
    await turnsIdle(session.id);
    expect((await events(session.id)).some((e) => e.source === 'ai_agent' && e.kind === 'message')).toBe(true);
    expect(historyOf(session.id)).toEqual(['agent:kept', 'agent:after']);
  });
});
