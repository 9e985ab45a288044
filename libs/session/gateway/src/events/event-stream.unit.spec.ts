import { EventEmitter, getEventListeners } from 'node:events';
import { jest } from '@jest/globals';
import type { EventFilter, EventView } from '@tenet/session-data-access';
import { KEEP_ALIVE_FRAME, eventFrame, sessionEventStream } from './event-stream.js';

const event = (offset: number, kind = 'message'): EventView => ({
  id: `e${offset}`,
  source: 'human_agent',
  kind,
  offset,
  creation_utc: '2026-01-01T00:00:00.000Z',
  correlation_id: 'c',
  trace_id: 'c',
  data: {},
  metadata: {},
  deleted: false,
});

/** `SessionEventsService.list` over an array: answers at once when events match, else waits for a push. */
class FakeEvents {
  readonly log: EventView[] = [];
  readonly calls: { minOffset: number; waitMs: number; signal: AbortSignal | undefined }[] = [];
  readonly fail: { error?: Error } = {};
  private readonly appended = new EventEmitter();

  append(...events: EventView[]): void {
    this.log.push(...events);
    this.appended.emit('appended');
  }

  async list(_sessionId: string, filter: EventFilter, waitMs: number, signal?: AbortSignal): Promise<EventView[] | undefined> {
    this.calls.push({ minOffset: filter.minOffset, waitMs, signal });
    if (this.fail.error) throw this.fail.error;
    const found = (): EventView[] =>
      this.log.filter((e) => e.offset >= filter.minOffset && (!filter.kinds || filter.kinds.includes(e.kind)));
    if (found().length > 0 || waitMs === 0) return found();
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.appended.off('appended', done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      this.appended.on('appended', done);
      signal?.addEventListener('abort', done);
    });
    return signal?.aborted || found().length === 0 ? undefined : found();
  }
}

/** Reads a stream chunk by chunk as text; `undefined` once it has ended. */
function textReader(stream: ReadableStream<Uint8Array>): { read: () => Promise<string | undefined>; cancel: () => Promise<void> } {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  return {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? undefined : decoder.decode(value);
    },
    cancel: () => reader.cancel(),
  };
}

describe('sessionEventStream', () => {
  const filter: EventFilter = { minOffset: 0 };

  it('starts with an empty chunk (headers at once), sends the backlog as data frames, then each new event once', async () => {
    const events = new FakeEvents();
    events.append(event(0), event(1));
    const reader = textReader(sessionEventStream(events, 's', filter, { idleMs: 60_000 }));
    expect(await reader.read()).toBe('');
    expect(await reader.read()).toBe(eventFrame(event(0)) + eventFrame(event(1)));
    expect(eventFrame(event(0))).toBe(`data: ${JSON.stringify(event(0))}\n\n`);
    const next = reader.read();
    events.append(event(2));
    expect(await next).toBe(eventFrame(event(2)));
    expect(events.calls.map((c) => c.minOffset).slice(0, 2)).toEqual([0, 2]); // past the last offset sent
    await reader.cancel();
  });

  it('keeps the filter and starts from min_offset', async () => {
    const events = new FakeEvents();
    events.append(event(0), event(1, 'custom'), event(2), event(3));
    const reader = textReader(sessionEventStream(events, 's', { minOffset: 1, kinds: ['message'] }, { idleMs: 0 }));
    await reader.read();
    expect(await reader.read()).toBe(eventFrame(event(2)) + eventFrame(event(3)));
    expect(await reader.read()).toBeUndefined();
  });

  it('with idleMs 0 sends the backlog and ends (Parlant wait_for_data=0)', async () => {
    const events = new FakeEvents();
    events.append(event(0));
    const reader = textReader(sessionEventStream(events, 's', filter, { idleMs: 0 }));
    expect([await reader.read(), await reader.read(), await reader.read()]).toEqual(['', eventFrame(event(0)), undefined]);
    expect(events.calls.map((c) => c.waitMs)).toEqual([0, 0]);
  });

  it('waits in keep-alive slices, sends a comment after each quiet one, and ends after idleMs without an event', async () => {
    // On a virtual clock (timers and Date): a loaded machine's late timers cannot merge the slices.
    jest.useFakeTimers({ now: 0 });
    try {
      const events = new FakeEvents();
      const reader = textReader(sessionEventStream(events, 's', filter, { idleMs: 100, keepAliveMs: 20 }));
      const chunks: string[] = [];
      let ended = false;
      const reading = (async () => {
        for (let chunk = await reader.read(); chunk !== undefined; chunk = await reader.read()) chunks.push(chunk);
        ended = true;
      })();
      for (let elapsed = 0; elapsed < 200 && !ended; elapsed += 20) await jest.advanceTimersByTimeAsync(20);
      await reading;
      expect(Date.now()).toBe(100);
      // Five quiet slices of 20 ms: a keep-alive after each of the first four, the fifth reaches idleMs and ends.
      expect(chunks).toEqual(['', KEEP_ALIVE_FRAME, KEEP_ALIVE_FRAME, KEEP_ALIVE_FRAME, KEEP_ALIVE_FRAME]);
      expect(events.calls.map((c) => c.waitMs)).toEqual([20, 20, 20, 20, 20]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('aborts the wait in progress when the reader cancels (client gone), and waits no more', async () => {
    const events = new FakeEvents();
    const shutdown = new AbortController();
    const reader = textReader(sessionEventStream(events, 's', filter, { idleMs: 60_000, signal: shutdown.signal }));
    await reader.read();
    const pending = reader.read();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events.calls).toHaveLength(1);
    await reader.cancel();
    expect(await pending).toBeUndefined();
    expect(events.calls[0]!.signal?.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events.calls).toHaveLength(1);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('ends cleanly when its signal aborts (shutdown), and leaves no listener on the signal', async () => {
    const events = new FakeEvents();
    const shutdown = new AbortController();
    const reader = textReader(sessionEventStream(events, 's', filter, { idleMs: 60_000, signal: shutdown.signal }));
    await reader.read();
    const pending = reader.read();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    shutdown.abort();
    expect(await pending).toBeUndefined();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('errors the stream when reading the log fails, and releases the signal', async () => {
    const events = new FakeEvents();
    events.fail.error = new Error('store down');
    const shutdown = new AbortController();
    const reader = textReader(sessionEventStream(events, 's', filter, { idleMs: 60_000, signal: shutdown.signal }));
    await reader.read();
    await expect(reader.read()).rejects.toThrow('store down');
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });
});
