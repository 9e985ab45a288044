import { createServer, type IncomingMessage, type Server } from 'node:http';
import { signSlack } from '@tenet/channels-service';
import { freePort } from '@tenet/testing';

export interface PostedMessage {
  channel: string;
  text: string;
  thread_ts?: string;
  status: number;
}

/**
 * A local Slack, as api.slack.com describes the wire: the Web API at `/api/<method>` (form-encoded or JSON bodies, a
 * Bearer bot token; `{ ok: false, error }` with HTTP 200 for platform errors, HTTP 429 + Retry-After when rate
 * limited) and the Events API's side: signed requests (`v0=` HMAC of `v0:<ts>:<body>`), the url_verification
 * challenge, retries with X-Slack-Retry-Num when the answer is not 2xx within its deadline.
 */
export class SlackStandIn {
  readonly posted: PostedMessage[] = [];
  private readonly script: Array<{ status: number; retryAfter?: number; error?: string }> = [];
  private server: Server | undefined;
  private clock = 1_700_000_000;
  apiUrl = '';

  constructor(
    private readonly token: string,
    private readonly signingSecret: string,
  ) {}

  async start(): Promise<this> {
    const port = await freePort();
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, body, headers }) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)),
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.apiUrl = `http://127.0.0.1:${port}/api/`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  answerNext(...answers: Array<{ status: number; retryAfter?: number; error?: string }>): void {
    this.script.push(...answers);
  }

  delivered(channel: string, thread?: string): PostedMessage[] {
    return this.posted.filter((m) => m.status === 200 && m.channel === channel && m.thread_ts === thread);
  }

  /** An event_callback envelope around a message event. */
  messageEvent(event: Record<string, unknown>): Record<string, unknown> {
    const ts = `${this.clock++}.000100`;
    return {
      token: 'legacy',
      team_id: 'T0ACME',
      api_app_id: 'A0TENET',
      type: 'event_callback',
      event_id: `Ev${ts.replace('.', '')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: { type: 'message', ts, event_ts: ts, ...event },
    };
  }

  /** Sends an Events API request as Slack does: signed now (or with the given signature), retried while not 2xx. */
  async deliverEvent(
    url: string,
    body: Record<string, unknown>,
    options: { attempts?: number; signature?: string | null } = {},
  ): Promise<Array<{ status: number; body: string; ms: number }>> {
    const raw = JSON.stringify(body);
    const answers: Array<{ status: number; body: string; ms: number }> = [];
    for (let retry = 0; retry < (options.attempts ?? 1); retry++) {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = options.signature === undefined ? signSlack(this.signingSecret, timestamp, raw) : options.signature;
      const started = Date.now();
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': String(timestamp),
          ...(signature !== null ? { 'x-slack-signature': signature } : {}),
          ...(retry > 0 ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' } : {}),
        },
        body: raw,
        signal: AbortSignal.timeout(3_000),
      });
      answers.push({ status: response.status, body: await response.text(), ms: Date.now() - started });
      if (response.ok && (options.attempts ?? 1) === 1) break;
    }
    return answers;
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (req.headers.authorization !== `Bearer ${this.token}`) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
    if (req.url !== '/api/chat.postMessage') return { status: 200, body: { ok: false, error: 'unknown_method' } };
    const params = (req.headers['content-type'] ?? '').startsWith('application/json')
      ? (JSON.parse(raw) as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(raw));
    const record = (status: number): PostedMessage => {
      const message: PostedMessage = {
        channel: String(params['channel']),
        text: String(params['text'] ?? ''),
        status,
        ...(params['thread_ts'] ? { thread_ts: String(params['thread_ts']) } : {}),
      };
      this.posted.push(message);
      return message;
    };
    const scripted = this.script.shift();
    if (scripted?.status === 429) {
      record(429);
      return { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': String(scripted.retryAfter ?? 1) } };
    }
    if (scripted?.error) {
      record(400);
      return { status: 200, body: { ok: false, error: scripted.error } };
    }
    if (!params['channel'] || !params['text'])
      return { status: 200, body: { ok: false, error: params['channel'] ? 'no_text' : 'channel_not_found' } };
    const message = record(200);
    return {
      status: 200,
      body: {
        ok: true,
        channel: message.channel,
        ts: `${this.clock++}.000200`,
        message: { text: message.text, ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}) },
      },
    };
  }
}
