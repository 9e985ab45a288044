import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startAllInOne } from '@tenet/hosts';
import { keyedHttp, type TextReply as Reply } from './support/gateway-http.js';

const ADMIN_KEY = 'bootstrap-admin-key-for-the-tool-registration-test-0123456789';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

interface Detail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A raw MCP server (the SDK's low-level Server, stateless Streamable HTTP) listing exactly the tools given, schemas untouched. */
async function rawMcpServer(
  tools: { name: string; description: string; inputSchema: Record<string, unknown> }[],
): Promise<{ url: string; hostPort: string; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    void (async () => {
      if (req.url !== '/mcp' || req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const mcp = new Server({ name: 'raw-schemas', version: '1.0.0' }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
      mcp.setRequestHandler(CallToolRequestSchema, (request) => ({
        content: [{ type: 'text', text: `called ${request.params.name} with ${JSON.stringify(request.params.arguments)}` }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => res.destroy());
  });
  return listening(http, '/mcp');
}

async function listening(http: HttpServer, path = ''): Promise<{ url: string; hostPort: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** Answers each path its own way: a 1.5 MiB document, nothing at all, a 404, a redirect. */
async function misbehavingServer(): Promise<{ url: string; hostPort: string; close(): Promise<void> }> {
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/huge.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ openapi: '3.0.3', info: { title: 'x', version: '1' }, paths: {}, padding: 'x'.repeat(1536 * 1024) }));
    } else if (req.url === '/silent.json') {
      // Never answers: the registration must give up on its own deadline.
    } else if (req.url === '/moved') {
      res.writeHead(302, { location: 'http://example.com/mcp' }).end();
    } else res.writeHead(404, { 'content-type': 'text/plain' }).end('no such thing');
  });
  return listening(http);
}

/**
 * Registration of tool services (ADR 0022), auth on: every workspace may register
 * its own services; a schema Tenet cannot compile is refused naming the tool; an MCP tool in the draft-07 dialect
 * the official SDK writes never fails a turn; every ordinary registration failure is a 422 naming the problem.
 */
describe('tool-service registration: workspaces, schema dialects, failures as 422 (auth on, embedded)', () => {
  let app: INestApplication;
  let url: string;
  let dir: string;
  let draft07: Awaited<ReturnType<typeof rawMcpServer>>;
  let unusable: Awaited<ReturnType<typeof rawMcpServer>>;
  let bad: Awaited<ReturnType<typeof misbehavingServer>>;
  const keys = { acme: '', globex: '' };

  const call = keyedHttp(() => url);
  const details = (reply: Reply): Detail[] => (reply.body as { detail: Detail[] }).detail;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-tool-registration-'));
    draft07 = await rawMcpServer([
      {
        name: 'echo',
        description: 'Echoes back the input string',
        inputSchema: {
          type: 'object',
          properties: { message: { type: 'string', description: 'Message to echo' } },
          required: ['message'],
          additionalProperties: false,
          $schema: DRAFT_07,
        },
      },
      {
        name: 'legacy',
        description: 'A draft-04 tool',
        inputSchema: {
          $schema: 'http://json-schema.org/draft-04/schema#',
          type: 'object',
          properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } },
        },
      },
    ]);
    unusable = await rawMcpServer([
      { name: 'fine', description: 'ok', inputSchema: { type: 'object', properties: {} } },
      {
        name: 'broken',
        description: 'a schema no validator can compile',
        inputSchema: { type: 'object', properties: { when: { type: 'sometime' } } },
      },
    ]);
    bad = await misbehavingServer();
    ({ app, url } = await startAllInOne(
      {
        TENET_MODE: 'embedded',
        TENET_DATA_DIR: dir,
        TENET_DEMO: 'off',
        TENET_LLM_PROVIDER: 'offline',
        TENET_AUTH: 'on',
        TENET_ADMIN_KEY: ADMIN_KEY,
        TENET_RATE_LIMIT_PER_KEY: '0',
      },
      { toolAllowedHosts: [draft07.hostPort, unusable.hostPort, bad.hostPort] },
    ));
    for (const name of ['acme', 'globex'] as const) {
      const key = await call('POST', '/keys', ADMIN_KEY, { name: `${name} admin`, role: 'admin', workspace_id: name });
      expect(key.status).toBe(201);
      keys[name] = (key.body as { key: string }).key;
    }
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await Promise.all([draft07?.close(), unusable?.close(), bad?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("a workspace other than default registers, lists, reads and deletes its own services; others' stay invisible and unclaimable", async () => {
    const put = await call('PUT', '/services/acme-tools', keys.acme, { kind: 'mcp', mcp: { url: draft07.url } });
    expect(put.status).toBe(200);
    expect((put.body as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual(['echo', 'legacy']);
    expect(((await call('GET', '/services', keys.acme)).body as { name: string }[]).map((s) => s.name)).toEqual(['acme-tools']);
    expect((await call('GET', '/services/acme-tools', keys.acme)).status).toBe(200);
    // Re-registration by its owner replaces it.
    expect((await call('PUT', '/services/acme-tools', keys.acme, { kind: 'mcp', mcp: { url: draft07.url } })).status).toBe(200);

    // Another workspace: not listed, not readable, not replaceable, not deletable; the bootstrap (default) key neither.
    for (const key of [keys.globex, ADMIN_KEY]) {
      expect(((await call('GET', '/services', key)).body as { name: string }[]).map((s) => s.name)).not.toContain('acme-tools');
      expect((await call('GET', '/services/acme-tools', key)).status).toBe(404);
      expect((await call('PUT', '/services/acme-tools', key, { kind: 'mcp', mcp: { url: unusable.url } })).status).toBe(404);
      expect((await call('DELETE', '/services/acme-tools', key)).status).toBe(404);
    }
    expect(
      ((await call('GET', '/services/acme-tools', keys.acme)).body as { tools: { name: string }[] }).tools.map((t) => t.name).sort(),
    ).toEqual(['echo', 'legacy']);

    // A name the default workspace registered is not free for another workspace either.
    expect((await call('PUT', '/services/operator-tools', ADMIN_KEY, { kind: 'mcp', mcp: { url: draft07.url } })).status).toBe(200);
    expect((await call('PUT', '/services/operator-tools', keys.globex, { kind: 'mcp', mcp: { url: draft07.url } })).status).toBe(404);
    expect(((await call('GET', '/services', ADMIN_KEY)).body as { name: string }[]).map((s) => s.name)).toEqual(['operator-tools']);

    expect((await call('DELETE', '/services/acme-tools', keys.acme)).status).toBe(204);
    expect((await call('GET', '/services/acme-tools', keys.acme)).status).toBe(404);
  });

  it('a tool whose parameter schema cannot be compiled is refused at registration with a 422 naming the tool; nothing stored', async () => {
    const reply = await call('PUT', '/services/unusable', keys.globex, { kind: 'mcp', mcp: { url: unusable.url } });
    expect(reply.status).toBe(422);
    expect(details(reply)).toEqual([
      expect.objectContaining({
        loc: ['body', 'mcp', 'tools', 'broken', 'parameters'],
        type: 'TOOLS.INVALID_SCHEMA',
        msg: expect.stringContaining('tool broken') as unknown,
      }),
    ]);
    expect((await call('GET', '/services/unusable', keys.globex)).status).toBe(404);
  });

  it('a guideline associated with a draft-07 MCP tool never fails a turn, related or not', async () => {
    expect((await call('PUT', '/services/globex-echo', keys.globex, { kind: 'mcp', mcp: { url: draft07.url } })).status).toBe(200);
    const agent = (await call('POST', '/agents', keys.globex, { name: 'Echo agent' })).body as { id: string };
    const guideline = await call('POST', '/guidelines', keys.globex, {
      condition: 'The customer asks to echo a message',
      action: 'Echo their message back',
      tags: [`agent:${agent.id}`],
    });
    expect(guideline.status).toBe(201);
    const gid = (guideline.body as { id: string }).id;
    expect(
      (
        await call('PATCH', `/guidelines/${gid}`, keys.globex, {
          tool_associations: {
            add: [
              { service_name: 'globex-echo', tool_name: 'echo' },
              { service_name: 'globex-echo', tool_name: 'legacy' },
            ],
          },
        })
      ).status,
    ).toBe(200);
    const session = (await call('POST', '/sessions', keys.globex, { agent_id: agent.id })).body as { id: string };
    for (const message of ['Hello, what are your opening hours?', 'Please echo a message for me: hello world']) {
      const posted = (await call('POST', `/sessions/${session.id}/events`, keys.globex, { kind: 'message', source: 'customer', message }))
        .body as { offset: number; correlation_id: string };
      let last: string | undefined;
      for (let offset = posted.offset + 1; last !== 'ready' && last !== 'error';) {
        const events = (await call('GET', `/sessions/${session.id}/events?min_offset=${offset}&wait_for_data=30`, keys.globex)).body as {
          offset: number;
          kind: string;
          data: { status?: string };
        }[];
        for (const event of events) if (event.kind === 'status') last = event.data.status;
        offset = (events.at(-1)?.offset ?? offset - 1) + 1;
      }
      expect({ message, last }).toEqual({ message, last: 'ready' });
    }
  }, 120_000);

  it.each([
    [
      'an OpenAPI source over 1 MiB',
      () => ({ kind: 'openapi', openapi: { url: bad.url, source: `${bad.url}/huge.json` } }),
      ['body', 'openapi', 'source'],
      'TOOLS.RESPONSE_TOO_LARGE',
    ],
    [
      'an MCP URL answering 404',
      () => ({ kind: 'mcp', mcp: { url: `${bad.url}/nothing-here` } }),
      ['body', 'mcp', 'url'],
      'TOOLS.HTTP_ERROR',
    ],
    ['an MCP URL answering 302', () => ({ kind: 'mcp', mcp: { url: `${bad.url}/moved` } }), ['body', 'mcp', 'url'], 'TOOLS.HTTP_ERROR'],
    [
      'an OpenAPI source that does not answer within 15 s',
      () => ({ kind: 'openapi', openapi: { url: bad.url, source: `${bad.url}/silent.json` } }),
      ['body', 'openapi', 'source'],
      'TOOLS.TIMEOUT',
    ],
  ])(
    '%s → 422 naming the field and the problem, nothing stored',
    async (_, body, loc, type) => {
      const reply = await call('PUT', '/services/misbehaving', keys.acme, body());
      expect(reply.status).toBe(422);
      expect(details(reply)[0]).toMatchObject({ loc, type });
      expect((await call('GET', '/services/misbehaving', keys.acme)).status).toBe(404);
    },
    60_000,
  );
});
