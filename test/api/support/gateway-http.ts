import type { EventStore } from '@tenet/event-store';
import { eventually } from '@tenet/testing';

/** A gateway response: its status and parsed JSON body (`undefined` when empty). */
export interface Reply {
  status: number;
  body: unknown;
}

/** The fields of a session event a turn helper reads. */
export interface TurnEvent {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: { status?: unknown };
}

/** One item of a FastAPI-style 422 `detail`. */
export interface Detail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * The HTTP helpers the gateway API suites share. `baseUrl` is read on each call, so the client can be made
 * before `beforeAll` has started the app.
 */
export function gatewayHttp(baseUrl: () => string) {
  const call = async (path: string, method = 'GET', body?: unknown): Promise<Reply> => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
  /** POSTs and expects 201 Created; the created resource. */
  const created = async <T = { id: string }>(path: string, body: unknown): Promise<T> => {
    const reply = await call(path, 'POST', body);
    expect(reply).toMatchObject({ status: 201 });
    return reply.body as T;
  };
  const details = (reply: Reply): Detail[] => (reply.body as { detail: Detail[] }).detail;
  /** Posts a customer message in the session and returns its turn's events once the turn is ready (or failed). */
  const turnEvents = async <E extends TurnEvent = TurnEvent>(sessionId: string, message: string): Promise<E[]> => {
    const customer = (await call(`/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message })).body as E;
    let events: E[] = [];
    for (let offset = customer.offset + 1; ;) {
      const next = (await call(`/sessions/${sessionId}/events?min_offset=${offset}&wait_for_data=30`)).body as E[];
      events = [...events, ...next];
      if (events.some((e) => e.kind === 'status' && (e.data.status === 'ready' || e.data.status === 'error')))
        return events.filter((e) => e.correlation_id === customer.correlation_id);
      offset = (events.at(-1)?.offset ?? offset - 1) + 1;
    }
  };
  /** The ids of a list reply, sorted. */
  const ids = (reply: Reply): string[] => (reply.body as { id: string }[]).map((r) => r.id).sort();
  /**
   * Opens a session with the agent, sends a customer message and waits for the turn to end: its `ready` or `error`
   * status, and the agent's reply when there is one.
   */
  const turn = async <E extends Pick<TurnEvent, 'kind' | 'source' | 'data'>>(
    agentId: string,
    message: string,
  ): Promise<{ reply?: E; ready?: E; error?: E }> => {
    const session = await created('/sessions', { agent_id: agentId });
    await created(`/sessions/${session.id}/events`, { kind: 'message', source: 'customer', message });
    return eventually(
      async () => {
        const events = (await call(`/sessions/${session.id}/events`)).body as E[];
        const status = (value: string) => events.find((e) => e.kind === 'status' && e.data.status === value);
        const [ready, error] = [status('ready'), status('error')];
        expect(ready ?? error).toBeTruthy();
        const reply = events.find((e) => e.kind === 'message' && e.source === 'ai_agent');
        return { ...(reply ? { reply } : {}), ...(ready ? { ready } : {}), ...(error ? { error } : {}) };
      },
      { timeoutMs: 60_000 },
    );
  };
  return { call, created, details, ids, turn, turnEvents };
}

/** Global position of the log's last event: unchanged across a request = nothing was written. */
export async function logHead(store: EventStore): Promise<number> {
  let position = 0;
  for (;;) {
    const events = await store.readAll({ afterPosition: position, limit: 1_000 });
    const last = events.at(-1);
    if (!last) return position;
    position = last.position;
  }
}

/** A reply of `keyedHttp`: the parsed JSON body (undefined when empty or not JSON) and the raw text. */
export interface TextReply extends Reply {
  text: string;
}

/**
 * `call(method, path, key?, body?)` against a gateway: a Bearer key when given (workspace suites), the body as
 * JSON; answers are parsed when they are JSON (HTML pages and plain text keep `text` only).
 */
export function keyedHttp(baseUrl: () => string) {
  return async (method: string, path: string, key?: string, body?: unknown): Promise<TextReply> => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text };
  };
}
