import { startChannelHost, type ChannelHost } from './support/channel-host.js';

interface WidgetMessages {
  messages: Array<{ from: 'visitor' | 'agent'; text: string }>;
  next_offset: number;
}

/**
 * The widget's HTTP API without a browser (widget.int.spec.ts drives the script in Chromium, skipped where there is
 * none): a visitor's message, the agent's reply through the long-poll the channel gateway reads from the session
 * gateway, and the history from offset 0 on a reload.
 */
describe('web widget API (all-in-one, embedded)', () => {
  let host: ChannelHost;
  let channelId: string;

  beforeAll(async () => {
    host = await startChannelHost('widget-api');
    await host.call('PUT', '/bindings/default-agent', { agent_id: await host.agent('Website') });
    channelId = (await host.call<{ id: string }>('POST', '/channels', { kind: 'widget', name: 'Shop site', credentials: {}, settings: {} }))
      .body.id;
  }, 120_000);

  afterAll(async () => {
    await host?.close();
  });

  it('a visitor message, the agent reply by long-poll, and the history again from offset 0', async () => {
    const token = (
      (await (await fetch(`${host.url}/channels/${channelId}/widget/visitors`, { method: 'POST' })).json()) as { visitor_token: string }
    ).visitor_token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const sent = await fetch(`${host.url}/channels/${channelId}/inbound`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text: 'Do you ship abroad?' }),
    });
    expect(sent.status).toBe(200);
    const read = async (after: number, wait: number): Promise<WidgetMessages> =>
      (await (
        await fetch(`${host.url}/channels/${channelId}/widget/messages?after=${after}&wait=${wait}`, { headers })
      ).json()) as WidgetMessages;
    let seen: WidgetMessages['messages'] = [];
    let offset = 0;
    for (let polls = 0; polls < 10 && !seen.some((m) => m.from === 'agent'); polls++) {
      const page = await read(offset, 20);
      seen = [...seen, ...page.messages];
      offset = page.next_offset;
    }
    expect(seen[0]).toEqual(expect.objectContaining({ from: 'visitor', text: 'Do you ship abroad?' }));
    expect(seen.some((m) => m.from === 'agent' && m.text.length > 0)).toBe(true);
    // A reload reads the conversation from the start: the same messages, in order.
    expect((await read(0, 0)).messages.map((m) => m.text)).toEqual(seen.map((m) => m.text));
    // Without the visitor's token: 401.
    expect((await fetch(`${host.url}/channels/${channelId}/widget/messages?after=0`)).status).toBe(401);
  }, 120_000);
});
