import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort } from '@tenet/testing';
import { createServer, type Server } from 'node:http';
import { startDemoOrderService, type DemoOrderService } from '@tenet/hosts';
import { startWireServer, type WireServer } from '@tenet/llm/testing';

const root = new URL('../../', import.meta.url).pathname;
const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

interface Event {
  offset: number;
  kind: string;
  correlation_id: string;
  data: { status?: string; data?: { code?: string } };
}

/**
 * ADR 0015: `npm start` is killed with SIGKILL while turns hang in the LLM (an OpenAI-wire server that never
 * answers), then started again on the same data dir. Every turn the dead process left open ends with an `error`
 * status coded `TURN.INTERRUPTED`, and a new message in the same session is answered — not blocked by the dead
 * process's lease.
 */
describe('npm start killed with SIGKILL during turns, restarted on the same data dir', () => {
  const children: ChildProcess[] = [];
  let dataDir: string;
  let hanging: WireServer;
  let output = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-crash-'));
    hanging = await startWireServer(() => new Promise(() => undefined));
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await hanging.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (llm: Record<string, string>): Promise<{ child: ChildProcess; url: string }> => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      TENET_DATA_DIR: dataDir,
      TENET_MODE: 'embedded',
      TENET_TURN_LEASE_TTL_MS: '3000',
      ...llm,
    };
    for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_BASE_URL', 'TENET_LLM_PROVIDER']) if (!(key in llm)) delete env[key];
    const child = spawn('sh', ['-c', `exec ${scripts['start']}`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    await eventually(async () => expect((await fetch(`${url}/healthz`)).status).toBe(200), { timeoutMs: 90_000, intervalMs: 250 }).catch(
      (error: unknown) => {
        throw new Error(`npm start did not become healthy: ${String(error)}\n--- output ---\n${output}`);
      },
    );
    return { child, url };
  };

  const json = async <T>(url: string, method = 'GET', body?: unknown): Promise<T> => {
    const response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (response.status >= 300) throw new Error(`${method} ${url} → ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const statusesOf = async (url: string, sessionId: string): Promise<Event[]> =>
    (await json<Event[]>(`${url}/sessions/${sessionId}/events?min_offset=0&kinds=status`)).filter((e) => e.kind === 'status');
  const customerMessages = async (url: string, sessionId: string): Promise<Event[]> =>
    await json<Event[]>(`${url}/sessions/${sessionId}/events?min_offset=0&kinds=message&source=customer`);

  it('closes every turn the dead process left open with TURN.INTERRUPTED, and answers the next message within seconds', async () => {
    // The hanging turns must still be open when the process is killed, however slowly a loaded machine gets there.
    const first = await start({
      OPENAI_API_KEY: 'sk-test-hanging',
      OPENAI_BASE_URL: `${hanging.url}/v1`,
      TENET_LLM_PROVIDER: 'openai',
      TENET_TURN_DEADLINE_MS: '600000',
    });
    const agent = await json<{ id: string }>(`${first.url}/agents`, 'POST', { name: 'Support' });
    await json(`${first.url}/guidelines`, 'POST', {
      condition: 'The customer asks about refunds',
      action: 'Explain the refund policy',
      tags: [`agent:${agent.id}`],
    });
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++)
      sessions.push((await json<{ id: string }>(`${first.url}/sessions`, 'POST', { agent_id: agent.id, customer_id: 'guest' })).id);
    for (const id of sessions)
      await json(`${first.url}/sessions/${id}/events`, 'POST', { kind: 'message', source: 'customer', message: 'Can I get a refund?' });
    // A second message in the first session: its turn waits for the lease the first turn holds.
    await json(`${first.url}/sessions/${sessions[0]}/events`, 'POST', {
      kind: 'message',
      source: 'customer',
      message: 'Hello? A refund please.',
    });
    // Every turn is in flight: processing (hanging in the LLM), or acknowledged and waiting for the lease.
    await eventually(
      async () => {
        for (const id of sessions) expect((await statusesOf(first.url, id)).map((e) => e.data.status)).toContain('processing');
        expect(hanging.requests.length).toBeGreaterThanOrEqual(3);
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );

    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;

    // Restarted without a key: the offline provider answers.
    const second = await start({});
    for (const id of sessions) {
      await eventually(
        async () => {
          const statuses = await statusesOf(second.url, id);
          const messages = await customerMessages(second.url, id);
          for (const [i, message] of messages.entries()) {
            const final = statuses.filter(
              (s) => s.correlation_id === message.correlation_id && ['ready', 'error', 'cancelled'].includes(s.data.status ?? ''),
            );
            // Exactly one final status each: the last message's turn was interrupted; an earlier one may instead
            // have been cancelled by the newer message before the kill (supersession).
            const allowed =
              i === messages.length - 1
                ? [['error', 'TURN.INTERRUPTED']]
                : [
                    ['error', 'TURN.INTERRUPTED'],
                    ['cancelled', undefined],
                  ];
            expect(final).toHaveLength(1);
            expect(allowed).toContainEqual([final[0]!.data.status, final[0]!.data.data?.code]);
          }
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
    }

    // The session's next message is answered: the dead process's lease does not block it.
    const posted = await json<{ offset: number; correlation_id: string }>(`${second.url}/sessions/${sessions[0]}/events`, 'POST', {
      kind: 'message',
      source: 'customer',
      message: 'I want a refund for my order',
    });
    await eventually(
      async () => {
        const statuses = (await statusesOf(second.url, sessions[0]!)).filter((s) => s.correlation_id === posted.correlation_id);
        expect(statuses.map((s) => s.data.status)).toContain('ready');
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );

    const stopped = new Promise<number | null>((resolve) => second.child.once('exit', (code) => resolve(code)));
    second.child.kill('SIGTERM');
    expect(await stopped).toBe(0);
  }, 300_000);

  it('leaves no session AwaitingTool: a turn killed while its tool call hangs is closed and its session is Active again', async () => {
    // A tool service whose operations never answer (its OpenAPI document comes from the demo order service).
    const orders: DemoOrderService = await startDemoOrderService();
    const hangingTool: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => hangingTool.listen(0, '127.0.0.1', resolve));
    const toolHost = `127.0.0.1:${(hangingTool.address() as { port: number }).port}`;
    try {
      const allowed = { TENET_TOOL_ALLOWED_HOSTS: `${orders.hostPort},${toolHost}` };
      const first = await start(allowed);
      expect(
        (
          await fetch(`${first.url}/services/hang`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ kind: 'openapi', openapi: { url: `http://${toolHost}`, source: orders.source } }),
          })
        ).status,
      ).toBe(200);
      const agent = await json<{ id: string }>(`${first.url}/agents`, 'POST', { name: 'Orders', config: { tool_timeout_secs: 300 } });
      await json(`${first.url}/guidelines`, 'POST', {
        condition: 'The customer asks about the status of their order',
        action: 'Tell them the status of their order',
        tools: ['hang:get_order_status'],
        tags: [`agent:${agent.id}`],
      });
      const session = await json<{ id: string }>(`${first.url}/sessions`, 'POST', { agent_id: agent.id });
      await json(`${first.url}/sessions/${session.id}/events`, 'POST', {
        kind: 'message',
        source: 'customer',
        message: 'What is the status of my order 55555?',
      });
      await eventually(
        async () => expect((await json<{ state: string }>(`${first.url}/sessions/${session.id}`)).state).toBe('AwaitingTool'),
        { timeoutMs: 60_000, intervalMs: 100 },
      );

      const exited = new Promise((resolve) => first.child.once('exit', resolve));
      first.child.kill('SIGKILL');
      await exited;

      const restartedAt = output.length;
      const second = await start(allowed);
      await eventually(
        async () => {
          const final = (await statusesOf(second.url, session.id)).filter((e) => e.data.status === 'error');
          expect(final.map((e) => e.data.data?.code)).toEqual(['TURN.INTERRUPTED']);
          expect((await json<{ state: string }>(`${second.url}/sessions/${session.id}`)).state).toBe('Active');
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      // Stopped once start-up is over: the demo agent is loaded through the API after /healthz answers.
      await eventually(async () => expect(output.slice(restartedAt)).toContain('demo agent'), { timeoutMs: 60_000, intervalMs: 250 });
      const stopped = new Promise<number | null>((resolve) => second.child.once('exit', (code) => resolve(code)));
      second.child.kill('SIGTERM');
      const code = await stopped;
      if (code !== 0) console.log(output.split('\n').slice(-60).join('\n'));
      expect(code).toBe(0);
    } finally {
      hangingTool.closeAllConnections();
      await new Promise<void>((resolve) => hangingTool.close(() => resolve()));
      await orders.close();
    }
  }, 300_000);
});
