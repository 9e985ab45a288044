import { createServer, type IncomingMessage, type Server } from 'node:http';
import { signWhatsApp, WHATSAPP_SIGNATURE_HEADER } from '@tenet/channels-service';
import { freePort } from '@tenet/testing';

export interface CloudSent {
  to: string;
  body: string;
  status: number;
}

/**
 * A local WhatsApp Cloud API, as Meta's Graph API reference describes it: `POST /{phone-number-id}/messages` with a
 * Bearer token (`{ messaging_product, contacts, messages: [{ id }] }`, or `{ error: { message, type, code } }` —
 * code 130429 with HTTP 429 when throttled, 190 with 401 for a bad token), and Meta's webhook side: the GET
 * verification with hub.* parameters and notifications signed with the app secret (X-Hub-Signature-256).
 */
export class WhatsAppStandIn {
  readonly sent: CloudSent[] = [];
  private readonly script: Array<{ status: number; code: number; retryAfter?: number }> = [];
  private server: Server | undefined;
  private seq = 1;
  apiUrl = '';

  constructor(
    private readonly accessToken: string,
    private readonly appSecret: string,
    readonly phoneNumberId: string,
  ) {}

  async start(): Promise<this> {
    const port = await freePort();
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, body, headers }) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)),
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.apiUrl = `http://127.0.0.1:${port}/v21.0`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  answerNext(...answers: Array<{ status: number; code: number; retryAfter?: number }>): void {
    this.script.push(...answers);
  }

  delivered(to: string): CloudSent[] {
    return this.sent.filter((m) => m.to === to && m.status === 200);
  }

  /** A notification carrying one inbound message from `from`. */
  notification(from: string, name: string, message: Record<string, unknown>): Record<string, unknown> {
    return {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001234', phone_number_id: this.phoneNumberId },
                contacts: [{ profile: { name }, wa_id: from }],
                messages: [{ from, id: `wamid.${Date.now()}${this.seq++}`, timestamp: String(Math.floor(Date.now() / 1000)), ...message }],
              },
            },
          ],
        },
      ],
    };
  }

  async deliver(url: string, body: Record<string, unknown>, signature?: string | null): Promise<number> {
    const raw = JSON.stringify(body);
    const sig = signature === undefined ? signWhatsApp(this.appSecret, raw) : signature;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(sig !== null ? { [WHATSAPP_SIGNATURE_HEADER]: sig } : {}) },
      body: raw,
    });
    await response.arrayBuffer();
    return response.status;
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.headers.authorization !== `Bearer ${this.accessToken}`)
      return { status: 401, body: { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } } };
    if (req.url !== `/v21.0/${this.phoneNumberId}/messages`)
      return { status: 400, body: { error: { message: 'Unsupported post request.', type: 'GraphMethodException', code: 100 } } };
    const params = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      messaging_product?: string;
      to?: string;
      type?: string;
      text?: { body?: string };
    };
    if (params.messaging_product !== 'whatsapp' || params.type !== 'text' || !params.to || !params.text?.body)
      return { status: 400, body: { error: { message: 'Invalid parameter', type: 'OAuthException', code: 100 } } };
    if (params.text.body.length > 4096)
      return {
        status: 400,
        body: { error: { message: "Param text['body'] must be at most 4096 characters long.", type: 'OAuthException', code: 100 } },
      };
    const scripted = this.script.shift();
    const status = scripted?.status ?? 200;
    this.sent.push({ to: params.to, body: params.text.body, status });
    if (scripted)
      return {
        status: scripted.status,
        body: { error: { message: 'scripted failure', type: 'OAuthException', code: scripted.code } },
        ...(scripted.retryAfter !== undefined ? { headers: { 'retry-after': String(scripted.retryAfter) } } : {}),
      };
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: params.to, wa_id: params.to }],
        messages: [{ id: `wamid.out${this.seq++}` }],
      },
    };
  }
}
