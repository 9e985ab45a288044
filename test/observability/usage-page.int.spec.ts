/**
 * The token-spend page `/admin/usage` after real turns (all-in-one, embedded, offline provider): its tables
 * show what `GET /agents/{id}/usage` reports without any JavaScript, and headless Chromium renders its charts
 * (screenshot written to tmp/screenshots/admin-usage.png). Chromium comes from CHROMIUM_PATH or
 * /usr/bin/chromium; without one the browser check is skipped with a printed reason.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { eventually } from '@tenet/testing';
import { chromium } from 'playwright-core';

const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const screenshots = resolve(import.meta.dirname, '../../tmp/screenshots');

describe('GET /admin/usage', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  const saved = { ...process.env };
  const agents: { id: string; name: string }[] = [];

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-usage-page-'));
    // The offline model is free by default; a price makes the cost chart show bars.
    Object.assign(process.env, {
      TENET_LLM_PROVIDER: 'offline',
      TENET_PRICES: JSON.stringify({ 'offline/tenet-lexical-1': { inputPerMillion: 150, outputPerMillion: 600 } }),
    });
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_SERVICE_NAME: 'tenet-usage-page-test' }));
    for (const [i, name] of ['Support <Team>', 'Sales'].entries()) {
      const agent = await call<{ id: string; name: string }>('POST', '/agents', { name });
      agents.push(agent);
      await call('POST', '/guidelines', {
        condition: 'The customer asks about refunds',
        action: 'Explain the refund policy',
        tags: [`agent:${agent.id}`],
      });
      const session = await call<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
      for (let n = 0; n <= i * 2; n++) {
        const posted = await call<{ offset: number }>('POST', `/sessions/${session.id}/events`, {
          kind: 'message',
          source: 'customer',
          message: `refund for order ${n}?`,
        });
        for (let offset = posted.offset + 1, ready = false; !ready;) {
          const events = await call<{ offset: number; data: { status?: string } }[]>(
            'GET',
            `/sessions/${session.id}/events?min_offset=${offset}&kinds=status&wait_for_data=30`,
          );
          ready = events.some((e) => e.data.status === 'ready');
          offset = events.at(-1)!.offset + 1;
        }
      }
    }
    // Wait until metering has every record the turns produced.
    await eventually(async () => {
      // Each turn meters three calls: matching, composing and recall's query embedding.
      for (const [i, agent] of agents.entries())
        expect((await call<{ calls: number }>('GET', `/agents/${agent.id}/usage`)).calls).toBe((i * 2 + 1) * 3);
    });
  });

  afterAll(async () => {
    await app.close();
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the figures of GET /agents/{id}/usage as HTML tables, names escaped, no script needed', async () => {
    const response = await fetch(`${url}/admin/usage?range=24h`);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).not.toContain('<script');
    expect(html).toContain('Support &#60;Team&#62;');
    for (const agent of agents) {
      const usage = await call<{ calls: number; input_tokens: number; output_tokens: number }>('GET', `/agents/${agent.id}/usage`);
      const row = new RegExp(
        `<small>${agent.id}</small></th><td>${usage.calls}</td><td>${usage.input_tokens.toLocaleString('en-US')}</td><td>${usage.output_tokens.toLocaleString('en-US')}</td>`,
      );
      expect(html).toMatch(row);
    }
    // Both charts (cost and tokens) have a bar segment per agent in the current hour.
    expect((html.match(/<rect /g) ?? []).length).toBe(4);
  });

  it('refuses an unknown range with a 422 naming the parameter', async () => {
    const response = await fetch(`${url}/admin/usage?range=1y`);
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      detail: [expect.objectContaining({ loc: ['query', 'range'], msg: 'range must be one of 24h, 7d, 30d' })],
    });
  });

  it('renders its charts in headless Chromium (screenshot in tmp/screenshots)', async () => {
    if (!existsSync(chromiumPath)) {
      console.warn(`skipped: no Chromium at ${chromiumPath} (set CHROMIUM_PATH)`);
      return;
    }
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 900, height: 1100 }, javaScriptEnabled: false });
      await page.goto(`${url}/admin/usage?range=24h`);
      const bars = page.locator('svg rect');
      expect(await bars.count()).toBeGreaterThanOrEqual(2);
      const box = await bars.first().boundingBox();
      expect(box!.height).toBeGreaterThan(0);
      expect(await page.locator('table').first().innerText()).toContain('Sales');
      mkdirSync(screenshots, { recursive: true });
      const file = join(screenshots, 'admin-usage.png');
      await page.screenshot({ path: file, fullPage: true });
      expect(statSync(file).size).toBeGreaterThan(10_000);
      console.log(`screenshot: ${file}`);
    } finally {
      await browser.close();
    }
  });
});
