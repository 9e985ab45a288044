import type { MarkupTarget } from '@tenet/channels-domain';

/** A field problem of a connection's settings or credentials: 422 naming `body.<path>`. */
export interface FieldProblem {
  loc: string[];
  msg: string;
}

/** The request as the platform sent it: raw bytes (signatures are over them), headers, parsed JSON, query. */
export interface InboundRequest {
  /** The connection the request came in on (its inbound URL). */
  channelId: string;
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  query: Record<string, unknown>;
}

/** One platform message, normalised. */
export interface InboundMessage {
  /** The platform's id of this message: retries of the same message carry the same id. */
  messageId: string;
  sender: { id: string; name: string };
  /** What bindings match on (docs/data-model.md#bindings); `channel` is the connection's kind. */
  origin: { account_id?: string; peer_id?: string; guild_id?: string; team_id?: string };
  /** The conversation: `peer` goes into the session key, `address` is where replies go (platform-specific). */
  conversation: { peer: string; address: Record<string, string | number> };
  text: string | undefined;
  /** Kinds of content the adapter cannot pass on (photo, voice, file…): the customer gets a polite note. */
  unsupported: string[];
  /** Platform time of the message (ms since epoch), when the platform says. */
  sentAtMs?: number;
}

export type InboundOutcome =
  /** Answer the platform with this (a handshake: Slack's url_verification, WhatsApp's hub.challenge). */
  { kind: 'reply'; status: number; body: unknown; contentType?: string } | { kind: 'messages'; messages: InboundMessage[] };

export interface ConnectionSecrets {
  [field: string]: string;
}

export interface OutboundTarget {
  settings: Record<string, string>;
  credentials: ConnectionSecrets;
  address: Record<string, string | number>;
}

/** The platform said "too many requests": retry after this long. */
export class RateLimitedError extends Error {
  constructor(
    readonly retryAfterMs: number,
    detail: string,
  ) {
    super(`rate limited by the platform (retry after ${retryAfterMs} ms): ${detail}`);
  }
}

/** The platform refused the message; `retryable` for 5xx and network failures, not for a 4xx. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * A platform adapter (it parses what comes in and formats what goes out): it checks the connection's settings, verifies
 * the platform's signature, turns a platform request into messages, and sends one text part back.
 */
export interface ChannelAdapter {
  readonly kind: string;
  readonly markup: MarkupTarget;
  /** Longest text of one platform message (UTF-16 code units). */
  readonly limit: number;
  readonly requiredCredentials: readonly string[];
  readonly optionalCredentials: readonly string[];
  readonly allowedSettings: readonly string[];
  /** Replies are fetched by the client (the web widget), not pushed: no delivery queue. */
  readonly pull?: boolean;
  /** Credentials generated when a connection is registered without them (the widget's secret). */
  defaultCredentials?(): ConnectionSecrets;
  /** Problems of the connection as a whole (a missing setting, a malformed token). */
  check(settings: Record<string, string>, credentials: ConnectionSecrets): FieldProblem[];
  /** Problems found on the network, after `check` passed: a target URL whose host resolves to a non-public address. */
  checkTargets?(settings: Record<string, string>): Promise<FieldProblem[]>;
  /** The account the connection is, when the credentials say (a Telegram bot's id). */
  accountOf?(settings: Record<string, string>, credentials: ConnectionSecrets): string | undefined;
  /** GET on the inbound URL (WhatsApp's subscription check); undefined = not part of this platform's protocol. */
  handshake?(request: InboundRequest, credentials: ConnectionSecrets): { status: number; body: string } | undefined;
  /** First thing on every POST: false → 401, nothing read further, nothing stored. */
  verify(request: InboundRequest, credentials: ConnectionSecrets, nowMs: number): boolean;
  parse(request: InboundRequest, settings: Record<string, string>, credentials: ConnectionSecrets): InboundOutcome;
  /** Sends one part (already split and formatted); `idempotencyKey` is unique per agent message and part. */
  send(target: OutboundTarget, text: string, idempotencyKey: string): Promise<void>;
}

export const CHANNEL_ADAPTERS = Symbol.for('tenet.channels.adapters');

/** Retry-After: seconds or an HTTP date; bounded below by 0. */
export function retryAfterMs(header: string | null | undefined, nowMs: number, fallbackMs = 1000): number {
  if (header === null || header === undefined || header.trim() === '') return fallbackMs;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : fallbackMs;
}

export const header = (request: InboundRequest, name: string): string | undefined => {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};
