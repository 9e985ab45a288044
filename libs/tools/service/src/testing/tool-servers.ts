import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ToolServiceV1 } from '@tenet/contracts';
import { stringify as toYaml } from 'yaml';
import { z } from 'zod';
import { TEST_TOOLS, ToolBackend, type BackendOutcome } from './tool-backend.js';

/** A running test tool server: its service registration, its backend (the effect counters) and `close`. */
export interface TestToolServer {
  kind: ToolServiceV1['kind'];
  service: ToolServiceV1;
  backend: ToolBackend;
  /** `host:port`, for the executor's allow-list. */
  hostPort: string;
  close(): Promise<void>;
}

const readJson = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
};

const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json'): void => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const keyOf = (req: IncomingMessage): string | undefined => {
  const value = req.headers['idempotency-key'];
  return Array.isArray(value) ? value[0] : value;
};

async function listen(
  server: Server,
  kind: ToolServiceV1['kind'],
  backend: ToolBackend,
  service: (base: string) => ToolServiceV1,
  port = 0,
): Promise<TestToolServer> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: actual } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${actual}`;
  return {
    kind,
    service: service(base),
    backend,
    hostPort: `127.0.0.1:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const handle = (handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>) => (req: IncomingMessage, res: ServerResponse) => {
  handler(req, res).catch((error: unknown) => {
    if (!res.headersSent) send(res, 500, { detail: String(error) });
    else res.end();
  });
};

/** The OpenAPI document of the test server (served as JSON at /openapi.json and YAML at /openapi.yaml). */
export const TEST_OPENAPI_DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Test orders', version: '1.0.0' },
  paths: {
    '/orders/{order_id}': {
      get: {
        operationId: 'get_order',
        summary: 'Status of an order',
        parameters: [{ name: 'order_id', in: 'path', required: true, schema: { type: 'string' }, description: 'The order number' }],
      },
    },
    '/flaky': {
      post: {
        operationId: 'flaky',
        summary: 'Answers 503 to the first attempts of each key, then succeeds',
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } },
          },
        },
      },
    },
    '/slow': {
      get: {
        operationId: 'slow',
        summary: 'Takes ms milliseconds',
        parameters: [{ name: 'ms', in: 'query', required: true, schema: { type: 'integer' } }],
      },
    },
    '/fail': { post: { operationId: 'fail', summary: 'Always reports an error' } },
    '/big': {
      get: {
        operationId: 'big',
        summary: 'Answers bytes bytes of data',
        parameters: [{ name: 'bytes', in: 'query', required: true, schema: { type: 'integer' } }],
      },
    },
  },
};

const openApiReply = (res: ServerResponse, outcome: BackendOutcome): void => {
  if (outcome.kind === 'ok') send(res, 200, outcome.data);
  else if (outcome.kind === 'unavailable') {
    res.setHeader('retry-after', '0');
    send(res, 503, { detail: 'try again' });
  } else send(res, 422, { detail: outcome.message });
};

/** An OpenAPI tool service on node:http (`yaml: true` registers the YAML document as the source). */
export async function startOpenApiToolServer(
  options: { backend?: ToolBackend; yaml?: boolean; port?: number } = {},
): Promise<TestToolServer> {
  const backend = options.backend ?? new ToolBackend();
  const server = createServer(
    handle(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const key = keyOf(req);
      if (req.method === 'GET' && url.pathname === '/openapi.json') return send(res, 200, TEST_OPENAPI_DOCUMENT);
      if (req.method === 'GET' && url.pathname === '/openapi.yaml')
        return send(res, 200, toYaml(TEST_OPENAPI_DOCUMENT), 'application/yaml');
      const order = /^\/orders\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && order?.[1])
        return openApiReply(res, await backend.run(key, 'get_order', { order_id: decodeURIComponent(order[1]) }));
      if (req.method === 'POST' && url.pathname === '/flaky')
        return openApiReply(res, await backend.run(key, 'flaky', (await readJson(req)) as Record<string, unknown>));
      if (req.method === 'GET' && url.pathname === '/slow')
        return openApiReply(res, await backend.run(key, 'slow', { ms: Number(url.searchParams.get('ms')) }));
      if (req.method === 'POST' && url.pathname === '/fail') return openApiReply(res, await backend.run(key, 'fail', {}));
      if (req.method === 'GET' && url.pathname === '/big')
        return openApiReply(res, await backend.run(key, 'big', { bytes: Number(url.searchParams.get('bytes')) }));
      send(res, 404, { detail: 'not found' });
    }),
  );
  return listen(
    server,
    'openapi',
    backend,
    (base) => ({ name: 'orders', kind: 'openapi', url: base, source: `${base}/openapi.${options.yaml ? 'yaml' : 'json'}` }),
    options.port,
  );
}

