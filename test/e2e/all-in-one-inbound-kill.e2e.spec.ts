import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '@tenet/channels-service';
import { generateSecretsKey } from '@tenet/secrets';
import { eventually, freePort } from '@tenet/testing';
import Database from 'better-sqlite3';
import { WebhookReceiver } from '../channels/support/webhook-receiver.js';

const root = new URL('../../', import.meta.url).pathname;
const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const SECRET = randomBytes(24).toString('hex');

/**
 * ADR 0003's amendment: `npm start` (all-in-one, no Redis) acknowledges a platform's message once it is a job in
 * `jobs.sqlite`. Killed with SIGKILL right after the acknowledgements — while some of those jobs have not run —
 * the restarted process posts every acknowledged message to the session, once each.
 */
describe('npm start: inbound messages acknowledged before a kill -9 are processed after the restart', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  let receiver: WebhookReceiver;
  let output = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-inbound-kill-'));
    receiver = await new WebhookReceiver(SECRET).start();
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await receiver?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (port: number, env: NodeJS.ProcessEnv): Promise<ChildProcess> => {
    // exec'd by a shell so the pid is node's own: the SIGKILL reaches the process that holds the jobs.
    const started = spawn('sh', ['-c', `exec ${scripts['start']}`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(async () => expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200), {
      timeoutMs: 90_000,
      intervalMs: 250,
    }).catch((error: unknown) => {
      throw new Error(`npm start did not become healthy: ${String(error)}\n--- output ---\n${output}`);
    });
    return started;
  };

  it('kill -9 after the 200s, restart on the same TENET_DATA_DIR: every acknowledged message reaches the session once', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      TENET_DATA_DIR: dataDir,
      TENET_MODE: 'embedded',
      TENET_DEMO: 'off',
      TENET_AUTH: 'off',
      TENET_SECRETS_KEY: generateSecretsKey(),
      TENET_CHANNELS_ALLOW_PRIVATE_TARGETS: 'on',
    };
    for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'TENET_NAMESPACE', 'TENET_PUBLIC_URL']) delete env[name];
    const call = async <T>(path: string, method = 'GET', body?: unknown): Promise<T> => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (response.status >= 400) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
      return (response.status === 204 ? undefined : await response.json()) as T;
    };

    child = await start(port, env);
    const agent = await call<{ id: string }>('/agents', 'POST', { name: 'Support' });
    await call('/bindings/default-agent', 'PUT', { agent_id: agent.id });
    const channel = await call<{ id: string }>('/channels', 'POST', {
      kind: 'webhook',
      name: 'CRM',
      credentials: { signing_secret: SECRET },
      settings: { outbound_url: receiver.url },
    });

    // One conversation's messages are processed one after another, so the last ones are still jobs when the
    // process dies right after acknowledging them all.
    const texts = Array.from({ length: 6 }, (_, i) => `message ${i} ${randomUUID()}`);
    const statuses = await Promise.all(
      texts.map(async (text, i) => {
        const raw = JSON.stringify({ message_id: `m-${i}`, sender: { id: 'u-1' }, conversation_id: 'c-1', text });
        const response = await fetch(`${base}/channels/${channel.id}/inbound`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-tenet-signature': signWebhook(SECRET, raw, Date.now()) },
          body: raw,
        });
        return response.status;
      }),
    );
    child.kill('SIGKILL');
    expect(statuses).toEqual(texts.map(() => 200));
    await new Promise((resolve) => child!.once('exit', resolve));

    // The window was hit: acknowledged messages were pending on disk when the process died.
    const db = new Database(join(dataDir, 'jobs.sqlite'), { readonly: true });
    const pending = (db.prepare("SELECT count(*) AS n FROM jobs WHERE queue = 'channel-inbound'").get() as { n: number }).n;
    db.close();
    expect(pending).toBeGreaterThan(0);

    child = await start(port, env);
    const customerTexts = async (): Promise<string[]> => {
      const sessions = await call<Array<{ id: string }>>(`/sessions?agent_id=${agent.id}`);
      const texts: string[] = [];
      for (const session of sessions) {
        const events = await call<Array<{ kind: string; source: string; data: { message?: string } }>>(
          `/sessions/${session.id}/events?kinds=message`,
        );
        for (const event of events) if (event.source === 'customer' && event.data.message) texts.push(event.data.message);
      }
      return texts.sort();
    };
    await eventually(async () => expect(await customerTexts()).toEqual([...texts].sort()), { timeoutMs: 60_000, intervalMs: 300 });
    // No duplicate shows up late.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await customerTexts()).toEqual([...texts].sort());
  }, 240_000);
});
