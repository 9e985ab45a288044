import { mkdtempSync, rmSync } from 'node:fs';
import { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';

/**
 * ADR 0020: the POST that accepts a customer message validates, appends and answers; the turn it starts
 * runs after the answer is written. Started in the same tick, the turn's first store calls (and, with a fast
 * provider, most of the turn) ran as microtasks ahead of the response: 4.9 ms p50 for an accepting POST on an idle
 * all-in-one host against 0.5 ms for /healthz (bench:turn, load mode).
 */
describe('the accepting POST answers before its turn starts (embedded)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-accept-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline', TENET_DEMO: 'off' }));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${path} → ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  it("writes the 201 before the turn's first store call, and the turn still runs to ready", async () => {
    const agent = await post<{ id: string }>('/agents', { name: 'Support' });
    const session = await post<{ id: string }>('/sessions', { agent_id: agent.id });
    const order: string[] = [];
    const store = app.get<EventStore>(EVENT_STORE, { strict: false });
    const append = store.append.bind(store);
    const end = ServerResponse.prototype.end;
    store.append = (streamId, events, options) => {
      if (streamId === 'turns-open') order.push(`turn:${events[0]?.type ?? ''}`);
      return append(streamId, events, options);
    };
    // The turn registers itself together with `acknowledged` (one appendMany) where the store can.
    const appendMany = store.appendMany?.bind(store);
    if (appendMany)
      store.appendMany = (appends) => {
        for (const { streamId, events } of appends) if (streamId === 'turns-open') order.push(`turn:${events[0]?.type ?? ''}`);
        return appendMany(appends);
      };
    ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
      if (this.req.method === 'POST' && this.req.url?.endsWith('/events')) order.push(`response:${this.statusCode}`);
      return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof end;
    try {
      const accepted = await post<{ offset: number }>(`/sessions/${session.id}/events`, {
        kind: 'message',
        source: 'customer',
        message: 'Hello',
      });
      const statuses: string[] = [];
      for (let offset = accepted.offset + 1; !statuses.includes('ready');) {
        const response = await fetch(`${url}/sessions/${session.id}/events?min_offset=${offset}&kinds=status&wait_for_data=30`);
        const events = (await response.json()) as { offset: number; data: { status: string } }[];
        statuses.push(...events.map((e) => e.data.status));
        if (statuses.includes('error')) throw new Error(`the turn failed: ${statuses.join(', ')}`);
        offset = (events.at(-1)?.offset ?? offset - 1) + 1;
      }
      expect(order.slice(0, 2)).toEqual(['response:201', 'turn:TurnOpened']);
    } finally {
      delete (store as { append?: unknown }).append;
      if (appendMany) store.appendMany = appendMany;
      ServerResponse.prototype.end = end;
    }
  });
});
