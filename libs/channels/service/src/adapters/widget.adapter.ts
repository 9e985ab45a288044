import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { MESSAGE_LIMITS } from '@tenet/channels-domain';
import {
  header,
  type ChannelAdapter,
  type ConnectionSecrets,
  type FieldProblem,
  type InboundOutcome,
  type InboundRequest,
} from './channel-adapter.port.js';
import { InboundParseError, optionalString, requiredString } from './parsing.js';

const TOKEN = /^wv1\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

const mac = (secret: string, channelId: string, visitorId: string): string =>
  createHmac('sha256', secret).update(`${channelId}.${visitorId}`).digest('base64url');

/** A visitor's token: its id and an HMAC of it with the channel's widget secret — nothing to store, any replica verifies it. */
export function mintVisitorToken(secret: string, channelId: string): { visitorId: string; token: string } {
  const visitorId = randomBytes(16).toString('base64url');
  return { visitorId, token: `wv1.${visitorId}.${mac(secret, channelId, visitorId)}` };
}

/** The visitor id of a token minted for this channel, or undefined. */
export function visitorOf(secret: string, channelId: string, token: string | undefined): string | undefined {
  const match = token === undefined ? null : TOKEN.exec(token);
  if (!match) return undefined;
  const expected = Buffer.from(mac(secret, channelId, match[1] as string));
  const given = Buffer.from(match[2] as string);
  return expected.length === given.length && timingSafeEqual(expected, given) ? match[1] : undefined;
}

export const bearerOf = (request: InboundRequest): string | undefined => /^Bearer (\S+)$/.exec(header(request, 'authorization') ?? '')?.[1];

/**
 * The embeddable web widget: a visitor gets a token (`POST /channels/{id}/widget/visitors`), posts messages to the
 * inbound URL with it, and reads its conversation — history and new messages — by long-poll
 * (`GET /channels/{id}/widget/messages`). Pull, not push: replies are not sent anywhere, the visitor fetches them,
 * so nothing is lost while the page is closed and a reload shows the history.
 */
export class WidgetAdapter implements ChannelAdapter {
  readonly kind = 'widget';
  readonly markup = 'markdown' as const;
  readonly limit = MESSAGE_LIMITS['widget'] as number;
  readonly pull = true;
  readonly requiredCredentials = ['widget_secret'] as const;
  readonly optionalCredentials = [] as const;
  readonly allowedSettings = ['allowed_origins', 'title'] as const;

  defaultCredentials(): ConnectionSecrets {
    return { widget_secret: randomBytes(32).toString('base64url') };
  }

  check(settings: Record<string, string>, credentials: ConnectionSecrets): FieldProblem[] {
    const problems: FieldProblem[] = [];
    if ((credentials['widget_secret'] ?? '').length < 32)
      problems.push({
        loc: ['credentials', 'widget_secret'],
        msg: 'widget_secret must be at least 32 characters (leave it out to have one generated)',
      });
    for (const origin of (settings['allowed_origins'] ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean)) {
      if (!/^https?:\/\/[^/\s]+$/.test(origin))
        problems.push({
          loc: ['settings', 'allowed_origins'],
          msg: `allowed_origins must be a comma-separated list of origins like https://shop.example.com; "${origin}" is not one`,
        });
    }
    if (settings['title'] !== undefined && settings['title'].length > 80)
      problems.push({ loc: ['settings', 'title'], msg: 'title must be at most 80 characters' });
    return problems;
  }

  verify(request: InboundRequest, credentials: ConnectionSecrets): boolean {
    return visitorOf(credentials['widget_secret'] ?? '', request.channelId, bearerOf(request)) !== undefined;
  }

  parse(request: InboundRequest, _settings: Record<string, string>, credentials: ConnectionSecrets): InboundOutcome {
    const visitor = visitorOf(credentials['widget_secret'] ?? '', request.channelId, bearerOf(request)) as string;
    const body = request.body as { message_id?: unknown; text?: unknown } | null;
    if (typeof body !== 'object' || body === null) throw new InboundParseError(['body'], 'the body must be a JSON object');
    return {
      kind: 'messages',
      messages: [
        {
          messageId: `${visitor}/${requiredString(body.message_id ?? randomUUID(), ['body', 'message_id'], 100)}`,
          sender: { id: visitor, name: 'Website visitor' },
          origin: { peer_id: visitor },
          conversation: { peer: visitor, address: { visitor } },
          text: optionalString(body.text, ['body', 'text'], 10_000),
          unsupported: [],
        },
      ],
    };
  }

  /** Nothing to push: the visitor reads the conversation (see the class comment); delivery never queues for a pull channel. */
  send(): Promise<void> {
    return Promise.resolve();
  }
}
