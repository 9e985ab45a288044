import { createHmac, timingSafeEqual } from 'node:crypto';
import { MESSAGE_LIMITS } from '@tenet/channels-domain';
import type * as SlackWebApi from '@slack/web-api';
import {
  DeliveryError,
  header,
  RateLimitedError,
  type ChannelAdapter,
  type ConnectionSecrets,
  type FieldProblem,
  type InboundMessage,
  type InboundOutcome,
  type InboundRequest,
  type OutboundTarget,
} from './channel-adapter.port.js';
import { InboundParseError, urlProblem } from './parsing.js';

/** Slack refuses a request signed more than five minutes ago; so do we (no replay of a captured request). */
const TOLERANCE_S = 5 * 60;
/** Platform errors worth another attempt; every other `error` (channel_not_found, not_in_channel…) is final. */
const TRANSIENT = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);
/** Message subtypes that are a person writing; edits, joins, bot posts and the like are not customer messages. */
const CUSTOMER_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

/** `@slack/web-api` (with axios and its dependencies), loaded with the first message sent to Slack (ADR 0035). */
let slackWebApi: Promise<typeof SlackWebApi> | undefined;
const loadSlackWebApi = (): Promise<typeof SlackWebApi> => (slackWebApi ??= import('@slack/web-api'));

export function signSlack(secret: string, timestamp: number, body: string | Buffer): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
}

interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  files?: Array<{ filetype?: string }>;
  user_profile?: { display_name?: string; real_name?: string };
}

/**
 * Slack on the Events API (in) and the Web API through `@slack/web-api` (out). Requests are verified with the
 * app's signing secret (`v0=` HMAC-SHA256 over `v0:<timestamp>:<body>`); the URL verification challenge is answered;
 * a thread is a conversation (a top-level channel message starts one, the reply goes into it), a direct message
 * channel without threads is one; the app's own and other bots' messages are ignored.
 */
export class SlackAdapter implements ChannelAdapter {
  readonly kind = 'slack';
  readonly markup = 'slack' as const;
  readonly limit = MESSAGE_LIMITS['slack'] as number;
  readonly requiredCredentials = ['bot_token', 'signing_secret'] as const;
  readonly optionalCredentials = [] as const;
  readonly allowedSettings = ['api_url', 'bot_user_id'] as const;
  private readonly clients = new Map<string, SlackWebApi.WebClient>();

  check(settings: Record<string, string>, credentials: ConnectionSecrets): FieldProblem[] {
    const problems: FieldProblem[] = [];
    if (!/^xox[bp]-[A-Za-z0-9-]{10,}$/.test(credentials['bot_token'] ?? ''))
      problems.push({ loc: ['credentials', 'bot_token'], msg: "bot_token must be the app's bot token (xoxb-…)" });
    if (!/^[0-9a-f]{32}$/i.test(credentials['signing_secret'] ?? ''))
      problems.push({
        loc: ['credentials', 'signing_secret'],
        msg: "signing_secret must be the app's Signing Secret (32 hexadecimal characters, Basic Information page)",
      });
    const api = urlProblem(settings['api_url'], false);
    if (api) problems.push({ loc: ['settings', 'api_url'], msg: `api_url ${api}` });
    if (settings['bot_user_id'] !== undefined && !/^[UW][A-Z0-9]{2,}$/.test(settings['bot_user_id']))
      problems.push({ loc: ['settings', 'bot_user_id'], msg: 'bot_user_id must be a Slack user id (U… or W…)' });
    return problems;
  }

