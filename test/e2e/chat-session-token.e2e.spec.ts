import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { freePort, killGroup, runCommand, waitHealthy, type RunningCommand } from '@tenet/testing';

/**
 * `/chat` with API keys required: the browser gets only a short-lived session token (in the URL fragment), minted
 * by the site's backend with its key, and the conversation works through it. `npm start` as a process (embedded,
 * TENET_AUTH=on). Chromium comes from CHROMIUM_PATH or /usr/bin/chromium; without one the test is skipped with a
 * printed reason.
 */
const root = new URL('../../', import.meta.url).pathname;
const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const withBrowser = existsSync(chromiumPath) ? describe : describe.skip;
if (!existsSync(chromiumPath)) process.stdout.write(`chat-session-token: no Chromium at ${chromiumPath} (set CHROMIUM_PATH); skipped\n`);

withBrowser('the /chat page from a session token (auth on, npm start)', () => {
  const adminKey = `bootstrap-${randomBytes(24).toString('base64url')}`;
  let dir: string;
  let tenet: RunningCommand | undefined;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-chat-token-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TENET_MODE: 'embedded',
      PORT: String(port),
      TENET_DATA_DIR: dir,
      TENET_DEMO: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_AUTH: 'on',
      TENET_ADMIN_KEY: adminKey,
    };
    delete env['OPENAI_API_KEY'];
    delete env['ANTHROPIC_API_KEY'];
    tenet = runCommand('node --import @swc-node/register/esm-register apps/tenet/src/main.ts', { cwd: root, env });
    await waitHealthy(base, tenet, 300_000);
  }, 320_000);

  afterAll(() => {
    if (tenet) killGroup(tenet);
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, key: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as Record<string, unknown>;
  };

  it('converses through the token alone, drops it from the address bar, and tells a visitor without one what is missing', async () => {
    // The site's backend: an admin sets up the agent; the runtime key opens the session and mints the browser's token.
    const admin = (await call('POST', '/keys', adminKey, { name: 'shop admin', role: 'admin', workspace_id: 'shop' }))['key'] as string;
    const runtime = (await call('POST', '/keys', admin, { name: 'shop backend', role: 'agent-runtime' }))['key'] as string;
    const agent = await call('POST', '/agents', admin, { name: 'Shop helper' });
    await call('POST', '/guidelines', admin, {
      condition: 'the customer greets',
      action: 'greet the customer back warmly',
      tags: [`agent:${agent['id'] as string}`],
    });
    const session = await call('POST', '/sessions', runtime, { agent_id: agent['id'], title: 'Shop chat' });
    const { token } = (await call('POST', `/sessions/${session['id'] as string}/tokens`, runtime, { ttl_secs: 300 })) as { token: string };

    const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const sentAuthorizations = new Set<string>();
      page.on('request', (request) => {
        const header = request.headers()['authorization'];
        if (header) sentAuthorizations.add(header);
      });
      await page.goto(`${base}/chat?session_id=${session['id'] as string}#token=${token}`);
      await page.waitForFunction(`document.getElementById('title').textContent === 'Shop chat'`, undefined, { timeout: 60_000 });
      expect(page.url()).not.toContain(token);
      await page.fill('#text', 'Hello there!');
      await page.click('button');
      await page.waitForFunction(`document.querySelectorAll('.msg.ai_agent').length >= 1`, undefined, { timeout: 120_000 });
      expect(await page.textContent('.msg.customer')).toBe('Hello there!');
      // The browser only ever presented the session token.
      expect([...sentAuthorizations]).toEqual([`Bearer ${token}`]);
      const html = await page.content();
      expect(html).not.toContain(runtime);
      expect(html).not.toContain(admin);

      // Without a token, with keys required: a clear message, no key asked for.
      const visitor = await browser.newPage();
      await visitor.goto(`${base}/chat?agent_id=${agent['id'] as string}`);
      await visitor.waitForFunction(`document.getElementById('sub').textContent.includes('session token')`, undefined, { timeout: 60_000 });
    } finally {
      await browser.close();
    }
  }, 300_000);
});
