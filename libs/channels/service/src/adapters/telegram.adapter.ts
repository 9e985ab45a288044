import { timingSafeEqual } from 'node:crypto';
import { MESSAGE_LIMITS } from '@tenet/channels-domain';
import type * as Grammy from 'grammy';
import type { Message, Update } from 'grammy/types';
import {
  DeliveryError,
  header,
  RateLimitedError,
  type ChannelAdapter,
  type ConnectionSecrets,
  type FieldProblem,
  type InboundOutcome,
  type InboundRequest,
  type OutboundTarget,
} from './channel-adapter.port.js';
import { InboundParseError, urlProblem } from './parsing.js';

export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** grammy, loaded with the first message sent to Telegram (ADR 0035). */
let grammyModule: Promise<typeof Grammy> | undefined;
const loadGrammy = (): Promise<typeof Grammy> => (grammyModule ??= import('grammy'));
const BOT_TOKEN = /^(\d{1,20}):[A-Za-z0-9_-]{30,}$/;
/** Telegram's own rule for setWebhook's secret_token. */
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const UNSUPPORTED: ReadonlyArray<keyof Message> = [
  'photo',
  'document',
  'voice',
  'audio',
  'video',
  'video_note',
  'sticker',
  'animation',
  'location',
  'contact',
  'poll',
];

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Telegram Bot API on grammY: updates arrive by webhook with the `secret_token` given to setWebhook in the
 * X-Telegram-Bot-Api-Secret-Token header; replies go out with sendMessage (HTML parse mode). A private chat is a
 * peer; a group or supergroup is a guild (and a forum topic a team within it), the group its conversation.
 */
export class TelegramAdapter implements ChannelAdapter {
  readonly kind = 'telegram';
  readonly markup = 'telegram' as const;
  readonly limit = MESSAGE_LIMITS['telegram'] as number;
  readonly requiredCredentials = ['bot_token', 'secret_token'] as const;
  readonly optionalCredentials = [] as const;
  readonly allowedSettings = ['api_root'] as const;
  private readonly apis = new Map<string, Grammy.Api>();

  check(settings: Record<string, string>, credentials: ConnectionSecrets): FieldProblem[] {
    const problems: FieldProblem[] = [];
    if (!BOT_TOKEN.test(credentials['bot_token'] ?? ''))
      problems.push({ loc: ['credentials', 'bot_token'], msg: 'bot_token must be the token @BotFather gave (<bot id>:<secret>)' });
    if (!SECRET_TOKEN.test(credentials['secret_token'] ?? ''))
      problems.push({
        loc: ['credentials', 'secret_token'],
        msg: 'secret_token must be 1-256 characters of [A-Za-z0-9_-] (the secret_token you pass to setWebhook)',
      });
    const root = urlProblem(settings['api_root'], false);
    if (root) problems.push({ loc: ['settings', 'api_root'], msg: `api_root ${root}` });
    return problems;
  }

  accountOf(_settings: Record<string, string>, credentials: ConnectionSecrets): string | undefined {
    return BOT_TOKEN.exec(credentials['bot_token'] ?? '')?.[1];
  }

  verify(request: InboundRequest, credentials: ConnectionSecrets): boolean {
    const given = header(request, TELEGRAM_SECRET_HEADER);
    return given !== undefined && sameSecret(given, credentials['secret_token'] ?? '');
  }

  parse(request: InboundRequest, _settings: Record<string, string>, credentials: ConnectionSecrets): InboundOutcome {
    const update = request.body as Update | null;
    if (typeof update !== 'object' || update === null || typeof update.update_id !== 'number')
      throw new InboundParseError(['body', 'update_id'], 'a Telegram Update must have a numeric update_id');
    const message = update.message;
    // Edits, channel posts, callbacks and the bot's own or other bots' messages are not customer messages.
    if (!message || !message.from || message.from.is_bot) return { kind: 'messages', messages: [] };
    const chat = message.chat;
    const group = chat.type === 'group' || chat.type === 'supergroup';
    const topic = message.is_topic_message && message.message_thread_id !== undefined ? String(message.message_thread_id) : undefined;
    const account = this.accountOf({}, credentials);
    const name =
      [message.from.first_name, message.from.last_name].filter(Boolean).join(' ') || message.from.username || String(message.from.id);
    return {
      kind: 'messages',
      messages: [
        {
          messageId: `${chat.id}/${message.message_id}`,
          sender: { id: String(message.from.id), name },
          origin: {
            peer_id: String(chat.id),
            ...(account ? { account_id: account } : {}),
            ...(group ? { guild_id: String(chat.id) } : {}),
            ...(group && topic ? { team_id: topic } : {}),
          },
          conversation: {
            peer: topic ? `${chat.id}/${topic}` : String(chat.id),
            address: { chat_id: chat.id, ...(topic ? { message_thread_id: Number(topic) } : {}) },
          },
          text: message.text ?? message.caption,
          unsupported: UNSUPPORTED.filter((kind) => message[kind] !== undefined).map(String),
          sentAtMs: message.date * 1000,
        },
      ],
    };
  }

  async send(target: OutboundTarget, text: string): Promise<void> {
    const grammy = await loadGrammy();
    const { GrammyError, HttpError } = grammy;
    const api = this.api(grammy, target.credentials['bot_token'] ?? '', target.settings['api_root']);
    const thread = target.address['message_thread_id'];
    try {
      await api.sendMessage(target.address['chat_id'] as number, text, {
        parse_mode: 'HTML',
        ...(thread !== undefined ? { message_thread_id: Number(thread) } : {}),
      });
    } catch (error) {
      if (error instanceof GrammyError) {
        if (error.error_code === 429) throw new RateLimitedError((error.parameters.retry_after ?? 1) * 1000, error.description);
        throw new DeliveryError(`Telegram refused sendMessage: ${error.error_code} ${error.description}`, error.error_code >= 500);
      }
      if (error instanceof HttpError) throw new DeliveryError(`Telegram unreachable: ${error.message}`, true);
      throw error;
    }
  }

  private api({ Api }: typeof Grammy, token: string, apiRoot: string | undefined): Grammy.Api {
    const key = `${apiRoot ?? ''}\n${token}`;
    let api = this.apis.get(key);
    if (!api) {
      api = new Api(token, { ...(apiRoot ? { apiRoot: apiRoot.replace(/\/+$/, '') } : {}), timeoutSeconds: 15 });
      this.apis.set(key, api);
    }
    return api;
  }
}
