import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { eventually, freePort } from '@tenet/testing';
import { chromium, type Browser } from 'playwright-core';
import { startChannelHost, type ChannelHost } from './support/channel-host.js';

const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const withBrowser = existsSync(chromiumPath) ? describe : describe.skip;
if (!existsSync(chromiumPath)) process.stdout.write(`widget: no Chromium at ${chromiumPath} (set CHROMIUM_PATH); skipped\n`);

/**
 * The embeddable widget in a real browser: a shop's page on another origin drops in the `<script>`, a visitor sends a
 * message and sees the agent's reply, reloads and sees the conversation again (the visitor token is kept).
 */
withBrowser('web widget (headless Chromium, all-in-one)', () => {
  let host: ChannelHost;
  let url: string;
  let site: Server;
  let siteUrl: string;
  let browser: Browser;
  let channelId: string;
  const call: ChannelHost['call'] = (...args) => host.call(...args);

  beforeAll(async () => {
    host = await startChannelHost('widget');
    url = host.url;
    const agent = await host.agent('Shop assistant');
    await call('PUT', '/bindings/default-agent', { agent_id: agent });
    const port = await freePort();
    siteUrl = `http://localhost:${port}`;
    const channel = await call<{ id: string; credentials: Record<string, unknown> }>('POST', '/channels', {
      kind: 'widget',
      name: 'Shop widget',
      settings: { allowed_origins: siteUrl, title: 'Ask the shop' },
    });
    expect(channel.status).toBe(201);
    expect(Object.keys(channel.body.credentials)).toEqual(['widget_secret']);
    channelId = channel.body.id;
    // The shop: another origin than Tenet's, so the widget works across origins (CORS) as on a real site.
    site = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><html><head><title>Shop</title></head><body><h1>Our shop</h1><script src="${url}/channels/${channelId}/widget.js" async></script></body></html>`,
        ),
    );
    await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  }, 120_000);

  afterAll(async () => {
    const started = Date.now();
    await browser?.close();
    site?.closeAllConnections();
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
    await host?.close();
    process.stdout.write(`widget: closed in ${Date.now() - started} ms\n`);
  }, 120_000);

  it('send a message, see the reply, reload, see the history', async () => {
    const page = await browser.newPage();
    await page.goto(siteUrl);
    await page.locator('#tenet-widget button.open').click();
    await page.locator('#tenet-widget input[name="text"]').fill('Hello, do you ship to Norway?');
    await page.locator('#tenet-widget input[name="text"]').press('Enter');
    const agentMessages = page.locator('#tenet-widget .msg.agent');
    await agentMessages.first().waitFor({ timeout: 60_000 });
    expect(await page.locator('#tenet-widget .msg.visitor').allTextContents()).toEqual(['Hello, do you ship to Norway?']);
    const reply = (await agentMessages.allTextContents())[0];
    expect(reply).toBeTruthy();

    await page.reload();
    await page.locator('#tenet-widget button.open').click();
    await page.locator('#tenet-widget .msg.agent').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('#tenet-widget .msg.visitor').allTextContents()).toEqual(['Hello, do you ship to Norway?']);
    expect((await page.locator('#tenet-widget .msg.agent').allTextContents())[0]).toBe(reply);
    // One visitor, one session: the reload kept the token.
    await eventually(async () => expect((await call<unknown[]>('GET', '/sessions')).body).toHaveLength(1));
    await page.close();
  }, 120_000);

  it('CORS only for the allowed origins; the visitor token is required and checked', async () => {
    const allowed = await fetch(`${url}/channels/${channelId}/widget/visitors`, {
      method: 'OPTIONS',
      headers: { origin: siteUrl, 'access-control-request-method': 'POST' },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(siteUrl);
    const other = await fetch(`${url}/channels/${channelId}/widget/visitors`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${url}/channels/${channelId}/widget/messages`)).status).toBe(401);
    expect(
      (
        await fetch(`${url}/channels/${channelId}/widget/messages`, {
          headers: { authorization: 'Bearer wv1.AAAAAAAAAAAAAAAAAAAAAA.' + 'B'.repeat(43) },
        })
      ).status,
    ).toBe(401);
    const forged = await fetch(`${url}/channels/${channelId}/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
      body: JSON.stringify({ message_id: 'x', text: 'hi' }),
    });
    expect(forged.status).toBe(401);
  });
});
