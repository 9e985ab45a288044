import type { EventFilter, EventView, SessionEventsService } from '@tenet/session-data-access';

/** How long a stream may stay quiet before a keep-alive comment is sent (proxies drop silent connections). */
export const KEEP_ALIVE_MS = 15_000;

/** Parlant's frame for one event: a single `data:` line holding the event JSON (no `id:` or `event:` field). */
export const eventFrame = (event: EventView): string => `data: ${JSON.stringify(event)}\n\n`;

/** An SSE comment line: every SSE client ignores it, but it keeps the connection from looking idle. */
export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

const encoder = new TextEncoder();

/** Parlant's response headers (Starlette adds the charset to every text/* media type). */
export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
};

export interface EventStreamOptions {
  /** Parlant's wait_for_data: the stream ends after this long without a matching event (0: once the backlog is sent). */
  idleMs: number;
  /** The wait for the next event is cut into slices this long, each quiet one answered with a keep-alive comment. */
  keepAliveMs?: number;
  /** Ends the stream cleanly when aborted (the app shutting down), so that the HTTP server can close. */
  signal?: AbortSignal;
}

/**
 * The Server-Sent Events body of `GET /sessions/{id}/events?sse=true`: every matching event from
 * `filter.minOffset` in offset order, then each one appended later, as `data:` frames. It ends after
 * `idleMs` without an event, on `signal`, or when the client goes away (Nest cancels the body then, which
 * aborts the pending wait at once, so no wake-up listener or timer outlives the connection).
 *
 * Pull-based: the next wait starts only once the response has taken the previous frames. Yields UTF-8 bytes,
 * so that it can be the body of a web `Response`.
 */
export function sessionEventStream(
  events: Pick<SessionEventsService, 'list'>,
  sessionId: string,
  filter: EventFilter,
  options: EventStreamOptions,
): ReadableStream<Uint8Array> {
  const { idleMs, keepAliveMs = KEEP_ALIVE_MS, signal } = options;
  const stop = new AbortController(); // aborts the wait in progress: the client left, or the app shuts down
  const onShutdown = (): void => stop.abort();
  signal?.addEventListener('abort', onShutdown, { once: true });
  const release = (): void => signal?.removeEventListener('abort', onShutdown);

  let minOffset = filter.minOffset;
  let idleUntil = Date.now() + idleMs;
  let cancelled = false;

  /** The next text to send, or `undefined` when the stream is over. */
  const next = async (): Promise<string | undefined> => {
    if (stop.signal.aborted) return undefined;
    const slice = Math.max(0, Math.min(keepAliveMs, idleUntil - Date.now()));
    // `list` answers at once when events exist, else waits on the bus (never polls) up to `slice`.
    const found = await events.list(sessionId, { ...filter, minOffset }, slice, stop.signal);
    if (stop.signal.aborted) return undefined;
    const last = found?.at(-1);
    if (found && last) {
      minOffset = last.offset + 1; // events come in offset order; never send one twice
      idleUntil = Date.now() + idleMs;
      return found.map(eventFrame).join('');
    }
    return Date.now() >= idleUntil ? undefined : KEEP_ALIVE_FRAME;
  };

  return new ReadableStream<Uint8Array>({
    // An empty first chunk makes Nest send the status and headers at once, as Parlant does, even when
    // no event exists yet.
    start: (controller) => controller.enqueue(new Uint8Array(0)),
    pull: async (controller) => {
      let text: string | undefined;
      try {
        text = await next();
      } catch (error) {
        release();
        throw error; // errors the stream; Nest aborts the response
      }
      if (cancelled) return;
      if (text === undefined) {
        release();
        controller.close();
      } else {
        controller.enqueue(encoder.encode(text));
      }
    },
    cancel: () => {
      cancelled = true;
      release();
      stop.abort();
    },
  });
}
