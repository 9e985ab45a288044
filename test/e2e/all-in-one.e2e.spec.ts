import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort } from '@tenet/testing';
import { ParlantClient } from 'parlant-client';

const root = new URL('../../', import.meta.url).pathname;

/** `npm start` as a newcomer runs it: the all-in-one host on embedded adapters, no servers, no API key. */
describe('npm start (all-in-one, embedded adapters)', () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  let output = '';

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-e2e-'));
  });

  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves /healthz and the Parlant API (driven by parlant-client) on PORT, keeps the log in TENET_DATA_DIR, and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), TENET_DATA_DIR: dataDir, TENET_MODE: 'embedded' };
    delete env['OPENAI_API_KEY'];
    delete env['ANTHROPIC_API_KEY'];
    // Exactly the README's `npm start` script, exec'd by a shell so the signal reaches node itself (npm
    // does not wait for its child after forwarding a signal, which would hide the exit code).
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    child = spawn('sh', ['-c', `exec ${scripts['start']}`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

    const health = await eventually(
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(response.status).toBe(200);
        return (await response.json()) as Record<string, unknown>;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch((error: unknown) => {
      throw new Error(`npm start did not become healthy: ${String(error)}\n--- output ---\n${output}`);
    });

    expect(health).toMatchObject({
      status: 'ok',
      mode: 'embedded',
      bus: 'in-process',
      scheduler: 'in-process',
      relay: { state: 'running' },
    });
    expect(health['event_log']).toBe('sqlite'); // no file path in public health output
    expect(existsSync(join(dataDir, 'events.sqlite'))).toBe(true);
    // Loopback only by default (TENET_HOST opens it): another interface of this machine gets no answer.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    if (external) await expect(fetch(`http://${external.address}:${port}/healthz`)).rejects.toThrow();
    else console.warn('no non-loopback IPv4 interface: the loopback-only bind is not checked here');

    // Parlant's own TypeScript client drives the gateway unchanged.
    const client = new ParlantClient({ environment: `http://127.0.0.1:${port}` });
    const agent = await client.agents.create({ name: 'Support', description: 'Helps customers with their orders' });
    expect(await client.agents.retrieve(agent.id)).toMatchObject({ id: agent.id, name: 'Support', compositionMode: 'fluid' });
    const refund = await client.guidelines.create({
      condition: "The customer asks about refunds, returns, or mentions 'money back'",
      action: 'Explain the 30-day refund policy and offer to check their order status',
      tags: [`agent:${agent.id}`],
    });
    const weather = await client.guidelines.create({
      condition: 'The customer asks about the weather forecast',
      action: 'Say you cannot forecast weather',
      tags: [`agent:${agent.id}`],
    });
    const session = await client.sessions.create({ agentId: agent.id, customerId: 'guest', title: 'Refund' });
    expect(session).toMatchObject({ agentId: agent.id, customerId: 'guest', mode: 'auto' });
    const posted = await client.sessions.createEvent(session.id, {
      kind: 'message',
      source: 'customer',
      message: 'I want my money back for order 12345',
    });
    expect(posted).toMatchObject({ kind: 'message', source: 'customer', offset: 0 });
    // Long-poll as Parlant clients do: the agent's reply, then the ready status naming the matched guideline.
    const reply = await client.sessions.listEvents(session.id, { minOffset: 1, kinds: 'message', source: 'ai_agent', waitForData: 30 });
    expect((reply[0]?.data as { message: string }).message).toContain('30-day refund policy');
    let statuses = await client.sessions.listEvents(session.id, { minOffset: 1, kinds: 'status', waitForData: 30 });
    while (!statuses.some((e) => (e.data as { status: string }).status === 'ready')) {
      statuses = [
        ...statuses,
        ...(await client.sessions.listEvents(session.id, { minOffset: statuses.at(-1)!.offset + 1, kinds: 'status', waitForData: 30 })),
      ];
    }
    const ready = statuses.find((e) => (e.data as { status: string }).status === 'ready')!;
    const matched = (ready.data as { data: { matched_guidelines: { guideline_id: string }[] } }).data.matched_guidelines.map(
      (m) => m.guideline_id,
    );
    expect(matched).toEqual([refund.id]);
    expect(matched).not.toContain(weather.id);

    // The demo agent from examples/ is seeded, and the browser chat page is served.
    const demo = await eventually(() => client.agents.retrieve('demo-support'), { timeoutMs: 30_000, intervalMs: 200 });
    expect(demo.name).toBe('Ada from Acme Support');
    const chat = await fetch(`http://127.0.0.1:${port}/chat`);
    expect(chat.headers.get('content-type')).toContain('text/html');
    expect(await chat.text()).toContain('"demo-support"');
    const openapi = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/agents', '/sessions', '/sessions/{sessionId}/events', '/guidelines', '/agents/{agentId}/usage']),
    );

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    // The output says why when the shutdown did not end cleanly.
    expect({ code: await exited, output: (await exited) === 0 ? '' : output.slice(-3_000) }).toEqual({ code: 0, output: '' });
  });
});
