/**
 * `TENET_AUTH=on TENET_ADMIN_KEY=… npm start`: the all-in-one host requires keys and still seeds the demo agent
 * (as an admin of `default`, with the key it was given), which then answers a customer through the API.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort } from '@tenet/testing';

const root = new URL('../../', import.meta.url).pathname;

describe('npm start with API keys required', () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  let output = '';

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-auth-demo-'));
  });

  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('boots, seeds the demo agent with TENET_ADMIN_KEY, refuses callers without a key, and the demo agent answers', async () => {
    const port = await freePort();
    const adminKey = randomBytes(32).toString('base64url');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      TENET_DATA_DIR: dataDir,
      TENET_MODE: 'embedded',
      TENET_AUTH: 'on',
      TENET_ADMIN_KEY: adminKey,
      TENET_LLM_PROVIDER: 'offline',
    };
    delete env['TENET_DEMO'];
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    child = spawn('sh', ['-c', `exec ${scripts['start']}`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    const admin = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };

    await eventually(
      async () => {
        expect(child?.exitCode).toBeNull();
        expect(output).toContain('demo agent "');
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    ).catch((error: unknown) => {
      throw new Error(`npm start did not seed the demo with keys required: ${String(error)}\n--- output ---\n${output}`);
    });

    expect((await fetch(`${url}/agents/demo-support`)).status).toBe(401);
    const agent = await fetch(`${url}/agents/demo-support`, { headers: admin });
    expect(agent.status).toBe(200);

    const session = (await (
      await fetch(`${url}/sessions`, { method: 'POST', headers: admin, body: JSON.stringify({ agent_id: 'demo-support' }) })
    ).json()) as { id: string };
    const posted = await fetch(`${url}/sessions/${session.id}/events`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ kind: 'message', source: 'customer', message: 'I want my money back' }),
    });
    expect(posted.status).toBe(201);
    const reply = await eventually(
      async () => {
        const events = (await (
          await fetch(`${url}/sessions/${session.id}/events?min_offset=1&kinds=message&source=ai_agent&wait_for_data=10`, {
            headers: admin,
          })
        ).json()) as { data: { message: string } }[];
        expect(events.length).toBeGreaterThan(0);
        return events[0]!.data.message;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(reply.length).toBeGreaterThan(0);
    expect(output).not.toContain(adminKey);

    // docs/security.md's first-key command, as written, with the admin key: it makes a workspace's admin key.
    const firstKey = readFileSync(join(root, 'docs/security.md'), 'utf8').match(/`(curl -XPOST \$TENET\/keys [^`]+)`/)?.[1];
    expect(firstKey).toBeDefined();
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', `${firstKey!} -s -w '\\n%{http_code}'`], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, TENET: url, TENET_ADMIN_KEY: adminKey },
    });
    const [body, status] = run.stdout.trim().split('\n');
    expect(status).toBe('201');
    expect(JSON.parse(body!)).toMatchObject({ role: 'admin', workspace_id: 'acme', key: expect.stringMatching(/^tnt_/) });
  });
});
