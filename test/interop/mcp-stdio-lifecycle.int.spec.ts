import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ToolServiceV1 } from '@tenet/contracts';
import { eventually, descendantsOf } from '@tenet/testing';
import { outboundPolicyFromEnv, ToolServices } from '@tenet/tools-service';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-memory/package.json');
const MEMORY = join(
  dirname(manifest),
  Object.values((JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin)[0] ?? '',
);

const memoryPids = (): number[] =>
  descendantsOf(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('server-memory');
    } catch {
      return false;
    }
  });

/** The executor's stdio MCP servers (server-memory from npm): started on first use, restarted when killed, stopped on close. */
describe('MCP stdio servers run by the tool executor', () => {
  let dir: string;
  let services: ToolServices;
  let service: ToolServiceV1;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-stdio-'));
    services = new ToolServices(outboundPolicyFromEnv({ TENET_TOOL_STDIO_COMMANDS: process.execPath }));
    service = {
      name: 'memory',
      kind: 'mcp',
      url: 'stdio:node',
      stdio: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
    };
  });

  afterEach(async () => {
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps one process across calls, restarts it when it dies, and stops it on close', async () => {
    const context = { agent_id: 'a', session_id: 's', customer_id: 'c' };
    await services.call(
      service,
      'create_entities',
      { entities: [{ name: 'Grace', entityType: 'person', observations: ['found a moth'] }] },
      { idempotencyKey: 'k1', timeoutMs: 15_000, context },
    );
    const [first] = memoryPids();
    expect(first).toBeDefined();
    expect((await services.describe(service)).tools.map((t) => t.name)).toContain('read_graph');
    expect(memoryPids()).toEqual([first]);

    process.kill(first ?? 0, 'SIGKILL');
    // Restarted without waiting for a call…
    await eventually(() => expect(memoryPids().filter((pid) => pid !== first)).toHaveLength(1), { timeoutMs: 20_000 });
    // …and the state it wrote to its file is there.
    const graph = await services.call(service, 'read_graph', {}, { idempotencyKey: 'k2', timeoutMs: 15_000, context });
    expect(JSON.stringify(graph.data)).toContain('Grace');

    await services.close();
    await eventually(() => expect(memoryPids()).toEqual([]), { timeoutMs: 10_000 });
  }, 60_000);

  it('refuses a command the policy does not list, before running anything', async () => {
    const closed = new ToolServices(outboundPolicyFromEnv({}));
    try {
      await expect(closed.describe(service)).rejects.toMatchObject({
        code: 'TOOLS.TARGET_NOT_ALLOWED',
        message: expect.stringContaining('TENET_TOOL_STDIO_COMMANDS') as unknown,
      });
      expect(memoryPids()).toEqual([]);
    } finally {
      await closed.close();
    }
  });
});
