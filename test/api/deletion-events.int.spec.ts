/**
 * Deletes reach subscribers (ADR 0021): deleting events of a session and deleting sessions append tombstones to the
 * session's record stream, which the relay publishes as `session.events_deleted` and `session.deleted` — versioned,
 * valid against their contracts — while the log keeps every original event.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { contractFor, sessionStreamId } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import type { DeliveredMessage, MessageBus } from '@tenet/messaging';
import { EVENT_STORE, MESSAGE_BUS } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { gatewayHttp } from './support/gateway-http.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

interface Published {
  type: string;
  version: number;
  data: Record<string, unknown>;
}

describe('published deletions (all-in-one, embedded adapters)', () => {
  let dir: string;
  let app: INestApplication;
  let url = '';
  const { call, created } = gatewayHttp(() => url);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-deletions-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline', TENET_DEMO: 'off' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every event published for the session from now on. */
  async function publishedFor(sessionId: string): Promise<{ seen: Published[]; stop: () => Promise<void> }> {
    const seen: Published[] = [];
    const subscription = await app
      .get<MessageBus>(MESSAGE_BUS)
      .consume(
        { durable: `deletions-${randomUUID()}`, filterSubject: `tenet.v1.session.${sessionId}.>` },
        async (message: DeliveredMessage) => {
          seen.push(message.data as Published);
        },
      );
    return { seen, stop: () => subscription.stop() };
  }

  const valid = (event: Published): unknown[] => {
    const validate = ajv.compile(contractFor(event.type)!.schema);
    return validate(event) ? [] : (validate.errors ?? []);
  };

  it('DELETE /sessions/{id}/events publishes session.events_deleted with the hidden range; the log keeps the events', async () => {
    const agent = await created<{ id: string }>('/agents', { name: 'Deletes' });
    const session = await created<{ id: string }>('/sessions', { agent_id: agent.id });
    const { seen, stop } = await publishedFor(session.id);
    for (const n of [1, 2, 3]) await created(`/sessions/${session.id}/events`, { kind: 'custom', source: 'customer_ui', data: { n } });
    expect((await call(`/sessions/${session.id}/events?min_offset=1`, 'DELETE')).status).toBe(204);
    expect(((await call(`/sessions/${session.id}/events`)).body as unknown[]).length).toBe(1);

    const deleted = await eventually(() => {
      const found = seen.find((e) => e.type === 'session.events_deleted');
      expect(found).toBeDefined();
      return found!;
    });
    expect(deleted).toMatchObject({ version: 1, data: { session_id: session.id, min_offset: 1, before_offset: 3 } });
    expect(valid(deleted)).toEqual([]);
    // The originals were published before, and are still in the log.
    await eventually(() => expect(seen.filter((e) => e.type === 'session.custom_event_recorded')).toHaveLength(3));
    expect(await app.get<EventStore>(EVENT_STORE).readStream(sessionStreamId(session.id))).toHaveLength(3);
    await stop();
  });

  it('DELETE /sessions/{id} and DELETE /sessions?agent_id publish session.deleted naming the session, agent and customer', async () => {
    const agent = await created<{ id: string }>('/agents', { name: 'Deletes many' });
    const customer = await created<{ id: string }>('/customers', { name: 'Ann' });
    const one = await created<{ id: string }>('/sessions', { agent_id: agent.id, customer_id: customer.id });
    const two = await created<{ id: string }>('/sessions', { agent_id: agent.id, customer_id: customer.id });
    const watched = await Promise.all([publishedFor(one.id), publishedFor(two.id)]);
    await created(`/sessions/${one.id}/events`, { kind: 'custom', source: 'customer_ui', data: {} });
    expect((await call(`/sessions/${one.id}`, 'DELETE')).status).toBe(204);
    expect((await call(`/sessions?agent_id=${agent.id}&customer_id=${customer.id}`, 'DELETE')).status).toBe(204);
    expect((await call(`/sessions/${two.id}`)).status).toBe(404);

    for (const [i, session] of [one, two].entries()) {
      const deleted = await eventually(() => {
        const found = watched[i]!.seen.filter((e) => e.type === 'session.deleted');
        expect(found).toHaveLength(1);
        return found[0]!;
      });
      expect(deleted).toMatchObject({ version: 1, data: { session_id: session.id, agent_id: agent.id, customer_id: customer.id } });
      expect(valid(deleted)).toEqual([]);
    }
    expect(await app.get<EventStore>(EVENT_STORE).readStream(sessionStreamId(one.id))).toHaveLength(1);
    await Promise.all(watched.map((w) => w.stop()));
  });
});
