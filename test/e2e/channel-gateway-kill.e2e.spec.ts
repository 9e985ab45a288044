import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '@tenet/channels-service';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import { generateSecretsKey } from '@tenet/secrets';
import {
  deleteRedisKeys,
  deleteStreams,
  describeWithService,
  eventually,
  freePortRange,
  killGroup,
  natsUrl,
  probeNats,
  probeRedis,
  redisUrl,
  runCommand,
  serviceProcess,
  waitHealthy,
  type RunningCommand,
} from '@tenet/testing';
import { WebhookReceiver } from '../channels/support/webhook-receiver.js';

const root = new URL('../../', import.meta.url).pathname;
const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const CHANNEL_GATEWAY = 'apps/channel-gateway/src/main.ts';
const SECRET = randomBytes(24).toString('hex');

const [nats, redis] = await Promise.all([probeNats(), probeRedis()]);

/**
 * ADR 0025, distributed: the channel gateway as its own process (`npm run start:distributed`) learns of
 * the agent's reply from the v2 session topic on NATS and delivers it on BullMQ; killed with SIGKILL while the
 * reply is on its way to the platform, the restarted gateway delivers it — once.
 */
describeWithService(
  nats.available ? redis : nats,
  'channel gateway: a message in, the reply out, kill -9 mid-delivery (start:distributed)',
  () => {
    let dataDir: string;
    let stack: RunningCommand | undefined;
    let receiver: WebhookReceiver;
    const namespace = `chkill-${randomUUID().slice(0, 8)}`;
    const prefix = `tenet-e2e-${randomUUID()}`;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'tenet-channels-kill-'));
      receiver = await new WebhookReceiver(SECRET).start();
    });
    afterAll(async () => {
      if (stack) killGroup(stack);
      await receiver?.stop();
      await deleteStreams(
        natsUrl(),
        tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
      ).catch(() => undefined);
      // Every service's queues and timers of this run (channel inbound and delivery, session timers, budget resets).
      await deleteRedisKeys(redisUrl(), prefix).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('routes by binding, delivers through the v2 topic, and after kill -9 mid-delivery delivers exactly once', async () => {
      const port = await freePortRange(21);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(port),
        TENET_DATA_DIR: dataDir,
        TENET_REDIS_PREFIX: prefix,
        TENET_NAMESPACE: namespace,
        TENET_DEMO: 'off',
        TENET_AUTH: 'off',
        TENET_MATCHER_REPLICAS: '1',
        TENET_SECRETS_KEY: generateSecretsKey(),
        TENET_CHANNELS_ALLOW_PRIVATE_TARGETS: 'on',
      };
      for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'TENET_MODE', 'TENET_CHANNELS_GATEWAY_URL', 'TENET_PUBLIC_URL'])
        delete env[name];
      stack = runCommand(scripts['start:distributed']!, { cwd: root, env });
      const running = stack;
      const gateway = `http://127.0.0.1:${port}`;
      const channels = `http://127.0.0.1:${port + 17}`;
      await waitHealthy(gateway, running);
      await waitHealthy(`http://127.0.0.1:${port + 1}`, running);
      await waitHealthy(channels, running);

      const call = async <T>(base: string, path: string, method = 'GET', body?: unknown): Promise<T> => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        if (response.status >= 400) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
        return (response.status === 204 ? undefined : await response.json()) as T;
      };
      const inbound = async (channelId: string, conversation: string, text: string): Promise<number> => {
        const raw = JSON.stringify({
          message_id: `m-${randomUUID()}`,
          sender: { id: `u-${conversation}` },
          conversation_id: conversation,
          text,
        });
        const response = await fetch(`${channels}/channels/${channelId}/inbound`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-tenet-signature': signWebhook(SECRET, raw, Date.now()) },
          body: raw,
        });
        return response.status;
      };

      const support = await call<{ id: string }>(gateway, '/agents', 'POST', { name: 'Support' });
      const sales = await call<{ id: string }>(gateway, '/agents', 'POST', { name: 'Sales' });
      for (const agent of [support, sales])
        await call(gateway, '/guidelines', 'POST', {
          condition: 'the customer says anything',
          action: 'greet them and offer help',
          tags: [`agent:${agent.id}`],
        });
      await call(channels, '/bindings/default-agent', 'PUT', { agent_id: support.id });
      await call(channels, '/bindings', 'POST', { agent_id: sales.id, channel: 'webhook', peer_id: 'lead-1' });
      const channel = await call<{ id: string }>(channels, '/channels', 'POST', {
        kind: 'webhook',
        name: 'CRM',
        credentials: { signing_secret: SECRET },
        settings: { outbound_url: receiver.url },
      });

      // A message in → the agent its binding names → the reply back in the conversation (from tenet.v2.default.session.…).
      expect(await inbound(channel.id, 'lead-1', 'Hello, I would like a quote')).toBe(200);
      await eventually(() => expect(receiver.accepted().filter((r) => r.conversationId === 'lead-1')).toHaveLength(1), {
        timeoutMs: 120_000,
        intervalMs: 200,
      });
      const [salesSession] = await call<Array<{ id: string }>>(gateway, `/sessions?agent_id=${sales.id}`);
      expect(salesSession).toBeDefined();

      // The next reply reaches a receiver that hangs; the channel gateway is killed while it waits.
      const held = receiver.holdNext();
      expect(await inbound(channel.id, 'walk-in', 'Hi, are you open on Sunday?')).toBe(200);
      await held;
      const launcher = running.child.pid!;
      const first = serviceProcess(launcher, CHANNEL_GATEWAY);
      expect(first).toEqual(expect.any(Number));
      process.kill(first!, 'SIGKILL');

      // The launcher restarts it; the delivery job (in Redis) is taken up again and the reply arrives, once.
      // (Right after the kill the dead process may still be listed until the launcher reaps it: wait for a new one.)
      await eventually(
        () => {
          const restarted = serviceProcess(launcher, CHANNEL_GATEWAY);
          expect(restarted).toEqual(expect.any(Number));
          expect(restarted).not.toBe(first);
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      await waitHealthy(channels, running);
      await eventually(() => expect(receiver.accepted().filter((r) => r.conversationId === 'walk-in')).toHaveLength(1), {
        timeoutMs: 180_000,
        intervalMs: 250,
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const walkIn = receiver.received.filter((r) => r.conversationId === 'walk-in');
      expect(walkIn.filter((r) => r.status === 200)).toHaveLength(1);
      expect(new Set(walkIn.map((r) => r.idempotencyKey)).size).toBe(1);
      const [supportSession] = await call<Array<{ id: string }>>(gateway, `/sessions?agent_id=${support.id}`);
      const messages = await call<Array<{ source: string; data: { message: string } }>>(
        gateway,
        `/sessions/${supportSession!.id}/events?kinds=message`,
      );
      expect(messages.filter((m) => m.source === 'customer').map((m) => m.data.message)).toEqual(['Hi, are you open on Sunday?']);
      expect(running.child.exitCode).toBeNull();
    }, 900_000);
  },
);
