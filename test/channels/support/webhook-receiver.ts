import { createServer, type IncomingMessage, type Server } from 'node:http';
import { freePort } from '@tenet/testing';
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from '@tenet/channels-service';

export interface ReceivedWebhook {
  idempotencyKey: string;
  conversationId: string;
  text: string;
  /** What the receiver answered. */
  status: number;
}

/**
 * A system on the other end of a generic webhook channel: verifies Tenet's signature on every delivery (a bad one
 * is answered 401 and recorded as such), and can be told to answer the next requests with 429 + Retry-After or
 * with an error — the wire behaviour of a rate-limited or broken receiver.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly script: Array<{ status: number; retryAfter?: string }> = [];
  private held: (() => void) | undefined;
  private server: Server | undefined;
  url = '';

  constructor(private readonly secret: string) {}

  async start(): Promise<this> {
    const port = await freePort();
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, headers }) => {
        if (status !== 0) res.writeHead(status, headers).end(status === 200 ? '{"ok":true}' : '{"error":"scripted"}');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${port}/tenet-replies`;
    return this;
  }

  /** The next requests get these answers, in order (then 200 again). */
  answerNext(...answers: Array<{ status: number; retryAfter?: string }>): void {
    this.script.push(...answers);
  }

  /** The next signed delivery is never answered (status 0): the sender is left waiting, as a hung receiver does. Resolves when it arrives. */
  holdNext(): Promise<void> {
    return new Promise((resolve) => (this.held = resolve));
  }

  accepted(): ReceivedWebhook[] {
    return this.received.filter((r) => r.status === 200);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; headers: Record<string, string> }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const body = JSON.parse(raw.toString('utf8')) as { idempotency_key: string; conversation_id: string; text: string };
    const signed = verifyWebhookSignature(this.secret, raw, req.headers[WEBHOOK_SIGNATURE_HEADER] as string | undefined, Date.now());
    const hold = signed ? this.held : undefined;
    this.held = undefined;
    const scripted = signed && !hold ? this.script.shift() : undefined;
    const status = !signed ? 401 : hold ? 0 : (scripted?.status ?? 200);
    this.received.push({
      idempotencyKey: String(req.headers['idempotency-key']),
      conversationId: body.conversation_id,
      text: body.text,
      status,
    });
    hold?.();
    return {
      status,
      headers: {
        'content-type': 'application/json',
        ...(scripted?.retryAfter !== undefined ? { 'retry-after': scripted.retryAfter } : {}),
      },
    };
  }
}