/** A server speaking Parlant's plugin protocol (`GET /tools`, `POST /tools/{name}/calls`). */
export async function startSdkToolServer(options: { backend?: ToolBackend; port?: number } = {}): Promise<TestToolServer> {
  const backend = options.backend ?? new ToolBackend();
  const tools = TEST_TOOLS.map((tool) => ({
    name: tool.name,
    creation_utc: '2026-11-23T00:00:00+00:00',
    description: tool.description,
    metadata: {},
    parameters: Object.fromEntries(
      Object.entries(tool.parameters).map(([name, descriptor]) => [name, [descriptor, { hidden: false, source: 'any' }]]),
    ),
    required: [...tool.required],
    consequential: false,
    overlap: 'auto',
  }));
  const server = createServer(
    handle(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/tools') return send(res, 200, { tools });
      const call = /^\/tools\/([^/]+)\/calls$/.exec(url.pathname);
      if (req.method === 'POST' && call?.[1]) {
        const name = decodeURIComponent(call[1]);
        if (!tools.some((tool) => tool.name === name)) return send(res, 404, { detail: `Tool: '${name}' does not exists` });
        const body = (await readJson(req)) as { arguments?: Record<string, unknown> };
        const outcome = await backend.run(keyOf(req), name, body.arguments ?? {});
        if (outcome.kind === 'unavailable') return send(res, 503, { detail: 'try again' });
        const chunks =
          outcome.kind === 'ok'
            ? [
                { message: 'working on it' },
                { result: { data: outcome.data, metadata: {}, control: {}, canned_responses: [], canned_response_fields: {} } },
              ]
            : [{ error: outcome.message }];
        return send(res, 200, chunks.map((chunk) => JSON.stringify(chunk)).join(''), 'text/plain');
      }
      send(res, 404, { detail: 'not found' });
    }),
  );
  return listen(server, 'sdk', backend, (base) => ({ name: 'plugins', kind: 'sdk', url: base }), options.port);
}

const mcpInput: Record<string, z.ZodRawShape> = {
  get_order: { order_id: z.string().describe('The order number') },
  flaky: { order_id: z.string() },
  slow: { ms: z.number().int() },
  fail: {},
  big: { bytes: z.number().int() },
};

/**
 * An MCP server (official SDK: McpServer + StreamableHTTPServerTransport, stateless) at `/mcp`. A tools/call is
 * run by the backend before the MCP layer, so a flaky call can answer HTTP 503 like a real overloaded server.
 */
export async function startMcpToolServer(options: { backend?: ToolBackend; port?: number } = {}): Promise<TestToolServer> {
  const backend = options.backend ?? new ToolBackend();
  const server = createServer(
    handle(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== '/mcp') return send(res, 404, { detail: 'not found' });
      if (req.method !== 'POST') return send(res, 405, { detail: 'stateless server: POST only' });
      const body = (await readJson(req)) as { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
      let outcome: BackendOutcome | undefined;
      if (body?.method === 'tools/call' && body.params?.name) {
        outcome = await backend.run(keyOf(req), body.params.name, body.params.arguments ?? {});
        if (outcome.kind === 'unavailable') return send(res, 503, { detail: 'try again' });
      }
      const mcp = new McpServer({ name: 'tenet-test-tools', version: '1.0.0' });
      for (const tool of TEST_TOOLS) {
        mcp.registerTool(tool.name, { description: tool.description, inputSchema: mcpInput[tool.name] ?? {} }, () => {
          if (!outcome || outcome.kind === 'unavailable')
            return { isError: true, content: [{ type: 'text' as const, text: 'no outcome' }] };
          if (outcome.kind === 'tool_error') return { isError: true, content: [{ type: 'text' as const, text: outcome.message }] };
          return { content: [{ type: 'text' as const, text: JSON.stringify(outcome.data) }] };
        });
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    }),
  );
  return listen(server, 'mcp', backend, (base) => ({ name: 'mcp-tools', kind: 'mcp', url: `${base}/mcp` }), options.port);
}

export const startToolServer = (
  kind: ToolServiceV1['kind'],
  options: { backend?: ToolBackend; port?: number } = {},
): Promise<TestToolServer> =>
  kind === 'openapi' ? startOpenApiToolServer(options) : kind === 'mcp' ? startMcpToolServer(options) : startSdkToolServer(options);