  verify(request: InboundRequest, credentials: ConnectionSecrets, nowMs: number): boolean {
    const timestamp = Number(header(request, 'x-slack-request-timestamp'));
    const signature = header(request, 'x-slack-signature');
    if (!Number.isInteger(timestamp) || signature === undefined || Math.abs(nowMs / 1000 - timestamp) > TOLERANCE_S) return false;
    const expected = Buffer.from(signSlack(credentials['signing_secret'] ?? '', timestamp, request.rawBody));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  parse(request: InboundRequest, settings: Record<string, string>): InboundOutcome {
    const body = request.body as {
      type?: unknown;
      challenge?: unknown;
      team_id?: string;
      api_app_id?: string;
      event?: SlackMessageEvent;
    } | null;
    if (typeof body !== 'object' || body === null || typeof body.type !== 'string')
      throw new InboundParseError(['body', 'type'], 'a Slack Events API request must have a type');
    if (body.type === 'url_verification') {
      if (typeof body.challenge !== 'string') throw new InboundParseError(['body', 'challenge'], 'url_verification must carry a challenge');
      return { kind: 'reply', status: 200, body: { challenge: body.challenge } };
    }
    const event = body.event;
    if (body.type !== 'event_callback' || !event || (event.type !== 'message' && event.type !== 'app_mention'))
      return { kind: 'messages', messages: [] };
    if (!CUSTOMER_SUBTYPES.has(event.subtype) || event.bot_id !== undefined || !event.user || !event.channel || !event.ts)
      return { kind: 'messages', messages: [] };
    if (settings['bot_user_id'] !== undefined && event.user === settings['bot_user_id']) return { kind: 'messages', messages: [] };
    const direct = event.channel_type === 'im';
    const thread = event.thread_ts ?? (direct ? undefined : event.ts);
    const message: InboundMessage = {
      // The same message arrives as `message` and `app_mention`, and again on Slack's retries: one id for all.
      messageId: `${event.channel}/${event.ts}`,
      sender: { id: event.user, name: event.user_profile?.display_name || event.user_profile?.real_name || event.user },
      origin: {
        peer_id: event.channel,
        ...(body.team_id ? { guild_id: body.team_id } : {}),
        ...(body.api_app_id ? { account_id: body.api_app_id } : {}),
      },
      conversation: {
        peer: thread ? `${event.channel}/${thread}` : event.channel,
        address: { channel: event.channel, ...(thread ? { thread_ts: thread } : {}) },
      },
      text: event.text?.replace(/<@[UW][A-Z0-9]+>\s*/g, '').trim() || undefined,
      unsupported: (event.files ?? []).map((f) => f.filetype ?? 'file'),
      sentAtMs: Math.round(Number(event.ts) * 1000),
    };
    return { kind: 'messages', messages: [message] };
  }

  async send(target: OutboundTarget, text: string): Promise<void> {
    const sdk = await loadSlackWebApi();
    const { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } = sdk;
    const client = this.client(sdk, target.credentials['bot_token'] ?? '', target.settings['api_url']);
    const thread = target.address['thread_ts'];
    try {
      await client.chat.postMessage({
        channel: String(target.address['channel']),
        text,
        mrkdwn: true,
        ...(thread !== undefined ? { thread_ts: String(thread) } : {}),
      });
    } catch (error) {
      if (error instanceof WebAPIRateLimitedError) throw new RateLimitedError(error.retryAfter * 1000, 'chat.postMessage rate limited');
      if (error instanceof WebAPIPlatformError)
        throw new DeliveryError(`Slack refused chat.postMessage: ${error.data.error}`, TRANSIENT.has(error.data.error));
      if (error instanceof WebAPIHTTPError) throw new DeliveryError(`Slack answered HTTP ${error.statusCode}`, error.statusCode >= 500);
      if (error instanceof WebAPIRequestError) throw new DeliveryError(`Slack unreachable: ${error.original.message}`, true);
      throw error;
    }
  }

  private client({ WebClient, LogLevel }: typeof SlackWebApi, token: string, apiUrl: string | undefined): SlackWebApi.WebClient {
    const key = `${apiUrl ?? ''}\n${token}`;
    let client = this.clients.get(key);
    if (!client) {
      // Retries and rate-limit waits are the delivery queue's (ADR 0025), not the SDK's: one attempt per call.
      client = new WebClient(token, {
        ...(apiUrl ? { slackApiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {}),
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 0 },
        timeout: 15_000,
        logLevel: LogLevel.ERROR,
      });
      this.clients.set(key, client);
    }
    return client;
  }
}
