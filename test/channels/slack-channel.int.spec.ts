import { randomBytes } from 'node:crypto';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { eventually } from '@tenet/testing';
import { startChannelHost, type ChannelHost } from './support/channel-host.js';
import { SlackStandIn } from './support/slack-stand-in.js';

const TOKEN = `xoxb-1111-2222-${randomBytes(12).toString('hex')}`;
const SIGNING_SECRET = randomBytes(16).toString('hex');
const BOT_USER = 'U0TENETBOT';

describe('Slack channel (@slack/web-api against a local Slack stand-in; all-in-one, embedded)', () => {
  let host: ChannelHost;
  let slack: SlackStandIn;
  let inboundUrl: string;
  let support: string;
  let engineering: string;
  const call: ChannelHost['call'] = (...args) => host.call(...args);
  const allCustomerMessages = (agentId: string): Promise<string[]> => host.customerMessages(agentId);

  beforeAll(async () => {
    slack = await new SlackStandIn(TOKEN, SIGNING_SECRET).start();
    host = await startChannelHost('slack');
    support = await host.agent('Support');
    engineering = await host.agent('Engineering help');
    const channel = await call<{ id: string; inbound_url: string }>('POST', '/channels', {
      kind: 'slack',
      name: 'Acme Slack',
      credentials: { bot_token: TOKEN, signing_secret: SIGNING_SECRET },
      settings: { api_url: slack.apiUrl, bot_user_id: BOT_USER },
    });
    expect(channel.status).toBe(201);
    inboundUrl = channel.body.inbound_url;
    await call('PUT', '/bindings/default-agent', { agent_id: support });
    await call('POST', '/bindings', { agent_id: engineering, channel: 'slack', peer_id: 'C0ENG' });
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    await slack?.stop();
  });

  it('answers the URL verification challenge', async () => {
    const [answer] = await slack.deliverEvent(inboundUrl, { token: 'legacy', challenge: 'chal-123', type: 'url_verification' });
    expect(answer).toMatchObject({ status: 200 });
    expect(JSON.parse(answer!.body)).toEqual({ challenge: 'chal-123' });
  });

  it('a channel message → the bound agent → the reply in the thread it started, within Slack’s 3 s', async () => {
    const event = slack.messageEvent({
      channel: 'C0ENG',
      channel_type: 'channel',
      user: 'U0ANN',
      text: `<@${BOT_USER}> the build is **red**, help?`,
    });
    const [answer] = await slack.deliverEvent(inboundUrl, event);
    expect(answer!.status).toBe(200);
    expect(answer!.ms).toBeLessThan(3_000);
    const ts = (event['event'] as { ts: string }).ts;
    await eventually(() => expect(slack.delivered('C0ENG', ts)).toHaveLength(1), { timeoutMs: 30_000 });
    expect(await allCustomerMessages(engineering)).toEqual(['the build is **red**, help?']);
    // A reply in that thread is the same conversation (one session).
    await slack.deliverEvent(
      inboundUrl,
      slack.messageEvent({ channel: 'C0ENG', channel_type: 'channel', user: 'U0ANN', text: 'still red', thread_ts: ts }),
    );
    await eventually(() => expect(slack.delivered('C0ENG', ts)).toHaveLength(2), { timeoutMs: 30_000 });
    expect((await call<unknown[]>('GET', `/sessions?agent_id=${engineering}`)).body).toHaveLength(1);
  });

  it('a direct message goes to the default agent and is answered without a thread; the bot’s own messages are ignored', async () => {
    await slack.deliverEvent(inboundUrl, slack.messageEvent({ channel: 'D0BOB', channel_type: 'im', user: 'U0BOB', text: 'hello' }));
    await eventually(() => expect(slack.delivered('D0BOB')).toHaveLength(1), { timeoutMs: 30_000 });
    await slack.deliverEvent(
      inboundUrl,
      slack.messageEvent({ channel: 'D0BOB', channel_type: 'im', user: BOT_USER, text: 'echo of myself' }),
    );
    await slack.deliverEvent(
      inboundUrl,
      slack.messageEvent({ channel: 'D0BOB', channel_type: 'im', bot_id: 'B0TENET', subtype: 'bot_message', text: 'a bot post' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await allCustomerMessages(support)).toEqual(['hello']);
    expect(slack.delivered('D0BOB')).toHaveLength(1);
  });

  it('Slack’s retries of the same event are one customer event', async () => {
    const event = slack.messageEvent({ channel: 'D0CY', channel_type: 'im', user: 'U0CY', text: 'once please' });
    const answers = await slack.deliverEvent(inboundUrl, event, { attempts: 3 });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await eventually(() => expect(slack.delivered('D0CY')).toHaveLength(1), { timeoutMs: 30_000 });
    expect((await allCustomerMessages(support)).filter((m) => m === 'once please')).toHaveLength(1);
  });

  it('a bad, stale or missing signature is 401 and nothing is stored', async () => {
    const event = slack.messageEvent({ channel: 'D0EVE', channel_type: 'im', user: 'U0EVE', text: 'forged slack message' });
    const raw = JSON.stringify(event);
    expect((await slack.deliverEvent(inboundUrl, event, { signature: 'v0=' + '0'.repeat(64) }))[0]!.status).toBe(401);
    expect((await slack.deliverEvent(inboundUrl, event, { signature: null }))[0]!.status).toBe(401);
    const stale = await fetch(inboundUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': '1000000000',
        'x-slack-signature': 'v0=' + '1'.repeat(64),
      },
      body: raw,
    });
    expect(stale.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(JSON.stringify(await host.app.get<EventStore>(EVENT_STORE, { strict: false }).readAll({ limit: 100_000 }))).not.toContain(
      'forged slack message',
    );
  });

  it('HTTP 429 with Retry-After, then 200 → posted once', async () => {
    slack.answerNext({ status: 429, retryAfter: 1 });
    await slack.deliverEvent(inboundUrl, slack.messageEvent({ channel: 'D0DEE', channel_type: 'im', user: 'U0DEE', text: 'busy?' }));
    await eventually(() => expect(slack.delivered('D0DEE')).toHaveLength(1), { timeoutMs: 30_000 });
    expect(slack.posted.filter((m) => m.channel === 'D0DEE').map((m) => m.status)).toEqual([429, 200]);
  });

  it('a platform error that cannot pass (channel_not_found) fails at once and is listed', async () => {
    slack.answerNext({ status: 200, error: 'channel_not_found' });
    await slack.deliverEvent(inboundUrl, slack.messageEvent({ channel: 'D0GONE', channel_type: 'im', user: 'U0GONE', text: 'anyone?' }));
    const channelId = inboundUrl.split('/').at(-2)!;
    await eventually(
      async () =>
        expect(
          (await call<Array<{ last_error: string }>>('GET', `/channels/${channelId}/deliveries?status=failed`)).body[0]?.last_error,
        ).toContain('channel_not_found'),
      { timeoutMs: 30_000 },
    );
    expect(slack.posted.filter((m) => m.channel === 'D0GONE')).toHaveLength(1);
  });
});
