import { randomBytes } from 'node:crypto';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { startChannelHost, type ChannelHost } from './support/channel-host.js';
import { WhatsAppStandIn } from './support/whatsapp-stand-in.js';

const ACCESS_TOKEN = `EAAG${randomBytes(24).toString('hex')}`;
const APP_SECRET = randomBytes(16).toString('hex');
const VERIFY_TOKEN = `verify-${randomBytes(12).toString('hex')}`;

describe('WhatsApp Cloud API channel (against a local Graph API stand-in; all-in-one, embedded)', () => {
  let host: ChannelHost;
  let meta: WhatsAppStandIn;
  let inboundUrl: string;
  let support: string;
  let vip: string;
  const call: ChannelHost['call'] = (...args) => host.call(...args);
  const allCustomerMessages = (agentId: string): Promise<string[]> => host.customerMessages(agentId);

  beforeAll(async () => {
    meta = await new WhatsAppStandIn(ACCESS_TOKEN, APP_SECRET, '106540352242922').start();
    host = await startChannelHost('whatsapp');
    support = await host.agent('Support');
    vip = await host.agent('VIP');
    const channel = await call<{ id: string; inbound_url: string; account_id: string }>('POST', '/channels', {
      kind: 'whatsapp',
      name: 'Acme WhatsApp',
      credentials: { access_token: ACCESS_TOKEN, app_secret: APP_SECRET, verify_token: VERIFY_TOKEN },
      settings: { phone_number_id: meta.phoneNumberId, api_url: meta.apiUrl },
    });
    expect(channel.status).toBe(201);
    expect(channel.body.account_id).toBe(meta.phoneNumberId);
    inboundUrl = channel.body.inbound_url;
    await call('PUT', '/bindings/default-agent', { agent_id: support });
    await call('POST', '/bindings', { agent_id: vip, channel: 'whatsapp', peer_id: '4915100000001' });
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    await meta?.stop();
  });

  it('answers Meta’s verification GET with the challenge only for the right verify token', async () => {
    const ok = await fetch(`${inboundUrl}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`);
    expect([ok.status, await ok.text()]).toEqual([200, '1158201444']);
    const wrong = await fetch(`${inboundUrl}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1158201444`);
    expect(wrong.status).toBe(403);
  });

  it('a message in → the agent by binding → the reply sent to that number', async () => {
    expect(
      await meta.deliver(inboundUrl, meta.notification('4915100000001', 'Vera', { type: 'text', text: { body: 'Hallo, I need help' } })),
    ).toBe(200);
    expect(await meta.deliver(inboundUrl, meta.notification('4915100000002', 'Walt', { type: 'text', text: { body: 'Hi there' } }))).toBe(
      200,
    );
    await eventually(
      () => {
        expect(meta.delivered('4915100000001')).toHaveLength(1);
        expect(meta.delivered('4915100000002')).toHaveLength(1);
      },
      { timeoutMs: 30_000 },
    );
    expect(await allCustomerMessages(vip)).toEqual(['Hallo, I need help']);
    expect(await allCustomerMessages(support)).toEqual(['Hi there']);
  });

  it('Meta redelivering the same notification is one customer event', async () => {
    const notification = meta.notification('4915100000003', 'Xia', { type: 'text', text: { body: 'just once' } });
    for (let i = 0; i < 3; i++) expect(await meta.deliver(inboundUrl, notification)).toBe(200);
    await eventually(() => expect(meta.delivered('4915100000003')).toHaveLength(1), { timeoutMs: 30_000 });
    expect((await allCustomerMessages(support)).filter((m) => m === 'just once')).toHaveLength(1);
  });

  it('a bad or missing X-Hub-Signature-256 is 401 and nothing is stored', async () => {
    const forged = meta.notification('4915100000004', 'Yan', { type: 'text', text: { body: 'forged whatsapp message' } });
    expect(await meta.deliver(inboundUrl, forged, `sha256=${'0'.repeat(64)}`)).toBe(401);
    expect(await meta.deliver(inboundUrl, forged, null)).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(JSON.stringify(await host.app.get<EventStore>(EVENT_STORE, { strict: false }).readAll({ limit: 100_000 }))).not.toContain(
      'forged whatsapp message',
    );
  });

  it('throttled (HTTP 429, code 130429), then 200 → delivered once', async () => {
    meta.answerNext({ status: 429, code: 130429, retryAfter: 1 });
    await meta.deliver(inboundUrl, meta.notification('4915100000005', 'Zed', { type: 'text', text: { body: 'busy?' } }));
    await eventually(() => expect(meta.delivered('4915100000005')).toHaveLength(1), { timeoutMs: 30_000 });
    expect(meta.sent.filter((m) => m.to === '4915100000005').map((m) => m.status)).toEqual([429, 200]);
  });

  it('an image gets a polite note', async () => {
    await meta.deliver(
      inboundUrl,
      meta.notification('4915100000006', 'Ada', { type: 'image', image: { id: 'media-1', mime_type: 'image/jpeg', sha256: 'x' } }),
    );
    await eventually(() => expect(meta.delivered('4915100000006')[0]?.body).toMatch(/only read text/), { timeoutMs: 30_000 });
  });
});
