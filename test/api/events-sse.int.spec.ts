import type { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadPlatformConfig, PlatformModule } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { CatalogHttpModule } from '@tenet/catalog-http';
import { configureGatewayHttp } from '@tenet/edge';
import { SessionGatewayModule } from '@tenet/session-gateway';
import { SessionEventsService, type EventView } from '@tenet/session-data-access';

/** The gateway on its own, embedded adapters, as the hosts compose it (no matcher: these tests start no turn). */
async function startGateway(dir: string): Promise<{ app: INestApplication; url: string }> {
  @Module({
    imports: [
      PlatformModule.forRoot(loadPlatformConfig({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }, 'events-sse-test')),
      CatalogHttpModule,
      SessionGatewayModule,
    ],
  })
  class Host {}
  const app = await NestFactory.create(Host, { logger: false });
  configureGatewayHttp(app);
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

const json = async (url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
};

/** One SSE frame: its fields in order (`[name, value]`; a comment line is `['', text]`). */
type Frame = [string, string][];

/** A minimal SSE client: frames are separated by a blank line, fields are `name: value` lines. */
async function openStream(url: string): Promise<{ response: Response; next: () => Promise<Frame | undefined>; close: () => void }> {
  const abort = new AbortController();
  const response = await fetch(url, { signal: abort.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<Frame | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return block.split('\n').map((line): [string, string] => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
        });
      }
      const { done, value } = await reader.read();
      if (done) {
        expect(buffer).toBe(''); // no half frame at the end
        return undefined;
      }
      buffer += decoder.decode(value, { stream: true });
    }
  };
  return { response, next, close: () => abort.abort() };
}

/** The event a `data:` frame carries; any other field (id, event, a comment) fails the test. */
const eventOf = (frame: Frame | undefined): EventView => {
  expect(frame?.map(([field]) => field)).toEqual(['data']);
  return JSON.parse(frame![0]![1]) as EventView;
};

