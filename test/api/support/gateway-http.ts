import type { EventStore } from '@tenet/event-store';

/** A gateway response: its status and parsed JSON body (`undefined` when empty). */
export interface Reply {
  status: number;
  body: unknown;
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
    const response = await fetch(`${baseUrl()}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
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
  /** The ids of a list reply, sorted. */
  const ids = (reply: Reply): string[] => (reply.body as { id: string }[]).map((r) => r.id).sort();
  return { call, created, details, ids };
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
