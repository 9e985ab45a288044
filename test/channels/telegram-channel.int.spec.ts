import { randomBytes } from 'node:crypto';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { startChannelHost, type ChannelHost } from './support/channel-host.js';
import { TelegramStandIn } from './support/telegram-stand-in.js';

const TOKEN = `7000001:${randomBytes(27).toString('base64url')}`;
const SECRET_TOKEN = `tg_${randomBytes(12).toString('hex')}`;
const ANN = { id: 501, first_name: 'Ann' };
const BOB = { id: 502, first_name: 'Bob' };
const GROUP = { id: -100_777, type: 'supergroup' as const, title: 'Acme customers' };

interface SessionEvent {
  kind: string;
  source: string;
  data: { message?: string };
}

describe('Telegram channel (grammY against a local Bot API stand-in; all-in-one, embedded)', () => {
  let host: ChannelHost;
  let telegram: TelegramStandIn;
  let webhook: string;
  let support: string;
  let groupDesk: string;
  const call: ChannelHost['call'] = (...args) => host.call(...args);
  const sessionsOf = async (agentId: string): Promise<Array<{ id: string; customer_id: string }>> =>
    (await call<Array<{ id: string; customer_id: string }>>('GET', `/sessions?agent_id=${agentId}`)).body;
  const customerMessages = async (sessionId: string): Promise<string[]> =>
    (await call<SessionEvent[]>('GET', `/sessions/${sessionId}/events?kinds=message`)).body
      .filter((e) => e.source === 'customer')
      .map((e) => e.data.message ?? '');

  beforeAll(async () => {
    telegram = await new TelegramStandIn(TOKEN).start();
    host = await startChannelHost('telegram');
    support = await host.agent('Support');
    groupDesk = await host.agent('Group desk');
    const channel = await call<{ id: string; inbound_url: string; account_id: string }>('POST', '/channels', {
      kind: 'telegram',
      name: 'Acme bot',
      credentials: { bot_token: TOKEN, secret_token: SECRET_TOKEN },
      settings: { api_root: telegram.apiRoot },
    });
    expect(channel.status).toBe(201);
    expect(channel.body.account_id).toBe('7000001');
    webhook = channel.body.inbound_url;
    await call('PUT', '/bindings/default-agent', { agent_id: support });
    expect((await call('POST', '/bindings', { agent_id: groupDesk, channel: 'telegram', guild_id: String(GROUP.id) })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    await telegram?.stop();
  });

  it('a private message reaches the default agent and the reply comes back with sendMessage (HTML) in that chat', async () => {
    expect(
      await telegram.deliverUpdate(
        webhook,
        SECRET_TOKEN,
        telegram.update({ id: ANN.id, type: 'private' }, ANN, 'Hello, where is my order?'),
      ),
    ).toEqual([200]);
    await eventually(() => expect(telegram.delivered(ANN.id)).toHaveLength(1), { timeoutMs: 30_000 });
    expect(telegram.delivered(ANN.id)[0]).toMatchObject({ parse_mode: 'HTML' });
    const [session] = await sessionsOf(support);
    expect(await customerMessages(session!.id)).toEqual(['Hello, where is my order?']);
  });

  it('a group is a guild: its binding picks the agent, the reply goes to the group', async () => {
    await telegram.deliverUpdate(webhook, SECRET_TOKEN, telegram.update(GROUP, BOB, 'Hi all, question about invoices'));
    await eventually(() => expect(telegram.delivered(GROUP.id)).toHaveLength(1), { timeoutMs: 30_000 });
    const [session] = await sessionsOf(groupDesk);
    expect(await customerMessages(session!.id)).toEqual(['Hi all, question about invoices']);
  });

  it('Telegram redelivering the same update is one customer event', async () => {
    const update = telegram.update({ id: 503, type: 'private' }, { id: 503, first_name: 'Cy' }, 'Once only');
    await Promise.all([1, 2, 3].map(() => telegram.deliverUpdate(webhook, SECRET_TOKEN, update)));
    await eventually(() => expect(telegram.delivered(503)).toHaveLength(1), { timeoutMs: 30_000 });
    await telegram.deliverUpdate(webhook, SECRET_TOKEN, update);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const counts = await Promise.all(
      (await sessionsOf(support)).map(async (s) => (await customerMessages(s.id)).filter((m) => m === 'Once only').length),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('a wrong or missing secret token is 401 and nothing is stored', async () => {
    expect(
      await telegram.deliverUpdate(
        webhook,
        'wrong-token',
        telegram.update({ id: 504, type: 'private' }, { id: 504, first_name: 'Eve' }, 'spoofed update'),
      ),
    ).toEqual([401]);
    expect(
      await telegram.deliverUpdate(
        webhook,
        undefined,
        telegram.update({ id: 504, type: 'private' }, { id: 504, first_name: 'Eve' }, 'spoofed update'),
      ),
    ).toEqual([401]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(JSON.stringify(await host.app.get<EventStore>(EVENT_STORE, { strict: false }).readAll({ limit: 100_000 }))).not.toContain(
      'spoofed update',
    );
    expect(telegram.sent.filter((m) => m.chat_id === 504)).toEqual([]);
  });

  it('429 with retry_after, then 200 → the reply is delivered once', async () => {
    telegram.answerNext({ status: 429, retryAfter: 1, description: 'Too Many Requests: retry after 1' });
    await telegram.deliverUpdate(
      webhook,
      SECRET_TOKEN,
      telegram.update({ id: 505, type: 'private' }, { id: 505, first_name: 'Dee' }, 'Busy day?'),
    );
    await eventually(() => expect(telegram.delivered(505)).toHaveLength(1), { timeoutMs: 30_000 });
    expect(telegram.sent.filter((m) => m.chat_id === 505).map((m) => m.status)).toEqual([429, 200]);
  });

  it('in manual mode the human agent’s long message is delivered split at 4096, in order', async () => {
    const sessionOfAnn = (await Promise.all((await sessionsOf(support)).map(async (s) => ({ s, m: await customerMessages(s.id) })))).find(
      (x) => x.m.includes('Hello, where is my order?'),
    )!.s;
    expect((await call('PATCH', `/sessions/${sessionOfAnn.id}`, { mode: 'manual' })).status).toBe(200);
    const paragraphs = Array.from({ length: 9 }, (_, i) => `Paragraph ${i}: ${'word '.repeat(190).trim()}`);
    const long = paragraphs.join('\n\n');
    expect(long.length).toBeGreaterThan(8000);
    const posted = await call('POST', `/sessions/${sessionOfAnn.id}/events`, {
      kind: 'message',
      source: 'human_agent',
      message: long,
      participant: { display_name: 'Operator' },
    });
    expect(posted.status).toBe(201);
    await eventually(() => expect(telegram.delivered(ANN.id).length).toBeGreaterThanOrEqual(4), { timeoutMs: 30_000 });
    const parts = telegram
      .delivered(ANN.id)
      .slice(1)
      .map((m) => m.text);
    expect(parts.every((p) => p.length <= 4096)).toBe(true);
    expect(parts.join('\n\n')).toBe(long);
  });

  it('a photo gets a polite note; a session that ended is continued in a new one', async () => {
    await telegram.deliverUpdate(
      webhook,
      SECRET_TOKEN,
      telegram.update({ id: 506, type: 'private' }, { id: 506, first_name: 'Fay' }, undefined as unknown as string, {
        text: undefined,
        photo: [{ file_id: 'f', file_unique_id: 'u', width: 1, height: 1 }],
      }),
    );
    await eventually(() => expect(telegram.delivered(506)[0]?.text).toMatch(/only read text/), { timeoutMs: 30_000 });

    await telegram.deliverUpdate(
      webhook,
      SECRET_TOKEN,
      telegram.update({ id: 507, type: 'private' }, { id: 507, first_name: 'Gus' }, 'First visit'),
    );
    await eventually(() => expect(telegram.delivered(507)).toHaveLength(1), { timeoutMs: 30_000 });
    const first = (await Promise.all((await sessionsOf(support)).map(async (s) => ({ s, m: await customerMessages(s.id) })))).find((x) =>
      x.m.includes('First visit'),
    )!.s;
    expect((await call('PATCH', `/sessions/${first.id}`, { status: 'completed' })).status).toBe(200);
    await telegram.deliverUpdate(
      webhook,
      SECRET_TOKEN,
      telegram.update({ id: 507, type: 'private' }, { id: 507, first_name: 'Gus' }, 'Back again'),
    );
    await eventually(() => expect(telegram.delivered(507)).toHaveLength(2), { timeoutMs: 30_000 });
    const next = (await Promise.all((await sessionsOf(support)).map(async (s) => ({ s, m: await customerMessages(s.id) })))).find((x) =>
      x.m.includes('Back again'),
    )!.s;
    expect(next.id).not.toBe(first.id);
    expect(next.customer_id).toBe(first.customer_id);
  });
});
