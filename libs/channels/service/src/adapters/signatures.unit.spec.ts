import { retryAfterMs, type InboundRequest } from './channel-adapter.port.js';
import { signSlack, SlackAdapter } from './slack.adapter.js';
import { TelegramAdapter } from './telegram.adapter.js';
import { signWebhook, verifyWebhookSignature } from './webhook.adapter.js';
import { signWhatsApp, WhatsAppAdapter } from './whatsapp.adapter.js';
import { mintVisitorToken, visitorOf } from './widget.adapter.js';

const NOW = 1_800_000_000_000;
const request = (raw: string, headers: Record<string, string>): InboundRequest => ({
  channelId: 'ch_1',
  rawBody: Buffer.from(raw),
  headers,
  body: JSON.parse(raw) as unknown,
  query: {},
});

describe('inbound signatures', () => {
  const body = '{"text":"héllo 👋"}';

  it('generic webhook: HMAC over "<t>.<raw body>", five minutes either way', () => {
    const secret = 's'.repeat(32);
    expect(verifyWebhookSignature(secret, Buffer.from(body), signWebhook(secret, body, NOW), NOW)).toBe(true);
    expect(verifyWebhookSignature(secret, Buffer.from(body), signWebhook(secret, body, NOW - 6 * 60_000), NOW)).toBe(false);
    expect(verifyWebhookSignature(secret, Buffer.from(`${body} `), signWebhook(secret, body, NOW), NOW)).toBe(false);
    expect(verifyWebhookSignature('x'.repeat(32), Buffer.from(body), signWebhook(secret, body, NOW), NOW)).toBe(false);
    expect(verifyWebhookSignature(secret, Buffer.from(body), undefined, NOW)).toBe(false);
    expect(verifyWebhookSignature(secret, Buffer.from(body), 'garbage', NOW)).toBe(false);
  });

  it('Slack: v0 signature of the exact bytes within five minutes', () => {
    const slack = new SlackAdapter();
    const secret = 'a'.repeat(32);
    const ts = NOW / 1000;
    expect(
      slack.verify(
        request(body, { 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signSlack(secret, ts, body) }),
        { signing_secret: secret },
        NOW,
      ),
    ).toBe(true);
    expect(
      slack.verify(
        request(body, { 'x-slack-request-timestamp': String(ts - 301), 'x-slack-signature': signSlack(secret, ts - 301, body) }),
        { signing_secret: secret },
        NOW,
      ),
    ).toBe(false);
    expect(slack.verify(request(body, { 'x-slack-request-timestamp': String(ts) }), { signing_secret: secret }, NOW)).toBe(false);
  });

  it('WhatsApp: sha256= HMAC with the app secret; Telegram: the exact secret token', () => {
    const whatsapp = new WhatsAppAdapter();
    expect(
      whatsapp.verify(request(body, { 'x-hub-signature-256': signWhatsApp('b'.repeat(32), body) }), { app_secret: 'b'.repeat(32) }),
    ).toBe(true);
    expect(
      whatsapp.verify(request(body, { 'x-hub-signature-256': signWhatsApp('c'.repeat(32), body) }), { app_secret: 'b'.repeat(32) }),
    ).toBe(false);
    const telegram = new TelegramAdapter();
    expect(telegram.verify(request(body, { 'x-telegram-bot-api-secret-token': 'tok_1' }), { secret_token: 'tok_1' })).toBe(true);
    expect(telegram.verify(request(body, { 'x-telegram-bot-api-secret-token': 'tok_2' }), { secret_token: 'tok_1' })).toBe(false);
    expect(telegram.verify(request(body, {}), { secret_token: 'tok_1' })).toBe(false);
  });

  it('widget: a visitor token verifies for its channel only', () => {
    const { visitorId, token } = mintVisitorToken('w'.repeat(43), 'ch_1');
    expect(visitorOf('w'.repeat(43), 'ch_1', token)).toBe(visitorId);
    expect(visitorOf('w'.repeat(43), 'ch_2', token)).toBeUndefined();
    expect(visitorOf('v'.repeat(43), 'ch_1', token)).toBeUndefined();
    const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(visitorOf('w'.repeat(43), 'ch_1', tampered)).toBeUndefined();
  });

  it('Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterMs('3', NOW)).toBe(3000);
    expect(retryAfterMs(new Date(NOW + 2000).toUTCString(), NOW)).toBe(2000);
    expect(retryAfterMs(undefined, NOW)).toBe(1000);
    expect(retryAfterMs('soon', NOW)).toBe(1000);
  });
});
