import { createHmac, timingSafeEqual } from 'node:crypto';
import { MESSAGE_LIMITS } from '@tenet/channels-domain';
import {
  DeliveryError,
  header,
  RateLimitedError,
  retryAfterMs,
  type ChannelAdapter,
  type ConnectionSecrets,
  type FieldProblem,
  type InboundMessage,
  type InboundOutcome,
  type InboundRequest,
  type OutboundTarget,
} from './channel-adapter.port.js';
import { InboundParseError, urlProblem } from './parsing.js';

export const WHATSAPP_SIGNATURE_HEADER = 'x-hub-signature-256';
const DEFAULT_GRAPH_URL = 'https://graph.facebook.com/v21.0';
/** Graph API error codes that mean "too many messages now" (throttling, pair rate limit, spam rate limit). */
const THROTTLED = new Set([4, 80007, 130429, 131048, 131056]);

export function signWhatsApp(appSecret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

interface CloudMessage {
  from?: string;
  id?: string;
  timestamp?: string;
  type?: string;
  text?: { body?: string };
}

interface CloudChange {
  field?: string;
  value?: {
    metadata?: { phone_number_id?: string };
    contacts?: Array<{ wa_id?: string; profile?: { name?: string } }>;
    messages?: CloudMessage[];
  };
}

/**
 * WhatsApp Cloud API (Meta Graph API): the webhook is checked once with a GET (`hub.verify_token`, answered with
 * `hub.challenge`), every POST is signed with the app secret (`X-Hub-Signature-256: sha256=<HMAC of the raw body>`);
 * replies go to `POST /{phone_number_id}/messages`. Meta has no maintained Node SDK for the Cloud API (its `whatsapp`
 * package is archived), so the two HTTP calls are written against the Graph API reference.
 */
export class WhatsAppAdapter implements ChannelAdapter {
  readonly kind = 'whatsapp';
  readonly markup = 'whatsapp' as const;
  readonly limit = MESSAGE_LIMITS['whatsapp'] as number;
  readonly requiredCredentials = ['access_token', 'app_secret', 'verify_token'] as const;
  readonly optionalCredentials = [] as const;
  readonly allowedSettings = ['phone_number_id', 'api_url'] as const;

  check(settings: Record<string, string>, credentials: ConnectionSecrets): FieldProblem[] {
    const problems: FieldProblem[] = [];
    if (!/^\d{5,20}$/.test(settings['phone_number_id'] ?? ''))
      problems.push({
        loc: ['settings', 'phone_number_id'],
        msg: "phone_number_id is required: the WhatsApp phone number id (digits) from the app's API Setup page",
      });
    const api = urlProblem(settings['api_url'], false);
    if (api) problems.push({ loc: ['settings', 'api_url'], msg: `api_url ${api}` });
    if ((credentials['access_token'] ?? '').length < 20)
      problems.push({
        loc: ['credentials', 'access_token'],
        msg: 'access_token must be a system user access token with whatsapp_business_messaging',
      });
    if (!/^[0-9a-f]{32}$/i.test(credentials['app_secret'] ?? ''))
      problems.push({ loc: ['credentials', 'app_secret'], msg: 'app_secret must be the Meta app secret (32 hexadecimal characters)' });
    if ((credentials['verify_token'] ?? '').length < 16)
      problems.push({
        loc: ['credentials', 'verify_token'],
        msg: 'verify_token must be at least 16 characters (the Verify Token you enter in the webhook settings)',
      });
    return problems;
  }

  accountOf(settings: Record<string, string>): string | undefined {
    return settings['phone_number_id'];
  }

  handshake(request: InboundRequest, credentials: ConnectionSecrets): { status: number; body: string } {
    const mode = request.query['hub.mode'];
    const token = request.query['hub.verify_token'];
    const challenge = request.query['hub.challenge'];
    if (
      mode === 'subscribe' &&
      typeof token === 'string' &&
      typeof challenge === 'string' &&
      sameSecret(token, credentials['verify_token'] ?? '')
    )
      return { status: 200, body: challenge };
    return { status: 403, body: 'verification failed' };
  }

  verify(request: InboundRequest, credentials: ConnectionSecrets): boolean {
    const given = header(request, WHATSAPP_SIGNATURE_HEADER);
    return given !== undefined && sameSecret(given, signWhatsApp(credentials['app_secret'] ?? '', request.rawBody));
  }

  parse(request: InboundRequest): InboundOutcome {
    const body = request.body as { object?: unknown; entry?: Array<{ changes?: CloudChange[] }> } | null;
    if (typeof body !== 'object' || body === null || body.object !== 'whatsapp_business_account' || !Array.isArray(body.entry)) {
      throw new InboundParseError(['body', 'object'], 'a WhatsApp webhook must be a whatsapp_business_account notification with entries');
    }
    const messages: InboundMessage[] = [];
    for (const change of body.entry.flatMap((entry) => entry.changes ?? [])) {
      if (change.field !== 'messages') continue;
      const value = change.value ?? {};
      for (const message of value.messages ?? []) {
        if (!message.from || !message.id) continue;
        const name = value.contacts?.find((c) => c.wa_id === message.from)?.profile?.name ?? message.from;
        messages.push({
          messageId: message.id,
          sender: { id: message.from, name },
          origin: { peer_id: message.from, ...(value.metadata?.phone_number_id ? { account_id: value.metadata.phone_number_id } : {}) },
          conversation: { peer: message.from, address: { to: message.from } },
          text: message.type === 'text' ? message.text?.body : undefined,
          unsupported: message.type === 'text' ? [] : [message.type ?? 'message'],
          ...(message.timestamp ? { sentAtMs: Number(message.timestamp) * 1000 } : {}),
        });
      }
    }
    return { kind: 'messages', messages };
  }

  async send(target: OutboundTarget, text: string): Promise<void> {
    const base = (target.settings['api_url'] ?? DEFAULT_GRAPH_URL).replace(/\/+$/, '');
    let response: Response;
    try {
      response = await fetch(`${base}/${encodeURIComponent(target.settings['phone_number_id'] ?? '')}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${target.credentials['access_token'] ?? ''}` },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: target.address['to'],
          type: 'text',
          text: { preview_url: false, body: text },
        }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new DeliveryError(`WhatsApp unreachable: ${(error as Error).message}`, true);
    }
    if (response.ok) {
      await response.arrayBuffer();
      return;
    }
    const failure = ((await response.json().catch(() => ({}))) as { error?: { code?: number; message?: string } }).error ?? {};
    const detail = `${failure.code ?? response.status} ${failure.message ?? ''}`.trim();
    if (response.status === 429 || (failure.code !== undefined && THROTTLED.has(failure.code)))
      throw new RateLimitedError(retryAfterMs(response.headers.get('retry-after'), Date.now()), detail);
    throw new DeliveryError(`WhatsApp refused the message: ${detail}`, response.status >= 500);
  }
}
