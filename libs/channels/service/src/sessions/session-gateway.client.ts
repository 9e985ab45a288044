import { createHash } from 'node:crypto';
import type * as Undici from 'undici';

/** undici (~110 modules), loaded with the first call to the session gateway (ADR 0035): an idle process makes none. */
let undiciModule: Promise<typeof Undici> | undefined;
const loadUndici = (): Promise<typeof Undici> => (undiciModule ??= import('undici'));

/** The session gateway answered with an error: its status and body say why (a 4xx is not worth retrying). */
export class SessionGatewayError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    what: string,
  ) {
    super(`${what}: session gateway answered ${status} ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
  }

  get retryable(): boolean {
    return this.status >= 500 || this.status === 429 || this.status === 408;
  }
}

export interface SessionMessage {
  id: string;
  offset: number;
  source: string;
  data: { message?: string };
  creation_utc: string;
}

export interface OpenSessionRequest {
  agentId: string;
  customerId: string;
  customerName: string;
  /** The conversation's session key (docs/data-model.md#bindings); the session is created once per key. */
  sessionKey: string;
  /** The conversation's previous session, which has ended: its successor is created once, too. */
  successorOf?: string;
  title: string;
  metadata: Record<string, unknown>;
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 40);

/**
 * The channel gateway as a client of the session gateway, on its public Parlant routes — exactly what any
 * integrator does (ADR 0025). Idempotency-Keys make every call safe to repeat: a conversation's session is
 * created once per session key, a platform message becomes exactly one customer event.
 */
export class SessionGatewayClient {
  constructor(
    /** Read per call: all-in-one, the gateway is this very process, whose port is known once it listens. */
    private readonly baseUrl: () => string,
    private readonly apiKey: string | undefined,
    private readonly timeoutMs = 10_000,
  ) {}

  /** Whether `agentId` exists for the caller whose Authorization header is given (the gateway confines it). */
  async agentVisible(agentId: string, authorization: string | undefined): Promise<boolean> {
    const response = await this.call('GET', `/agents/${encodeURIComponent(agentId)}`, undefined, { authorization });
    if (response.status === 404) return false;
    if (!response.ok) throw new SessionGatewayError(response.status, detailOf(response), `reading agent ${agentId}`);
    return true;
  }

  /** Creates the customer when it does not exist yet (the id is stable per platform user). */
  async ensureCustomer(customerId: string, name: string, apiKey?: string): Promise<void> {
    const found = await this.call('GET', `/customers/${encodeURIComponent(customerId)}`, undefined, { apiKey });
    if (found.ok) return;
    if (found.status !== 404) throw new SessionGatewayError(found.status, detailOf(found), `reading customer ${customerId}`);
    const created = await this.call('POST', '/customers', { id: customerId, name: name.slice(0, 100) || customerId }, { apiKey });
    // A concurrent first message of the same person created it meanwhile: the id is taken, which is what we want.
    if (created.ok || created.status === 409 || created.status === 422) {
      if (!created.ok && !(await this.call('GET', `/customers/${encodeURIComponent(customerId)}`, undefined, { apiKey })).ok) {
        throw new SessionGatewayError(created.status, detailOf(created), `creating customer ${customerId}`);
      }
      return;
    }
    throw new SessionGatewayError(created.status, detailOf(created), `creating customer ${customerId}`);
  }

  /** The session of a conversation: created on its first message, the same one for every later message. */
  async openSession(request: OpenSessionRequest, apiKey?: string): Promise<string> {
    const body = {
      agent_id: request.agentId,
      customer_id: request.customerId,
      title: request.title.slice(0, 200),
      metadata: request.metadata,
    };
    const response = await this.call('POST', '/sessions', body, {
      apiKey,
      idempotencyKey: `channel-session-${digest(request.sessionKey)}${request.successorOf ? `-after-${request.successorOf}` : ''}`,
    });
    if (!response.ok) throw new SessionGatewayError(response.status, detailOf(response), `opening the session of ${request.sessionKey}`);
    return (response.json() as { id: string }).id;
  }

  /** Posts a customer message once per platform message id (Idempotency-Key), whatever the retries. */
  async postCustomerMessage(
    sessionId: string,
    message: string,
    participant: { id: string; display_name: string },
    dedupKey: string,
    apiKey?: string,
  ): Promise<{ id: string; offset: number }> {
    const body = { kind: 'message', source: 'customer', message, participant };
    const response = await this.call('POST', `/sessions/${encodeURIComponent(sessionId)}/events`, body, {
      apiKey,
      idempotencyKey: `channel-in-${digest(dedupKey)}`,
    });
    if (!response.ok) throw new SessionGatewayError(response.status, detailOf(response), `posting to session ${sessionId}`);
    return response.json() as { id: string; offset: number };
  }

  /** Messages of a session from `minOffset`, waiting up to `waitSecs` for one (the gateway's long-poll; none by then: []). */
  async messages(sessionId: string, minOffset: number, waitSecs: number, apiKey?: string, signal?: AbortSignal): Promise<SessionMessage[]> {
    const response = await this.call(
      'GET',
      `/sessions/${encodeURIComponent(sessionId)}/events?kinds=message&min_offset=${minOffset}&wait_for_data=${waitSecs}`,
      undefined,
      { apiKey, ...(signal ? { signal } : {}) },
      (waitSecs + 10) * 1000,
    );
    if (response.status === 504) return [];
    if (!response.ok) throw new SessionGatewayError(response.status, detailOf(response), `reading session ${sessionId}`);
    return response.json() as SessionMessage[];
  }

  private async call(
    method: string,
    path: string,
    body: unknown,
    options: { apiKey?: string | undefined; authorization?: string | undefined; idempotencyKey?: string; signal?: AbortSignal },
    timeoutMs = this.timeoutMs,
  ): Promise<GatewayResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const key = options.apiKey ?? this.apiKey;
    if (options.authorization !== undefined) headers['authorization'] = options.authorization;
    else if (key !== undefined) headers['authorization'] = `Bearer ${key}`;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    // undici's request, not fetch: the same HTTP/1.1 keep-alive exchange without the WHATWG Request/Response and
    // stream machinery, which cost about as much CPU per call as the gateway's handling of it (bench:channels, docs/benchmarks.md).
    const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    const { request } = await loadUndici();
    const response = await request(`${this.baseUrl()}${path}`, {
      method: method as Undici.Dispatcher.HttpMethod,
      headers,
      signal,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    // Read whole at once: an unread body would hold the pooled connection.
    const text = await response.body.text();
    return {
      status: response.statusCode,
      ok: response.statusCode >= 200 && response.statusCode < 300,
      text,
      json: () => JSON.parse(text) as unknown,
    };
  }
}

/** The gateway's answer, its body already read. */
interface GatewayResponse {
  status: number;
  ok: boolean;
  text: string;
  json(): unknown;
}

function detailOf(response: GatewayResponse): unknown {
  try {
    return (JSON.parse(response.text) as { detail?: unknown }).detail ?? response.text;
  } catch {
    return response.text.slice(0, 500);
  }
}
