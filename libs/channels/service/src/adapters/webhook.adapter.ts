import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { MESSAGE_LIMITS } from '@tenet/channels-domain';
import { blockedAddressOf, guardedLookup, isBlockedAddress } from '@tenet/outbound-guard';
import type * as Undici from 'undici';
import {
  DeliveryError,
  header,
  RateLimitedError,
  retryAfterMs,
  type ChannelAdapter,
  type ConnectionSecrets,
  type FieldProblem,
  type InboundOutcome,
  type InboundRequest,
  type OutboundTarget,
} from './channel-adapter.port.js';
import { InboundParseError, optionalString, requiredString, urlProblem } from './parsing.js';

/** Signed requests older (or newer) than this are refused: a captured request cannot be replayed later. */
export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;
export const WEBHOOK_SIGNATURE_HEADER = 'x-tenet-signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, the same scheme both ways. */
export function signWebhook(secret: string, body: string | Buffer, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
  return `t=${t},v1=${mac}`;
}

export function verifyWebhookSignature(secret: string, body: Buffer, signature: string | undefined, nowMs: number): boolean {
  if (signature === undefined) return false;
  const parts = Object.fromEntries(signature.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts['t']);
  const given = parts['v1'];
  if (!Number.isInteger(t) || given === undefined || !/^[0-9a-f]{64}$/.test(given)) return false;
  if (Math.abs(nowMs - t * 1000) > WEBHOOK_TOLERANCE_MS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/** Why a target is refused, naming the setting that allows it. */
const privateTarget = (host: string, address: string): string =>
  `outbound_url's host ${host} resolves to the non-public address ${address} (loopback, private, link-local and metadata addresses are refused unless TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on)`;

/** The connect-time refusal of a non-public address (DNS rebinding): not retried, the target will not become public. */
class PrivateTargetError extends Error {
  readonly code = 'CHANNELS.TARGET_NOT_ALLOWED';
}

/**
 * The generic webhook: any system posts signed JSON messages in and receives the agent's replies as signed JSON
 * at its `outbound_url` (docs/channels.md has both shapes).
 *
 * SSRF guard: an `outbound_url` whose host is or resolves to a loopback, private, link-local or metadata address is
 * refused at registration (422 naming the field) and again when a delivery connects (the agent's lookup checks the
 * address it dials, so a name that resolves elsewhere after registration is caught) — unless the operator sets
 * `allowPrivateTargets` (TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on, for development and tests).
 */
/** undici (~110 modules), loaded with the first delivery to a webhook (ADR 0035). */
let undiciModule: Promise<typeof Undici> | undefined;
const loadUndici = (): Promise<typeof Undici> => (undiciModule ??= import('undici'));

export class WebhookAdapter implements ChannelAdapter {
  readonly kind = 'webhook';
  readonly markup = 'markdown' as const;
  readonly limit = MESSAGE_LIMITS['webhook'] as number;
  readonly requiredCredentials = ['signing_secret'] as const;
  readonly optionalCredentials = [] as const;
  readonly allowedSettings = ['outbound_url'] as const;
  /** The connection pool of every delivery, made with the first (undici is loaded then). */
  private dispatcher: Undici.Agent | undefined;

  constructor(private readonly options: { allowPrivateTargets: boolean } = { allowPrivateTargets: false }) {}

  private async undici(): Promise<{ fetch: typeof Undici.fetch; dispatcher: Undici.Agent }> {
    const { Agent, fetch } = await loadUndici();
    this.dispatcher ??= this.options.allowPrivateTargets
      ? new Agent()
      : new Agent({ connect: { lookup: guardedLookup((host, address) => new PrivateTargetError(privateTarget(host, address))) } });
    return { fetch, dispatcher: this.dispatcher };
  }

  async checkTargets(settings: Record<string, string>): Promise<FieldProblem[]> {
    if (this.options.allowPrivateTargets) return [];
    const host = new URL(settings['outbound_url'] ?? '').hostname;
    const blocked = await blockedAddressOf(host);
    return blocked === undefined ? [] : [{ loc: ['settings', 'outbound_url'], msg: privateTarget(host, blocked) }];
  }

  check(settings: Record<string, string>, credentials: ConnectionSecrets): FieldProblem[] {
    const problems: FieldProblem[] = [];
    const outbound = urlProblem(settings['outbound_url']);
    if (outbound) problems.push({ loc: ['settings', 'outbound_url'], msg: `outbound_url ${outbound}` });
    if ((credentials['signing_secret'] ?? '').length < 32)
      problems.push({
        loc: ['credentials', 'signing_secret'],
        msg: 'signing_secret must be at least 32 characters (a random secret shared with your system)',
      });
    return problems;
  }

  verify(request: InboundRequest, credentials: ConnectionSecrets, nowMs: number): boolean {
    return verifyWebhookSignature(credentials['signing_secret'] ?? '', request.rawBody, header(request, WEBHOOK_SIGNATURE_HEADER), nowMs);
  }

  parse(request: InboundRequest): InboundOutcome {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new InboundParseError(['body'], 'the body must be a JSON object');
    const b = body as Record<string, unknown>;
    const sender = b['sender'];
    if (typeof sender !== 'object' || sender === null)
      throw new InboundParseError(['body', 'sender'], 'sender must be an object with an id');
    const s = sender as Record<string, unknown>;
    const senderId = requiredString(s['id'], ['body', 'sender', 'id']);
    const conversationId = optionalString(b['conversation_id'], ['body', 'conversation_id']) ?? senderId;
    const text = optionalString(b['text'], ['body', 'text'], 10_000);
    const attachments = Array.isArray(b['attachments']) ? b['attachments'] : [];
    const accountId = optionalString(b['account_id'], ['body', 'account_id']);
    const guildId = optionalString(b['guild_id'], ['body', 'guild_id']);
    const teamId = optionalString(b['team_id'], ['body', 'team_id']);
    return {
      kind: 'messages',
      messages: [
        {
          messageId: requiredString(b['message_id'], ['body', 'message_id']),
          sender: { id: senderId, name: optionalString(s['name'], ['body', 'sender', 'name']) ?? senderId },
          origin: {
            peer_id: conversationId,
            ...(accountId ? { account_id: accountId } : {}),
            ...(guildId ? { guild_id: guildId } : {}),
            ...(teamId ? { team_id: teamId } : {}),
          },
          conversation: { peer: conversationId, address: { conversation_id: conversationId } },
          text,
          unsupported: attachments.map((a) => String((a as { type?: unknown } | null)?.type ?? 'attachment')),
        },
      ],
    };
  }

  async send(target: OutboundTarget, text: string, idempotencyKey: string): Promise<void> {
    const body = JSON.stringify({ idempotency_key: idempotencyKey, conversation_id: target.address['conversation_id'], text });
    const url = new URL(target.settings['outbound_url'] as string);
    // An IP literal is dialled without a lookup: checked here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.options.allowPrivateTargets && isIP(literal) !== 0 && isBlockedAddress(literal))
      throw new DeliveryError(privateTarget(literal, literal), false);
    const { fetch, dispatcher } = await this.undici();
    let response: Awaited<ReturnType<typeof Undici.fetch>>;
    try {
      response = await fetch(url, {
        dispatcher,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook(target.credentials['signing_secret'] ?? '', body, Date.now()),
        },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      const refused = causeOf(error, PrivateTargetError);
      if (refused) throw new DeliveryError(refused.message, false);
      throw new DeliveryError(`outbound_url unreachable: ${(error as Error).message}`, true);
    }
    const detail = (await response.text().catch(() => '')).slice(0, 300);
    if (response.status === 429) throw new RateLimitedError(retryAfterMs(response.headers.get('retry-after'), Date.now()), detail);
    if (!response.ok)
      throw new DeliveryError(`outbound_url answered ${response.status} ${detail}`, response.status >= 500 || response.status === 408);
  }
}

/** The error of type `type` in `error`'s cause chain (undici wraps connect errors in `fetch failed`). */
function causeOf<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
