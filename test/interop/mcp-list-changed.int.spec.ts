import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startAllInOne, startGatewayOnly, startMessageHandlers, ToolExecutorHostModule } from '@tenet/hosts';
import { ScriptedProvider } from '@tenet/llm/testing';
import { loadPlatformConfig, tenetStreamsFor } from '@tenet/platform-runtime';
import { deleteRedisKeys, deleteStreams, describeWithService, eventually, natsUrl, probeNats, probeRedis, redisUrl } from '@tenet/testing';
import { z } from 'zod';
import { gatewayHttp } from '../api/support/gateway-http.js';

/**
 * An MCP server built on the official SDK's `McpServer` over stateful Streamable HTTP (one server instance per
 * session, as the SDK's examples do). `addTool` registers a tool on every live session's server, which makes the
 * SDK send `notifications/tools/list_changed` on that session's notification stream.
 */
async function changingMcpServer(): Promise<{ url: string; addTool: (name: string, reply: string) => void; close: () => Promise<void> }> {
  const extra: { name: string; reply: string }[] = [];
  const servers = new Set<McpServer>();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const register = (server: McpServer, name: string, reply: string) =>
    server.registerTool(name, { description: `Says ${reply}`, inputSchema: { person: z.string() } }, ({ person }) => ({
      content: [{ type: 'text', text: `${reply}, ${person}` }],
    }));
  const http: Server = createServer((request, response) => {
    void (async () => {
      const sessionId = request.headers['mcp-session-id'];
      const known = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (known) return known.handleRequest(request, response);
      if (request.method !== 'POST') return void response.writeHead(400).end();
      const server = new McpServer({ name: 'changing-tools', version: '1.0.0' });
      register(server, 'greet', 'Hello');
      for (const tool of extra) register(server, tool.name, tool.reply);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void transports.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
        servers.delete(server);
      };
      servers.add(server);
      await server.connect(transport);
      await transport.handleRequest(request, response);
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    addTool: (name, reply) => {
      extra.push({ name, reply });
      for (const server of servers) register(server, name, reply);
    },
    close: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

interface ServiceRead {
  tools: { name: string; required: string[] }[];
}

/**
 * An MCP server's tool-list change refreshes the stored service — the executor keeps a session open to the
 * server it reached, hears `notifications/tools/list_changed`, and the gateway that stores the service describes it
 * again. Embedded (one process, a turn then calls the new tool) and distributed (gateway and executor as separate
 * Nest applications on real NATS and Redis).
 */
describe('MCP tools/list_changed refreshes the stored service (embedded)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let mcp: Awaited<ReturnType<typeof changingMcpServer>>;
  const provider = new ScriptedProvider();
  const { call, turnEvents } = gatewayHttp(() => url);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-mcp-changed-'));
    mcp = await changingMcpServer();
    provider.answerAlways<{ message: string; guidelines: { id: string; tools?: { name: string }[] }[] }>('match_guidelines', (request) => ({
      matches: request.task.input.guidelines.map((g) => ({
        guideline_id: g.id,
        relevance: 1,
        confidence: 1,
        reasoning: 'scripted',
        tool_arguments: (g.tools ?? []).map((tool) => ({ tool_name: tool.name, arguments_json: JSON.stringify({ person: 'Ada' }) })),
      })),
    }));
    provider.answerAlways<{ tool_results?: { data?: unknown; error?: string }[] }>('compose_reply', (request) => ({
      message: `The tool said: ${JSON.stringify((request.task.input.tool_results ?? []).map((r) => r.data ?? r.error))}`,
      cited_guideline_ids: [],
      canned_response_id: '',
      cited_chunk_ids: [],
    }));
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' },
      { provider, toolAllowedHosts: [new URL(mcp.url).host] },
    ));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await mcp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a tool the server adds after registration is stored, listed and called by the next turn', async () => {
    const registered = await call('/services/changing', 'PUT', { kind: 'mcp', mcp: { url: mcp.url } });
    expect(registered.status).toBe(200);
    expect((registered.body as ServiceRead).tools.map((t) => t.name)).toEqual(['greet']);

    mcp.addTool('farewell', 'Goodbye');
    await eventually(
      async () =>
        expect(((await call('/services/changing')).body as ServiceRead).tools.map((t) => t.name).sort()).toEqual(['farewell', 'greet']),
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    // A later change reaches the gateway over the standing session's notification stream.
    mcp.addTool('thank', 'Thanks');
    await eventually(
      async () =>
        expect(((await call('/services/changing')).body as ServiceRead).tools.map((t) => t.name).sort()).toEqual([
          'farewell',
          'greet',
          'thank',
        ]),
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(((await call('/services/changing')).body as ServiceRead).tools.find((t) => t.name === 'farewell')).toMatchObject({
      required: ['person'],
    });

    const agent = (await call('/agents', 'POST', { name: 'Changing tools' })).body as { id: string };
    expect(
      (
        await call('/guidelines', 'POST', {
          condition: 'The customer leaves',
          action: 'Say goodbye with the tool',
          tools: ['changing:farewell'],
          tags: [`agent:${agent.id}`],
        })
      ).status,
    ).toBe(201);
    const session = (await call('/sessions', 'POST', { agent_id: agent.id })).body as { id: string };
    const events = await turnEvents<{
      offset: number;
      kind: string;
      source: string;
      correlation_id: string;
      data: { status?: string; message?: string };
    }>(session.id, 'I am leaving now');
    expect(events.filter((e) => e.kind === 'status').at(-1)?.data.status).toBe('ready');
    expect(events.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data.message).toContain('Goodbye, Ada');
  }, 60_000);
});

const [nats, redis] = await Promise.all([probeNats(), probeRedis()]);
describeWithService(
  nats.available ? redis : nats,
  'MCP tools/list_changed refreshes the stored service (distributed: gateway and executor apart)',
  () => {
    let dir: string;
    let gateway: { app: INestApplication; url: string };
    let executor: INestApplication;
    let mcp: Awaited<ReturnType<typeof changingMcpServer>>;
    const namespace = `test-${randomUUID()}`;
    const redisPrefix = `test-${randomUUID()}`;
    const { call } = gatewayHttp(() => gateway.url);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tenet-mcp-changed-d-'));
      mcp = await changingMcpServer();
      const env = {
        TENET_MODE: 'distributed',
        TENET_DATA_DIR: dir,
        NATS_URL: natsUrl(),
        REDIS_URL: redisUrl(),
        TENET_REDIS_PREFIX: redisPrefix,
        TENET_NAMESPACE: namespace,
        TENET_AUTH: 'off',
        TENET_DEMO: 'off',
      };
      executor = await NestFactory.create(
        ToolExecutorHostModule.forRoot(loadPlatformConfig(env, 'tool-executor-test'), { allowedHosts: [new URL(mcp.url).host] }),
        { logger: false },
      );
      await startMessageHandlers(executor, 'tool-executor');
      await executor.init();
      gateway = await startGatewayOnly(env);
    }, 60_000);

    afterAll(async () => {
      await gateway?.app.close();
      await executor?.close();
      await mcp?.close();
      await deleteStreams(
        natsUrl(),
        tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
      );
      await deleteRedisKeys(redisUrl(), redisPrefix);
      rmSync(dir, { recursive: true, force: true });
    });

    it('the executor process hears the change and the gateway process stores the new list', async () => {
      const registered = await call('/services/changing', 'PUT', { kind: 'mcp', mcp: { url: mcp.url } });
      expect(registered.status).toBe(200);
      expect((registered.body as ServiceRead).tools.map((t) => t.name)).toEqual(['greet']);
      mcp.addTool('farewell', 'Goodbye');
      await eventually(
        async () =>
          expect(((await call('/services/changing')).body as ServiceRead).tools.map((t) => t.name).sort()).toEqual(['farewell', 'greet']),
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      // A later change reaches the gateway over the standing session's notification stream.
      mcp.addTool('thank', 'Thanks');
      await eventually(
        async () =>
          expect(((await call('/services/changing')).body as ServiceRead).tools.map((t) => t.name).sort()).toEqual([
            'farewell',
            'greet',
            'thank',
          ]),
        { timeoutMs: 15_000, intervalMs: 200 },
      );
    }, 60_000);
  },
);
