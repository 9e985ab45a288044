import { randomBytes, randomUUID } from 'node:crypto';
import { signWebhook } from '@tenet/channels-service';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { startChannelHost, type ChannelHost } from './support/channel-host.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = randomBytes(24).toString('hex');

interface SessionEvent {
  kind: string;
  source: string;
  data: { message?: string };
}

describe('generic webhook channel (all-in-one, embedded)', () => {
  let host: ChannelHost;
  let receiver: WebhookReceiver;
  let channelId: string;
  let support: string;
  let vip: string;
  const call: ChannelHost['call'] = (...args) => host.call(...args);

  /** Posts a message to the channel's inbound URL as the sending system does: signed over the exact bytes. */
  const inbound = async (message: Record<string, unknown>, signature?: string): Promise<{ status: number; body: unknown }> => {
    const raw = JSON.stringify(message);
    const response = await fetch(`${host.url}/channels/${channelId}/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenet-signature': signature ?? signWebhook(SECRET, raw, Date.now()) },
      body: raw,
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const message = (conversation: string, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    message_id: `m-${randomUUID()}`,
    sender: { id: `user-${conversation}`, name: `Customer ${conversation}` },
    conversation_id: conversation,
    text,
    ...extra,
  });
  const sessionsOf = async (agentId: string): Promise<Array<{ id: string; customer_id: string }>> =>
    (await call<Array<{ id: string; customer_id: string }>>('GET', `/sessions?agent_id=${agentId}`)).body;
  const customerMessages = async (sessionId: string): Promise<string[]> =>
    (await call<SessionEvent[]>('GET', `/sessions/${sessionId}/events?kinds=message`)).body
      .filter((e) => e.source === 'customer')
      .map((e) => e.data.message ?? '');

  beforeAll(async () => {
    receiver = await new WebhookReceiver(SECRET).start();
    host = await startChannelHost('webhook');
    support = await host.agent('Support');
    vip = await host.agent('VIP desk');
    const created = await call<{ id: string; inbound_url: string; credentials: unknown }>('POST', '/channels', {
      kind: 'webhook',
      name: 'Shop backend',
      credentials: { signing_secret: SECRET },
      settings: { outbound_url: receiver.url },
    });
    expect(created.status).toBe(201);
    channelId = created.body.id;
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    await receiver?.stop();
  });

  it('stores the signing secret sealed: reads show a hint, the log never holds it', async () => {
    const read = await call<{ credentials: Record<string, { set: boolean; hint: string }>; inbound_url: string }>(
      'GET',
      `/channels/${channelId}`,
    );
    expect(read.body.credentials).toEqual({ signing_secret: { set: true, hint: `…${SECRET.slice(-4)}` } });
    expect(read.body.inbound_url).toBe(`${host.url}/channels/${channelId}/inbound`);
    expect(JSON.stringify((await call('GET', '/channels')).body)).not.toContain(SECRET);
    const log = JSON.stringify(await host.app.get<EventStore>(EVENT_STORE, { strict: false }).readAll({ limit: 100_000 }));
    expect(log).not.toContain(SECRET);
  });

  it('a message in → the agent its binding names → the reply is delivered back into the conversation', async () => {
    await call('PUT', '/bindings/default-agent', { agent_id: support });
    const peer = await call<{ id: string }>('POST', '/bindings', { agent_id: vip, channel: 'webhook', peer_id: 'vip-1' });
    expect(peer.status).toBe(201);
    expect((await inbound(message('vip-1', 'Hello, I need help'))).status).toBe(200);
    expect((await inbound(message('walk-in', 'Hello there'))).status).toBe(200);
    await eventually(
      () => {
        expect(
          receiver
            .accepted()
            .map((r) => r.conversationId)
            .sort(),
        ).toEqual(['vip-1', 'walk-in']);
      },
      { timeoutMs: 30_000 },
    );
    const [vipSession] = await sessionsOf(vip);
    const [supportSession] = await sessionsOf(support);
    expect(await customerMessages(vipSession!.id)).toEqual(['Hello, I need help']);
    expect(await customerMessages(supportSession!.id)).toEqual(['Hello there']);
    // The same conversation keeps its session and its customer.
    await inbound(message('vip-1', 'Are you there?'));
    await eventually(async () => expect(await customerMessages(vipSession!.id)).toEqual(['Hello, I need help', 'Are you there?']), {
      timeoutMs: 30_000,
    });
    expect(await sessionsOf(vip)).toHaveLength(1);
  });

  it('a platform retry of the same message is one customer event', async () => {
    const once = message('retry-conv', 'Only once please');
    const answers = await Promise.all([inbound(once), inbound(once), inbound(once)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await eventually(() => expect(receiver.accepted().filter((r) => r.conversationId === 'retry-conv')).toHaveLength(1), {
      timeoutMs: 30_000,
    });
    await inbound(once); // again, after it was processed
    await new Promise((resolve) => setTimeout(resolve, 500));
    const counts = await Promise.all(
      (await sessionsOf(support)).map(async (s) => (await customerMessages(s.id)).filter((m) => m === 'Only once please').length),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('a bad or missing signature is 401 and nothing is stored', async () => {
    const store = host.app.get<EventStore>(EVENT_STORE, { strict: false });
    const forged = message('forged', 'forged message');
    const raw = JSON.stringify(forged);
    expect((await inbound(forged, signWebhook('not-the-secret-but-long-enough-0000', raw, Date.now()))).status).toBe(401);
    expect((await inbound(forged, 't=1,v1=00')).status).toBe(401);
    const unsigned = await fetch(`${host.url}/channels/${channelId}/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    expect(unsigned.status).toBe(401);
    // A replayed signature (older than five minutes) is refused too.
    expect((await inbound(forged, signWebhook(SECRET, raw, Date.now() - 10 * 60_000))).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(JSON.stringify(await store.readAll({ limit: 100_000 }))).not.toContain('forged message');
  });

  it('a changed signing secret acts on the next request: the old one is 401 (opened credentials are kept per sealed value)', async () => {
    const [first, second] = [randomBytes(24).toString('hex'), randomBytes(24).toString('hex')];
    const rotated = await call<{ id: string }>('POST', '/channels', {
      kind: 'webhook',
      name: 'Rotating',
      credentials: { signing_secret: first },
      settings: { outbound_url: receiver.url },
    });
    const signedWith = async (secret: string): Promise<number> => {
      const raw = JSON.stringify(message('rotating', 'hello'));
      return (
        await fetch(`${host.url}/channels/${rotated.body.id}/inbound`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-tenet-signature': signWebhook(secret, raw, Date.now()) },
          body: raw,
        })
      ).status;
    };
    expect(await signedWith(first)).toBe(200);
    expect((await call('PATCH', `/channels/${rotated.body.id}`, { credentials: { signing_secret: second } })).status).toBe(200);
    expect(await signedWith(first)).toBe(401);
    expect(await signedWith(second)).toBe(200);
    expect((await call('DELETE', `/channels/${rotated.body.id}`)).status).toBe(204);
  });

  it('platform 429 with Retry-After, then 200 → delivered once, after the wait', async () => {
    receiver.answerNext({ status: 429, retryAfter: '1' });
    const before = receiver.received.length;
    await inbound(message('busy', 'Hi while you are busy'));
    await eventually(() => expect(receiver.accepted().filter((r) => r.conversationId === 'busy')).toHaveLength(1), { timeoutMs: 30_000 });
    const attempts = receiver.received.slice(before).filter((r) => r.conversationId === 'busy');
    expect(attempts.map((a) => a.status)).toEqual([429, 200]);
    expect(attempts[0]!.idempotencyKey).toBe(attempts[1]!.idempotencyKey);
  });

  it('a delivery that finally fails is listed and can be retried', async () => {
    receiver.answerNext({ status: 400 });
    await inbound(message('broken', 'Hello broken receiver'));
    const failed = await eventually(
      async () => {
        const list = await call<Array<{ event_id: string; status: string; last_error: string }>>(
          'GET',
          `/channels/${channelId}/deliveries?status=failed`,
        );
        expect(list.body).toHaveLength(1);
        return list.body[0]!;
      },
      { timeoutMs: 30_000 },
    );
    expect(failed.last_error).toContain('400');
    expect((await call('POST', `/channels/${channelId}/deliveries/${failed.event_id}/retry`)).status).toBe(202);
    await eventually(() => expect(receiver.accepted().filter((r) => r.conversationId === 'broken')).toHaveLength(1), { timeoutMs: 30_000 });
    expect((await call<unknown[]>('GET', `/channels/${channelId}/deliveries?status=failed`)).body).toEqual([]);
    expect((await call('GET', `/channels/${channelId}/deliveries?status=lost`)).status).toBe(422);
  });

  it('/metrics counts inbound requests, deliveries and failures per channel', async () => {
    const metrics = await (await fetch(`${host.url}/metrics`)).text();
    expect(metrics).toMatch(/tenet_channel_inbound_total\{[^}]*channel="webhook"[^}]*outcome="posted"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/tenet_channel_inbound_total\{[^}]*channel="webhook"[^}]*outcome="unauthorized"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/tenet_channel_delivered_total\{[^}]*channel="webhook"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/tenet_channel_delivery_failed_total\{[^}]*channel="webhook"[^}]*\} 1/);
    expect(metrics).toMatch(/tenet_channel_delivery_seconds_count\{[^}]*channel="webhook"[^}]*\} [1-9]/);
  });

  it('an attachment it cannot read gets a polite note', async () => {
    await inbound(message('photo', '', { text: undefined, attachments: [{ type: 'image', url: 'https://x.test/a.png' }] }));
    await eventually(() => expect(receiver.accepted().find((r) => r.conversationId === 'photo')?.text).toMatch(/only read text/), {
      timeoutMs: 30_000,
    });
  });

  it('no binding and no default agent → a clear refusal to the platform', async () => {
    await call('DELETE', '/bindings/default-agent');
    const resolved = await call<{ outcome: string; reason: string }>('GET', '/bindings/resolve?channel=webhook&peer_id=nobody');
    expect(resolved.body).toMatchObject({
      outcome: 'refused',
      reason: 'no binding matches this conversation and the workspace has no default agent',
    });
    await inbound(message('nobody', 'Is anyone there?'));
    await eventually(
      () => expect(receiver.accepted().find((r) => r.conversationId === 'nobody')?.text).toMatch(/isn't connected to an assistant/),
      { timeoutMs: 30_000 },
    );
    await call('PUT', '/bindings/default-agent', { agent_id: support });
  });
});
