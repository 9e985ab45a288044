import { createServer, type Server } from 'node:http';
import { DeliveryError } from './channel-adapter.port.js';
import { WebhookAdapter } from './webhook.adapter.js';

const SECRET = 'a-webhook-signing-secret-of-32-chars-or-more';

/**
 * The webhook channel's SSRF guard at delivery time: the address a delivery dials is checked when it connects, so
 * a host that resolves to a loopback/private/metadata address after registration (DNS rebinding) is refused — not
 * retried — unless TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on.
 */
describe('webhook delivery to non-public addresses', () => {
  let server: Server;
  let port: number;
  let received = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      received++;
      req.resume();
      res.writeHead(200).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const target = (outboundUrl: string) => ({
    settings: { outbound_url: outboundUrl },
    credentials: { signing_secret: SECRET },
    address: { conversation_id: 'c1' },
  });

  it.each([
    ['a name that resolves to loopback (checked when the connection is made)', () => `http://localhost:${port}/in`],
    ['a loopback literal', () => `http://127.0.0.1:${port}/in`],
    ['an IPv6 loopback literal', () => `http://[::1]:${port}/in`],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('%s is refused, not retried, and nothing is sent', async (_what, url) => {
    const before = received;
    const error = await new WebhookAdapter().send(target(url()), 'hello', 'key-1').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).retryable).toBe(false);
    expect((error as DeliveryError).message).toMatch(/non-public address .*TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on/);
    expect(received).toBe(before);
  });

  it('registration refuses the same targets, naming settings.outbound_url; a public address passes', async () => {
    const adapter = new WebhookAdapter();
    for (const url of [
      `http://localhost:${port}/in`,
      'http://10.0.0.5/in',
      'http://192.168.0.10/in',
      'http://172.20.1.1/in',
      'http://[fe80::1]/in',
      'http://[fd00::1]/in',
      'http://169.254.169.254/',
    ]) {
      const problems = await adapter.checkTargets({ outbound_url: url });
      expect({ url, problems }).toEqual({
        url,
        problems: [
          { loc: ['settings', 'outbound_url'], msg: expect.stringContaining('TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on') as unknown },
        ],
      });
    }
    expect(await adapter.checkTargets({ outbound_url: 'https://93.184.216.34/in' })).toEqual([]);
  });

  it('with allowPrivateTargets (TENET_CHANNELS_ALLOW_PRIVATE_TARGETS=on) the local receiver gets the delivery', async () => {
    const before = received;
    const adapter = new WebhookAdapter({ allowPrivateTargets: true });
    expect(await adapter.checkTargets({ outbound_url: `http://localhost:${port}/in` })).toEqual([]);
    await adapter.send(target(`http://localhost:${port}/in`), 'hello', 'key-2');
    expect(received).toBe(before + 1);
  });
});
