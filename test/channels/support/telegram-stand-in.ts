import { createServer, type IncomingMessage, type Server } from 'node:http';
import { freePort } from '@tenet/testing';

export interface SentMessage {
  chat_id: number;
  text: string;
  parse_mode?: string;
  message_thread_id?: number;
  /** The HTTP status the stand-in answered. */
  status: number;
}

/**
 * A local Telegram Bot API, as core.telegram.org/bots/api describes the wire: methods at `/bot<token>/<method>`,
 * answers `{ ok: true, result }` or `{ ok: false, error_code, description, parameters? }` (429 with
 * `parameters.retry_after`), an unknown token is 401. It also plays Telegram's side of a webhook: an Update is
 * POSTed with the X-Telegram-Bot-Api-Secret-Token header and sent again while the answer is not 2xx.
 */
export class TelegramStandIn {
  readonly sent: SentMessage[] = [];
  private readonly script: Array<{ status: number; retryAfter?: number; description: string }> = [];
  private server: Server | undefined;
  private nextMessageId = 1000;
  private nextUpdateId = 500_000;
  apiRoot = '';

  constructor(private readonly token: string) {}

  async start(): Promise<this> {
    const port = await freePort();
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, body }) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.apiRoot = `http://127.0.0.1:${port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  answerNext(...answers: Array<{ status: number; retryAfter?: number; description: string }>): void {
    this.script.push(...answers);
  }

  delivered(chatId: number): SentMessage[] {
    return this.sent.filter((m) => m.chat_id === chatId && m.status === 200);
  }

  /** A text Update from a user in a chat (private when the chat is the user, else a group). */
  update(
    chat: { id: number; type: 'private' | 'group' | 'supergroup'; title?: string },
    from: { id: number; first_name: string },
    text: string,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> {
    return {
      update_id: this.nextUpdateId++,
      message: {
        message_id: this.nextMessageId++,
        date: Math.floor(Date.now() / 1000),
        chat,
        from: { ...from, is_bot: false },
        text,
        ...extra,
      },
    };
  }

  /** Posts an Update the way Telegram does, repeating it (up to `attempts`) while the answer is not 2xx. */
  async deliverUpdate(
    webhookUrl: string,
    secretToken: string | undefined,
    update: Record<string, unknown>,
    attempts = 1,
  ): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < attempts; i++) {
      const response = await fetch(webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secretToken !== undefined ? { 'x-telegram-bot-api-secret-token': secretToken } : {}),
        },
        body: JSON.stringify(update),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
      if (response.ok) break;
    }
    return statuses;
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    if (!match || match[1] !== this.token) return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
    if (match[2] !== 'sendMessage')
      return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found: method not found' } };
    const params = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Omit<SentMessage, 'status'>;
    if (typeof params.text !== 'string' || params.text.length === 0)
      return this.record(params, 400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
    if (params.text.length > 4096)
      return this.record(params, 400, { ok: false, error_code: 400, description: 'Bad Request: message is too long' });
    const scripted = this.script.shift();
    if (scripted) {
      return this.record(params, scripted.status, {
        ok: false,
        error_code: scripted.status,
        description: scripted.description,
        ...(scripted.retryAfter !== undefined ? { parameters: { retry_after: scripted.retryAfter } } : {}),
      });
    }
    return this.record(params, 200, {
      ok: true,
      result: {
        message_id: this.nextMessageId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: params.chat_id, type: 'private' },
        text: params.text,
      },
    });
  }

  private record(params: Omit<SentMessage, 'status'>, status: number, body: unknown): { status: number; body: unknown } {
    this.sent.push({ ...params, status });
    return { status, body };
  }
}