describe('GET /sessions/{id}/events?sse=true (Parlant Server-Sent Events)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let agentId: string;
  let service: SessionEventsService;
  let pendingLists = 0;

  /** Wake-up listeners a session has: one per wait in progress. */
  const listeners = (sessionId: string): number => (service as unknown as { wakeups: EventEmitter }).wakeups.listenerCount(sessionId);
  const newSession = async (): Promise<string> =>
    ((await json(`${url}/sessions`, 'POST', { agent_id: agentId })).body as { id: string }).id;
  const post = async (sessionId: string, event: Record<string, unknown>): Promise<EventView> => {
    const response = await json(`${url}/sessions/${sessionId}/events`, 'POST', event);
    expect(response.status).toBe(201);
    return response.body as EventView;
  };
  // Events that start no turn (a customer message would).
  const message = (text: string) => ({ kind: 'message', source: 'human_agent', message: text });
  const custom = (data: Record<string, unknown>) => ({ kind: 'custom', source: 'customer_ui', data });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-sse-'));
    ({ app, url } = await startGateway(dir));
    agentId = ((await json(`${url}/agents`, 'POST', { name: 'Support' })).body as { id: string }).id;
    // Counts the store waits in progress, to see that a closed stream leaves none behind.
    service = app.get(SessionEventsService);
    const list = service.list.bind(service);
    jest.spyOn(service, 'list').mockImplementation(async (...args) => {
      pendingLists++;
      try {
        return await list(...args);
      } finally {
        pendingLists--;
      }
    });
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the existing events in offset order as `data:` frames shaped like the long-poll items, then new ones', async () => {
    const sessionId = await newSession();
    await post(sessionId, message('hello'));
    await post(sessionId, custom({ page: '/cart' }));
    await post(sessionId, message('anything else?'));
    const longPoll = (await json(`${url}/sessions/${sessionId}/events`)).body as EventView[];

    const stream = await openStream(`${url}/sessions/${sessionId}/events?sse=true`);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('cache-control')).toBe('no-cache');
    const backlog = [eventOf(await stream.next()), eventOf(await stream.next()), eventOf(await stream.next())];
    expect(backlog).toEqual(longPoll);
    expect(backlog.map((e) => e.offset)).toEqual([0, 1, 2]);

    const appended = await post(sessionId, message('still there?'));
    expect(eventOf(await stream.next())).toEqual(appended);
    expect(appended.offset).toBe(3);
    stream.close();
  });

  it('sends the headers at once when no event exists yet, and the first event once it is appended', async () => {
    const sessionId = await newSession();
    const stream = await openStream(`${url}/sessions/${sessionId}/events?sse=true`);
    expect(stream.response.status).toBe(200);
    await eventually(() => expect(listeners(sessionId)).toBe(1)); // waiting on the bus, not polling
    const appended = await post(sessionId, custom({ n: 1 }));
    expect(eventOf(await stream.next())).toEqual(appended);
    stream.close();
  });

  it('applies min_offset, kinds and source, before and after the stream opened', async () => {
    const sessionId = await newSession();
    await post(sessionId, message('0'));
    await post(sessionId, custom({ n: 1 }));
    await post(sessionId, message('2'));
    await post(sessionId, { kind: 'message', source: 'human_agent_on_behalf_of_ai_agent', message: '3' });

    const stream = await openStream(`${url}/sessions/${sessionId}/events?sse=true&min_offset=1&kinds=message&source=human_agent`);
    expect(eventOf(await stream.next()).offset).toBe(2);
    await post(sessionId, custom({ n: 4 }));
    await post(sessionId, { kind: 'message', source: 'human_agent_on_behalf_of_ai_agent', message: '5' });
    await post(sessionId, message('6'));
    expect(eventOf(await stream.next())).toMatchObject({ offset: 6, kind: 'message', source: 'human_agent' });
    stream.close();
  });

  it('ends the stream after wait_for_data seconds without a matching event, like Parlant', async () => {
    const sessionId = await newSession();
    await post(sessionId, message('0'));
    // wait_for_data=0: the backlog, then the end.
    const now = await openStream(`${url}/sessions/${sessionId}/events?sse=true&wait_for_data=0`);
    expect(eventOf(await now.next()).offset).toBe(0);
    expect(await now.next()).toBeUndefined();

    const started = Date.now();
    const quiet = await openStream(`${url}/sessions/${sessionId}/events?sse=true&min_offset=1&wait_for_data=1`);
    // No event; a keep-alive comment may come first when the machine is slow to end the stream on time.
    let frame = await quiet.next();
    while (frame?.[0]?.[0] === '') frame = await quiet.next();
    expect(frame).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(listeners(sessionId)).toBe(0);
  });

  it('answers an unknown session with a 404 JSON body, not a stream', async () => {
    const response = await fetch(`${url}/sessions/nope/events?sse=true`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ detail: 'session nope not found' });
  });

  it.each([
    ['sse=maybe', 'sse'],
    ['sse=true&min_offset=-1', 'min_offset'],
    ['sse=true&kinds=shout', 'kinds'],
    ['sse=true&source=robot', 'source'],
    ['sse=true&wait_for_data=301', 'wait_for_data'],
  ])('answers ?%s with 422 naming the parameter', async (query, name) => {
    const sessionId = await newSession();
    const response = await json(`${url}/sessions/${sessionId}/events?${query}`);
    expect(response.status).toBe(422);
    expect((response.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toContainEqual(['query', name]);
  });

  it('reads sse=false (and FastAPI spellings like 0, no, off) as the plain JSON long-poll', async () => {
    const sessionId = await newSession();
    const appended = await post(sessionId, message('hi'));
    for (const value of ['false', '0', 'no', 'off'])
      expect(await json(`${url}/sessions/${sessionId}/events?sse=${value}`)).toEqual({ status: 200, body: [appended] });
  });

  it('stops waiting once the client disconnects: no wake-up listener or store wait is left', async () => {
    const sessionId = await newSession();
    const stream = await openStream(`${url}/sessions/${sessionId}/events?sse=true&wait_for_data=300`);
    await eventually(() => expect([listeners(sessionId), pendingLists]).toEqual([1, 1]));
    stream.close();
    await eventually(() => expect([listeners(sessionId), pendingLists]).toEqual([0, 0]), { timeoutMs: 2_000 });
  });
});

describe('event streams at shutdown', () => {
  it('are ended at once, so that app.close() does not wait for wait_for_data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-sse-'));
    try {
      const { app, url } = await startGateway(dir);
      const agentId = ((await json(`${url}/agents`, 'POST', { name: 'Support' })).body as { id: string }).id;
      const sessionId = ((await json(`${url}/sessions`, 'POST', { agent_id: agentId })).body as { id: string }).id;
      const stream = await openStream(`${url}/sessions/${sessionId}/events?sse=true&wait_for_data=300`);
      const started = Date.now();
      const closed = app.close();
      expect(await stream.next()).toBeUndefined(); // a clean end, not a reset
      expect(Date.now() - started).toBeLessThan(10_000); // not the 300 s wait_for_data
      // The server then still waits for the client to drop its idle keep-alive connection (undici: 4 s).
      await closed;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
