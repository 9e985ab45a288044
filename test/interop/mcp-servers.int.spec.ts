import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { ScriptedProvider } from '@tenet/llm/testing';
import type { EventStore } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { generateSecretsKey } from '@tenet/secrets';
import { freePort, killGroup, runCommand, type RunningCommand } from '@tenet/testing';
import { gatewayHttp } from '../api/support/gateway-http.js';

const require = createRequire(import.meta.url);
/** The official reference servers, installed from npm as devDependencies (their own `bin` entry points). */
const binOf = (name: string): string => {
  const manifest = require.resolve(`${name}/package.json`);
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> | string }).bin;
  return join(dirname(manifest), typeof bin === 'string' ? bin : (Object.values(bin)[0] ?? ''));
};
const EVERYTHING = binOf('@modelcontextprotocol/server-everything');
const MEMORY = binOf('@modelcontextprotocol/server-memory');

interface Event {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: {
    message?: string;
    status?: string;
    data?: Record<string, unknown>;
    tool_calls?: { tool_id: string; arguments: Record<string, unknown>; result: { data: unknown } }[];
  };
}

/** Starts server-everything in one transport mode on its own port and waits until it answers HTTP. */
async function everything(mode: 'streamableHttp' | 'sse'): Promise<{ running: RunningCommand; port: number }> {
  const port = await freePort();
  const running = runCommand(`${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} ${mode}`, {
    cwd: tmpdir(),
    env: { PATH: process.env['PATH'], PORT: String(port) },
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) });
      return { running, port };
    } catch {
      if (Date.now() > deadline || running.child.exitCode !== null)
        throw new Error(`server-everything ${mode} did not start: ${running.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Interop with the official MCP reference servers (ADR 0022): server-everything over Streamable HTTP and over the
 * legacy HTTP+SSE transport, server-memory over stdio run by the tool executor. Each is registered, listed, and
 * called in a turn whose (scripted) model picks the tool with arguments and quotes its result; a guideline tied to
 * each kind of tool never fails an unrelated turn.
 */
describe('official MCP servers: Streamable HTTP, HTTP+SSE, stdio (embedded, scripted model)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let http: { running: RunningCommand; port: number };
  let sse: { running: RunningCommand; port: number };
  const provider = new ScriptedProvider();

  /** Arguments the "model" extracts for each tool it is offered; a guideline whose condition says "unrelated" never applies. */
  const ARGUMENTS: Record<string, Record<string, unknown>> = {
    echo: { message: 'interop hello' },
    'get-sum': { a: 19, b: 23 },
    create_entities: { entities: [{ name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first program'] }] },
  };

  const { call, turnEvents } = gatewayHttp(() => url);
  const turn = (sessionId: string, message: string): Promise<Event[]> => turnEvents<Event>(sessionId, message);

  const savedKey = process.env['TENET_SECRETS_KEY'];

  beforeAll(async () => {
    // A stdio server's env is sealed like a credential.
    process.env['TENET_SECRETS_KEY'] = generateSecretsKey();
    dir = mkdtempSync(join(tmpdir(), 'tenet-interop-mcp-'));
    [http, sse] = await Promise.all([everything('streamableHttp'), everything('sse')]);
    provider.answerAlways<{ message: string; guidelines: { id: string; condition: string; tools?: { name: string }[] }[] }>(
      'match_guidelines',
      (request) => ({
        matches: request.task.input.guidelines
          .filter(
            (g) =>
              !/unrelated/.test(request.task.input.message) &&
              request.task.input.message.includes(g.condition.split(' ').at(-1) ?? '\u0000'),
          )
          .map((g) => ({
            guideline_id: g.id,
            relevance: 1,
            confidence: 1,
            reasoning: 'scripted',
            tool_arguments: (g.tools ?? []).map((tool) => ({
              tool_name: tool.name,
              arguments_json: JSON.stringify(ARGUMENTS[tool.name.split(':').at(-1) ?? ''] ?? {}),
            })),
          })),
      }),
    );
    provider.answerAlways<{ tool_results?: { tool_id: string; data?: unknown; error?: string }[] }>('compose_reply', (request) => ({
      message:
        (request.task.input.tool_results ?? []).length > 0
          ? `The tool said: ${JSON.stringify(request.task.input.tool_results?.map((r) => r.data ?? r.error))}`
          : 'Happy to help with anything else.',
      cited_guideline_ids: [],
      canned_response_id: '',
      cited_chunk_ids: [],
    }));
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' },
      { provider, toolAllowedHosts: [`127.0.0.1:${http.port}`, `127.0.0.1:${sse.port}`], toolStdioCommands: [process.execPath] },
    ));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    for (const server of [http, sse]) if (server) killGroup(server.running);
    if (savedKey === undefined) delete process.env['TENET_SECRETS_KEY'];
    else process.env['TENET_SECRETS_KEY'] = savedKey;
    rmSync(dir, { recursive: true, force: true });
  });

  const services = () => ({
    'everything-http': { kind: 'mcp', mcp: { url: `http://127.0.0.1:${http.port}/mcp` } },
    'everything-sse': { kind: 'mcp', mcp: { url: `http://127.0.0.1:${sse.port}/sse` } },
    memory: { kind: 'mcp', mcp: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } } },
  });

  it('registers each server and lists its tools (draft-07 schemas included)', async () => {
    for (const [name, body] of Object.entries(services())) {
      const reply = await call(`/services/${name}`, 'PUT', body);
      expect({ name, status: reply.status, body: reply.status === 200 ? undefined : reply.body }).toEqual({
        name,
        status: 200,
        body: undefined,
      });
      const tools = (reply.body as { tools: { name: string; parameters: Record<string, { type: string }>; required: string[] }[] }).tools;
      if (name.startsWith('everything')) {
        expect(tools.find((t) => t.name === 'echo')).toMatchObject({ parameters: { message: { type: 'string' } }, required: ['message'] });
        expect(tools.find((t) => t.name === 'get-sum')).toMatchObject({ required: ['a', 'b'] });
      } else {
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_entities', 'read_graph', 'search_nodes']));
      }
    }
    const listed = ((await call('/services')).body as { name: string; kind: string; url: string }[]).filter((s) => s.name in services());
    expect(listed.map((s) => [s.name, s.kind]).sort()).toEqual([
      ['everything-http', 'mcp'],
      ['everything-sse', 'mcp'],
      ['memory', 'mcp'],
    ]);
    expect(listed.find((s) => s.name === 'memory')?.url).toMatch(/^stdio:/);
    // The stdio server's env is stored sealed and never read back.
    const memoryFile = join(dir, 'memory.jsonl');
    expect(JSON.stringify((await call('/services/memory')).body)).not.toContain(memoryFile);
    expect(JSON.stringify(await app.get<EventStore>(EVENT_STORE).readAll({ afterPosition: 0, limit: 100_000 }))).not.toContain(memoryFile);
  }, 60_000);

  it.each([
    ['everything-http', 'echo', 'Please echo this', /Echo: interop hello/],
    ['everything-sse', 'get-sum', 'Please add the numbers for my sum', /42/],
    ['memory', 'create_entities', 'Please remember Ada in memory', /Ada Lovelace/],
  ])(
    'a turn calls %s:%s with arguments and quotes its result; an unrelated turn of the same agent is unaffected',
    async (service, tool, message, quoted) => {
      expect((await call(`/services/${service}`, 'PUT', services()[service as keyof ReturnType<typeof services>])).status).toBe(200);
      const agent = (await call('/agents', 'POST', { name: `${service} agent` })).body as { id: string };
      const condition = `The customer asks about ${message.split(' ').at(-1) ?? ''}`;
      expect(
        (
          await call('/guidelines', 'POST', {
            condition,
            action: 'Use the tool and tell them its result',
            tools: [`${service}:${tool}`],
            tags: [`agent:${agent.id}`],
          })
        ).status,
      ).toBe(201);
      const session = (await call('/sessions', 'POST', { agent_id: agent.id })).body as { id: string };

      const unrelated = await turn(session.id, 'Something unrelated: what are your opening hours?');
      expect(unrelated.filter((e) => e.kind === 'status').at(-1)?.data.status).toBe('ready');

      const events = await turn(session.id, message);
      expect(events.filter((e) => e.kind === 'status').at(-1)?.data.status).toBe('ready');
      const toolEvent = events.find((e) => e.kind === 'tool');
      expect(toolEvent?.data.tool_calls?.[0]).toMatchObject({ tool_id: `${service}:${tool}`, arguments: ARGUMENTS[tool] });
      const reply = events.find((e) => e.kind === 'message' && e.source === 'ai_agent');
      expect(reply?.data.message).toMatch(quoted);
    },
    90_000,
  );

  it('an MCP URL that speaks neither transport is a 422 naming both transports and their statuses', async () => {
    const reply = await call('/services/nowhere', 'PUT', { kind: 'mcp', mcp: { url: `http://127.0.0.1:${http.port}/not-mcp` } });
    expect(reply.status).toBe(422);
    const detail = (reply.body as { detail: { loc: string[]; msg: string; type: string }[] }).detail[0];
    expect(detail).toMatchObject({ loc: ['body', 'mcp', 'url'], type: 'TOOLS.HTTP_ERROR' });
    expect(detail?.msg).toMatch(/Streamable HTTP: HTTP 404; HTTP\+SSE: HTTP 404/);
  });

  it('a stdio command the operator did not allow, or one that cannot start, is a 422 naming command', async () => {
    const refused = await call('/services/shell', 'PUT', { kind: 'mcp', mcp: { command: 'sh', args: ['-c', 'echo pwned'] } });
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: { loc: string[]; msg: string }[] }).detail[0]).toMatchObject({
      loc: ['body', 'mcp', 'command'],
      msg: expect.stringContaining('TENET_TOOL_STDIO_COMMANDS') as unknown,
    });
    const dies = await call('/services/dies', 'PUT', {
      kind: 'mcp',
      mcp: { command: process.execPath, args: ['-e', 'console.error("no MCP here"); process.exit(3)'] },
    });
    expect(dies.status).toBe(422);
    expect((dies.body as { detail: { msg: string }[] }).detail[0]?.msg).toMatch(/did not start.*no MCP here/);
    expect((await call('/services/dies')).status).toBe(404);
  });
});
