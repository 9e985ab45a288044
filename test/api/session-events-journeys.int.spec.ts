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
    expect((await call(`/sessions/${session.id}/events`, 'POST', { kind: 'custom', source: 'system', data: { note: 'before' } })).status).toBe(201);
    // The journey engine's record, as the turn appends it (the engine's own path is covered by the journey suites).
    const activated = { journeyId: 'returns', sessionId: session.id, step: 'ask_order', resumed: false, at: Date.now(), event: 'journey_activated', journey_id: 'returns' };
    await app.get<EventStore>(EVENT_STORE).append(`session-${session.id}`, [{ type: 'journey_transition', data: { session_id: session.id, source: 'system', correlation_id: 'corr_test', data: activated } }]);
    expect((await call(`/sessions/${session.id}/events`, 'POST', { kind: 'custom', source: 'system', data: { note: 'after' } })).status).toBe(201);

    const client = new ParlantClient({ environment: url });
    const all = await client.sessions.listEvents(session.id, { minOffset: 0 });
    expect(strict.failures).toEqual([]);
    expect(all.map((e) => e.offset)).toEqual([0, 1, 2]);
    expect(all[1]).toMatchObject({ kind: 'custom', source: 'system', correlationId: 'corr_test', data: { type: 'journey_transition', event: 'journey_activated', journey_id: 'returns', step: 'ask_order' } });

    const journeysOnly = await call<{ offset: number; kind: string }[]>(`/sessions/${session.id}/events?kinds=journey_transition`);
    expect(journeysOnly.status).toBe(200);
    expect(journeysOnly.body.map((e) => e.offset)).toEqual([1]);
    const custom = await call<{ offset: number }[]>(`/sessions/${session.id}/events?kinds=custom`);
    expect(custom.body.map((e) => e.offset)).toEqual([0, 1, 2]);
    const messages = await call<{ offset: number }[]>(`/sessions/${session.id}/events?kinds=message`);
    expect(messages.body).toEqual([]);
    expect((await call(`/sessions/${session.id}/events?kinds=shout`)).status).toBe(422);
  });
});
