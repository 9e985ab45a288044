import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { generateSecretsKey } from '@tenet/secrets';
import { jsonClient } from './support/http.js';

const SECRET = 'a-webhook-signing-secret-of-32-chars-or-more';
type Detail = { detail: { loc: unknown[]; msg: string }[] };

/**
 * The webhook channel's `outbound_url` may not point at loopback, private, link-local or metadata
 * addresses (SSRF) — refused with a 422 naming the field on POST and on PATCH — unless the operator sets
 * TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on (not set here; the other channel tests set it for their local receivers).
 */
describe('webhook channel: outbound_url SSRF guard through the API', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  const saved = { ...process.env };
  const call = jsonClient(() => url);

  beforeAll(async () => {
    process.env['TENET_SECRETS_KEY'] = generateSecretsKey();
    delete process.env['TENET_CHANNELS_ALLOW_PRIVATE_TARGETS'];
    delete process.env['TENET_CHANNELS_GATEWAY_URL'];
    dir = mkdtempSync(join(tmpdir(), 'tenet-webhook-ssrf-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' }));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
    process.env = saved;
  });

  const webhook = (outbound: string) => ({
    kind: 'webhook',
    name: 'CRM',
    credentials: { signing_secret: SECRET },
    settings: { outbound_url: outbound },
  });

  it.each([
    'http://127.0.0.1:8080/in',
    'http://localhost/in',
    'http://10.0.0.1/in',
    'http://172.16.5.4/in',
    'http://192.168.1.20/in',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/in',
    'http://[fe80::1]/in',
    'http://[fc00::1]/in',
    'http://[::ffff:127.0.0.1]/in',
  ])('POST refuses %s with a 422 naming settings.outbound_url', async (outbound) => {
    const reply = await call<Detail>('POST', '/channels', webhook(outbound));
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([
      {
        loc: ['body', 'settings', 'outbound_url'],
        msg: expect.stringMatching(/non-public address.*TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on/) as unknown,
        type: 'value_error',
      },
    ]);
  });

  it('PATCH refuses a private outbound_url too, and the stored one is unchanged', async () => {
    const created = await call<{ id: string; settings: Record<string, string> }>(
      'POST',
      '/channels',
      webhook('https://hooks.example.invalid/in'),
    );
    expect(created.status).toBe(201);
    const patched = await call<Detail>('PATCH', `/channels/${created.body.id}`, { settings: { outbound_url: 'http://169.254.169.254/' } });
    expect(patched.status).toBe(422);
    expect(patched.body.detail[0]?.loc).toEqual(['body', 'settings', 'outbound_url']);
    expect((await call<{ settings: Record<string, string> }>('GET', `/channels/${created.body.id}`)).body.settings).toEqual({
      outbound_url: 'https://hooks.example.invalid/in',
    });
  });
});
