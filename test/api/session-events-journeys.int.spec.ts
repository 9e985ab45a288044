/**
 * Everything on a session's stream is readable: the journey engine's `journey_transition` records appear in
 * `GET /sessions/{id}/events` as Parlant's `custom` kind (data typed `journey_transition`), so the offsets a client
 * sees are contiguous, and `kinds=journey_transition` asks for them alone — through parlant-client parsing strictly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { ParlantClient } from 'parlant-client';
import { makeSerializersStrict } from '../e2e/support/strict-parlant.js';
import { gatewayHttp } from './support/gateway-http.js';

describe('session events: journey records on the wire', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  const { call, created } = gatewayHttp(() => url);
  const strict = makeSerializersStrict();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-journey-events-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists journey records as custom events with contiguous offsets, filterable by kinds=journey_transition', async () => {
    const agent = await created<{ id: string }>('/agents', { name: 'Journeys on the wire' });
    const session = await created<{ id: string }>('/sessions', { agent_id: agent.id });
    expect(
      (await call(`/sessions/${session.id}/events`, 'POST', { kind: 'custom', source: 'system', data: { note: 'before' } })).status,
    ).toBe(201);
    // The journey engine's record, as the turn appends it (the engine's own path is covered by the journey suites).
    const activated = {
      journeyId: 'returns',
      sessionId: session.id,
      step: 'ask_order',
      resumed: false,
      at: Date.now(),
      event: 'journey_activated',
      journey_id: 'returns',
    };
    await app
      .get<EventStore>(EVENT_STORE)
      .append(`session-${session.id}`, [
        { type: 'journey_transition', data: { session_id: session.id, source: 'system', correlation_id: 'corr_test', data: activated } },
      ]);
    expect(
      (await call(`/sessions/${session.id}/events`, 'POST', { kind: 'custom', source: 'system', data: { note: 'after' } })).status,
    ).toBe(201);

    const client = new ParlantClient({ environment: url });
    const all = await client.sessions.listEvents(session.id, { minOffset: 0 });
    expect(strict.failures).toEqual([]);
    expect(all.map((e) => e.offset)).toEqual([0, 1, 2]);
    expect(all[1]).toMatchObject({
      kind: 'custom',
      source: 'system',
      correlationId: 'corr_test',
      data: { type: 'journey_transition', event: 'journey_activated', journey_id: 'returns', step: 'ask_order' },
    });

    const offsets = async (kinds: string): Promise<number[]> => {
      const listed = await call(`/sessions/${session.id}/events?kinds=${kinds}`);
      expect(listed.status).toBe(200);
      return (listed.body as { offset: number }[]).map((e) => e.offset);
    };
    expect(await offsets('journey_transition')).toEqual([1]);
    expect(await offsets('custom')).toEqual([0, 1, 2]);
    expect(await offsets('message')).toEqual([]);
    expect((await call(`/sessions/${session.id}/events?kinds=shout`)).status).toBe(422);
  });

  it('GET /sessions/{id} shows the last activity, messages, tokens so far and the journey in progress with its history', async () => {
    const agent = await created<{ id: string }>('/agents', { name: 'Activity' });
    await created('/guidelines', {
      condition: 'The customer asks about refunds',
      action: 'Explain the refund policy',
      tags: [`agent:${agent.id}`],
    });
    const session = await created<{ id: string; creation_utc: string }>('/sessions', { agent_id: agent.id });
    const fresh = (await call(`/sessions/${session.id}`)).body as Record<string, unknown>;
    expect(fresh).toMatchObject({ last_activity_at: session.creation_utc, message_count: 0, usage: { total_tokens: 0, turns: 0 } });
    expect(fresh).not.toHaveProperty('active_journey');

    expect(
      (await call(`/sessions/${session.id}/events`, 'POST', { kind: 'message', source: 'customer', message: 'I want a refund' })).status,
    ).toBe(201);
    const ready = await call(`/sessions/${session.id}/events?min_offset=1&kinds=status&wait_for_data=30`);
    let statuses = ready.body as { offset: number; data: { status: string } }[];
    while (!statuses.some((e) => e.data.status === 'ready')) {
      statuses = [
        ...statuses,
        ...((await call(`/sessions/${session.id}/events?min_offset=${statuses.at(-1)!.offset + 1}&kinds=status&wait_for_data=30`))
          .body as typeof statuses),
      ];
    }
    const activated = {
      journeyId: 'returns',
      sessionId: session.id,
      step: 'ask_order',
      resumed: false,
      at: Date.now(),
      event: 'journey_activated',
      journey_id: 'returns',
    };
    await app
      .get<EventStore>(EVENT_STORE)
      .append(`session-${session.id}`, [
        { type: 'journey_transition', data: { session_id: session.id, source: 'system', correlation_id: 'corr_j', data: activated } },
      ]);

    const view = (await call(`/sessions/${session.id}`)).body as {
      last_activity_at: string;
      message_count: number;
      usage: { input_tokens: number; total_tokens: number; turns: number };
      active_journey: unknown;
    };
    expect(view.message_count).toBe(2);
    expect(Date.parse(view.last_activity_at)).toBeGreaterThan(Date.parse(session.creation_utc));
    expect(view.usage.turns).toBe(1);
    expect(view.usage.total_tokens).toBeGreaterThan(0);
    expect(view.active_journey).toMatchObject({
      journey_id: 'returns',
      status: 'Active',
      step: 'ask_order',
      history: [{ step_id: 'ask_order', entered_at: new Date(activated.at).toISOString() }],
    });
  });
});
