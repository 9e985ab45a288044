/**
 * A tool service's sealed credential never leaves the executor's request to that service. `npm start`
 * runs with OTLP/HTTP trace export to a receiver started here and JSON logs; a turn calls a tool of an API that
 * wants an `api_key` header (and echoes it back, as careless APIs do). Every exported OTLP request body, every log
 * line, every session event and every byte the event log wrote to TENET_DATA_DIR is searched for the secret.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSecretsKey } from '@tenet/secrets';
import { eventually, freePort, killGroup, runCommand, waitHealthy, type RunningCommand } from '@tenet/testing';

const root = new URL('../../', import.meta.url).pathname;
const SECRET = 'pk-live-7f3a9c2e5b1d4086-DO-NOT-LEAK';

/** An OTLP/HTTP receiver keeping every request body as received (whatever the signal: traces, logs, metrics). */
async function startOtlpReceiver(): Promise<{ url: string; bodies: { path: string; body: Buffer }[]; close: () => Promise<void> }> {
  const bodies: { path: string; body: Buffer }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Petstore-like API that wants `api_key` and echoes what it received in its answer. */
async function keyedApi(): Promise<{ url: string; hostPort: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const document = {
    openapi: '3.0.3',
    info: { title: 'Pets with a key', version: '1' },
    components: { securitySchemes: { api_key: { type: 'apiKey', name: 'api_key', in: 'header' } } },
    security: [{ api_key: [] }],
    paths: {
      '/pet/{petId}': {
        get: {
          operationId: 'getPetById',
          summary: 'Find a pet by its id',
          parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
        },
      },
    },
  };
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/openapi.json') return send(200, document);
    const pet = /^\/pet\/(\d+)$/.exec(req.url ?? '');
    if (!pet) return send(404, {});
    calls++;
    if (req.headers['api_key'] !== SECRET) return send(401, { message: 'wrong api_key' });
    send(200, { id: Number(pet[1]), name: 'Rex', received_key: req.headers['api_key'] });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    hostPort: new URL(url).host,
    calls: () => calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every file under `dir`, as bytes. */
const filesUnder = (dir: string): { path: string; bytes: Buffer }[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }];
  });

describe('a sealed tool-service credential is in no span, log line, event or stored byte (npm start, OTLP export on)', () => {
  let dataDir: string;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let api: Awaited<ReturnType<typeof keyedApi>>;
  let stack: RunningCommand | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-secret-export-'));
    [receiver, api] = await Promise.all([startOtlpReceiver(), keyedApi()]);
  });

  afterAll(async () => {
    if (stack) killGroup(stack);
    await receiver?.close();
    await api?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a turn calls the tool with the credential; the secret (plain or base64) appears in none of the outputs', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      TENET_MODE: 'embedded',
      TENET_DATA_DIR: dataDir,
      TENET_DEMO: 'off',
      TENET_AUTH: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_SECRETS_KEY: generateSecretsKey(),
      TENET_TOOL_ALLOWED_HOSTS: api.hostPort,
      TENET_LOG_FORMAT: 'json',
      TENET_LOG_STARTUP: 'verbose',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    delete env['OPENAI_API_KEY'];
    delete env['ANTHROPIC_API_KEY'];
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    stack = runCommand(scripts['start']!, { cwd: root, env });
    const gateway = `http://127.0.0.1:${port}`;
    await waitHealthy(gateway, stack, 300_000);

    const call = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; text: string }> => {
      const response = await fetch(`${gateway}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, text };
    };
    const put = await call('PUT', '/services/pets', {
      kind: 'openapi',
      openapi: { url: api.url, source: `${api.url}/openapi.json` },
      auth: { scheme: 'api_key', in: 'header', name: 'api_key', value: SECRET },
    });
    expect(put.status).toBe(200);
    const agent = (await call<{ id: string }>('POST', '/agents', { name: 'Pets' })).body;
    expect(
      (
        await call('POST', '/guidelines', {
          condition: 'The customer asks about a pet',
          action: 'Look the pet up and tell them its name',
          tools: ['pets:getPetById'],
          tags: [`agent:${agent.id}`],
        })
      ).status,
    ).toBe(201);
    const session = (await call<{ id: string }>('POST', '/sessions', { agent_id: agent.id })).body;
    const posted = (
      await call<{ offset: number }>('POST', `/sessions/${session.id}/events`, {
        kind: 'message',
        source: 'customer',
        message: 'Tell me about the pet 7',
      })
    ).body;
    let events: { kind: string; source: string; data: { status?: string; message?: string } }[] = [];
    await eventually(
      async () => {
        events = (await call<typeof events>('GET', `/sessions/${session.id}/events?min_offset=${posted.offset + 1}&wait_for_data=5`)).body;
        expect(events.some((e) => e.kind === 'status' && (e.data.status === 'ready' || e.data.status === 'error'))).toBe(true);
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    // The credential was used: the API answered the tool call with its pet (it refuses a wrong key with a 401).
    expect(api.calls()).toBeGreaterThan(0);
    const allEvents = (await call('GET', `/sessions/${session.id}/events`)).text;
    expect(allEvents).toContain('Rex');
    const reads = [(await call('GET', '/services')).text, (await call('GET', '/services/pets')).text];

    // The turn's spans (including the executor's call of the tool) were exported.
    await eventually(() => expect(receiver.bodies.map((b) => b.body.toString('utf8')).join('\n')).toContain('tenet.tool.execute'), {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    stack.child.kill('SIGTERM');
    expect(await Promise.race([stack.exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000))])).toBe(0);

    const logs = stack.output();
    expect(logs.split('\n').filter((line) => line.startsWith('{')).length).toBeGreaterThan(5);
    const forms = [SECRET, Buffer.from(SECRET).toString('base64'), SECRET.slice(0, 16)];
    const outputs: [string, Buffer][] = [
      ...receiver.bodies.map((b, i): [string, Buffer] => [`OTLP request ${i} to ${b.path}`, b.body]),
      ...logs.split('\n').map((line, i): [string, Buffer] => [`log line ${i}`, Buffer.from(line)]),
      ['session events', Buffer.from(allEvents)],
      ...reads.map((text, i): [string, Buffer] => [`services read ${i}`, Buffer.from(text)]),
      ...filesUnder(dataDir).map((file): [string, Buffer] => [file.path, file.bytes]),
    ];
    expect(receiver.bodies.length).toBeGreaterThan(0);
    const leaks = outputs.flatMap(([where, bytes]) =>
      forms.filter((form) => bytes.includes(form)).map((form) => `${where} contains ${form === SECRET ? 'the secret' : 'a form of it'}`),
    );
    expect(leaks).toEqual([]);
  }, 600_000);
});
