import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne, startDemoOrderService, type DemoOrderService } from '@tenet/hosts';
import { startMcpToolServer, startSdkToolServer, ToolBackend, type TestToolServer } from '@tenet/tools-service/testing';
import { DEFAULT_FAILURE_REPLY } from '@tenet/session-domain';
import { eventually } from '@tenet/testing';
import { ParlantClient } from 'parlant-client';
import { gatewayHttp, type Detail } from './support/gateway-http.js';

interface Event {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: Record<string, unknown> & {
    message?: string;
    status?: string;
    data?: Record<string, unknown>;
    tool_calls?: { tool_id: string; arguments: Record<string, unknown>; result: { data: unknown; metadata: Record<string, unknown> } }[];
  };
}

/** A 127.0.0.1 port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Tool services and turns with tools over the HTTP API (ADR 0010): the all-in-one host with the embedded tool
 * executor, a REAL local OpenAPI tool service (the demo's order-status service, counting effects per
 * Idempotency-Key), and a second allow-listed address where nothing listens (a tool that always fails).
 */
describe('tool services and turns with tools (embedded adapters, offline provider)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let orders: DemoOrderService;
  let deadPort: number;
  let mcp: TestToolServer;
  let sdk: TestToolServer;
  const { call, created, details, turnEvents } = gatewayHttp(() => url);
  const turn = (sessionId: string, message: string): Promise<Event[]> => turnEvents<Event>(sessionId, message);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-tools-'));
    orders = await startDemoOrderService();
    deadPort = await closedPort();
    mcp = await startMcpToolServer({ backend: new ToolBackend({ failuresBeforeSuccess: 2 }) });
    sdk = await startSdkToolServer();
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' },
      { toolAllowedHosts: [orders.hostPort, `127.0.0.1:${deadPort}`, mcp.hostPort, sdk.hostPort] },
    ));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await orders?.close();
    await mcp?.close();
    await sdk?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const registerOrders = (name = 'orders', base = orders.url) =>
    call(`/services/${name}`, 'PUT', { kind: 'openapi', openapi: { url: base, source: orders.source } });

  it('PUT /services registers an OpenAPI service with its operations as tools; GET lists and reads it; DELETE removes it', async () => {
    const put = await registerOrders('catalog');
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      name: 'catalog',
      kind: 'openapi',
      url: orders.url,
      tools: [
        {
          creation_utc: expect.any(String) as unknown,
          name: 'get_order_status',
          description: expect.stringContaining('order') as unknown,
          parameters: { order_id: { type: 'string', description: 'The order number, e.g. 55555' } },
          required: ['order_id'],
        },
        expect.objectContaining({ name: 'get_customer_orders', required: ['customer_id'] }),
      ],
    });
    expect((await call('/services')).body).toEqual(expect.arrayContaining([{ name: 'catalog', kind: 'openapi', url: orders.url }]));
    expect((await call('/services/catalog')).body).toEqual(put.body);
    expect((await call('/services/catalog', 'DELETE')).status).toBe(204);
    expect((await call('/services/catalog')).status).toBe(404);
    expect((await call('/services/catalog', 'DELETE')).status).toBe(404);
  });

  it.each([
    ['kind without its parameters', { kind: 'openapi' }, ['body', 'openapi']],
    [
      'parameters of another kind',
      { kind: 'sdk', sdk: { url: 'http://127.0.0.1:1' }, mcp: { url: 'http://127.0.0.1:1' } },
      ['body', 'mcp'],
    ],
    ['an unknown kind', { kind: 'grpc' }, ['body', 'kind']],
    ['a url that is not http(s)', { kind: 'mcp', mcp: { url: 'ftp://example.com' } }, ['body', 'mcp', 'url']],
  ])('PUT /services with %s → 422 naming the field, nothing stored', async (_, body, loc) => {
    const reply = await call('/services/bad', 'PUT', body);
    expect(reply.status).toBe(422);
    expect(details(reply).map((d) => d.loc)).toContainEqual(loc);
    expect((await call('/services/bad')).status).toBe(404);
  });

  it('a target the allow-list does not permit, or one that cannot be reached, is refused with 422 naming the problem; nothing stored', async () => {
    const loopback = await call('/services/sneaky', 'PUT', { kind: 'sdk', sdk: { url: 'http://127.0.0.1:9/' } });
    expect(loopback.status).toBe(422);
    expect(details(loopback)[0]).toMatchObject({ loc: ['body', 'sdk', 'url'], type: 'TOOLS.TARGET_NOT_ALLOWED' });
    const metadata = await call('/services/sneaky', 'PUT', {
      kind: 'openapi',
      openapi: { url: 'http://169.254.169.254/', source: 'http://169.254.169.254/latest/meta-data' },
    });
    expect(metadata.status).toBe(422);
    expect(details(metadata)[0]?.type).toBe('TOOLS.TARGET_NOT_ALLOWED');
    const dead = await call('/services/sneaky', 'PUT', { kind: 'sdk', sdk: { url: `http://127.0.0.1:${deadPort}` } });
    expect(dead.status).toBe(422);
    expect(details(dead)[0]).toMatchObject({ loc: ['body', 'sdk', 'url'], type: 'TOOLS.SERVICE_UNREACHABLE' });
    expect((await call('/services/sneaky')).status).toBe(404);
  });

  it("tool associations the Parlant way: add/remove a service's tool, shown on read; an unknown tool → 422 naming it", async () => {
    expect((await registerOrders()).status).toBe(200);
    const guideline = await created('/guidelines', { condition: 'The customer asks about an order' });
    const added = (
      await call(`/guidelines/${guideline.id}`, 'PATCH', {
        tool_associations: { add: [{ service_name: 'orders', tool_name: 'get_order_status' }] },
      })
    ).body as { guideline: { tools: string[] }; tool_associations: unknown[] };
    expect(added.guideline.tools).toEqual(['orders:get_order_status']);
    expect(added.tool_associations).toEqual([
      {
        id: `${guideline.id}:orders:get_order_status`,
        guideline_id: guideline.id,
        tool_id: { service_name: 'orders', tool_name: 'get_order_status' },
      },
    ]);
    expect(((await call(`/guidelines/${guideline.id}`)).body as { tool_associations: unknown[] }).tool_associations).toEqual(
      added.tool_associations,
    );
    const unknown = await call(`/guidelines/${guideline.id}`, 'PATCH', {
      tool_associations: { add: [{ service_name: 'orders', tool_name: 'cancel_order' }] },
    });
    expect(unknown.status).toBe(422);
    expect(details(unknown)[0]).toMatchObject({
      loc: ['body', 'tool_associations', 'add', 0],
      msg: expect.stringContaining('cancel_order') as unknown,
    });
    const removed = (
      await call(`/guidelines/${guideline.id}`, 'PATCH', {
        tool_associations: { remove: [{ service_name: 'orders', tool_name: 'get_order_status' }] },
      })
    ).body as { guideline: { tools: string[] } };
    expect(removed.guideline.tools).toEqual([]);
    // An agent tool bound to a service must name one that offers it.
    const agent = await call('/agents', 'POST', {
      name: 'Bound',
      tools: [{ name: 'get_order_status', description: 'x', parameters: { type: 'object' }, service_name: 'nowhere' }],
    });
    expect(agent.status).toBe(422);
    expect((details(agent)[0] as Detail).loc).toEqual(['body', 'tools', 0, 'service_name']);
  });

  it('a turn calls the tool through the executor, appends a Parlant tool event, and replies from its result', async () => {
    expect((await registerOrders()).status).toBe(200);
    const agent = await created('/agents', { name: 'Ada' });
    const guideline = await created('/guidelines', {
      condition: 'The customer asks about the status of their order',
      action: 'Tell them the status of their order',
      tools: ['orders:get_order_status'],
      tags: [`agent:${agent.id}`],
    });
    const session = await created('/sessions', { agent_id: agent.id });
    const events = await turn(session.id, 'What is the status of my order 55555?');
    const statuses = events.filter((e) => e.kind === 'status').map((e) => [e.data.status, e.data.data?.['stage']]);
    expect(statuses).toContainEqual(['processing', 'awaiting_tool']);
    expect(statuses.at(-1)?.[0]).toBe('ready');
    const tool = events.find((e) => e.kind === 'tool');
    expect(tool?.source).toBe('ai_agent');
    expect(tool?.data.tool_calls).toEqual([
      {
        tool_id: 'orders:get_order_status',
        arguments: { order_id: '55555' },
        result: expect.objectContaining({ data: expect.objectContaining({ order_id: '55555', status: 'shipped' }) as unknown }) as unknown,
      },
    ]);
    const reply = events.find((e) => e.kind === 'message' && e.source === 'ai_agent');
    expect(reply?.data.message).toContain('Your order 55555 is shipped');
    const ready = events.find((e) => e.data.status === 'ready');
    expect(ready?.data.data?.['matched_guidelines']).toEqual(
      expect.arrayContaining([expect.objectContaining({ guideline_id: guideline.id })]),
    );
    expect(ready?.data.data?.['tool_calls']).toEqual([
      expect.objectContaining({ tool_id: 'orders:get_order_status', status: 'succeeded', replayed: false }),
    ]);
    // The tool service saw exactly one effect for the call's idempotency key.
    expect([...orders.effects.values()].every((count) => count === 1)).toBe(true);
  }, 90_000);

  it('a failing tool with allow_failure: false ends the turn with an error status naming the tool, and the customer gets the failure reply with its error_type', async () => {
    expect((await registerOrders('broken', `http://127.0.0.1:${deadPort}`)).status).toBe(200);
    const agent = await created<{ id: string; failure_reply: string }>('/agents', { name: 'Strict' });
    expect(agent.failure_reply).toBe(DEFAULT_FAILURE_REPLY);
    await created('/guidelines', {
      condition: 'The customer asks about the status of their order',
      action: 'Tell them the status of their order',
      tools: ['broken:get_order_status'],
      tags: [`agent:${agent.id}`],
    });
    const session = await created('/sessions', { agent_id: agent.id });
    const events = await turn(session.id, 'What is the status of my order 55555?');
    const last = events.filter((e) => e.kind === 'status').at(-1);
    expect(last?.data.status).toBe('error');
    expect(last?.data.data).toMatchObject({
      tool_id: 'broken:get_order_status',
      code: expect.stringMatching(/^TOOLS\./) as unknown,
      exception: expect.stringContaining('broken:get_order_status') as unknown,
    });
    const replies = events.filter((e) => e.kind === 'message' && e.source === 'ai_agent');
    expect(replies.map((e) => [e.data.message, e.data['error_type']])).toEqual([[DEFAULT_FAILURE_REPLY, 'tool_failed']]);

    // The agent's own failure reply (create and PATCH), refused with a 422 naming the field and the rule when bad.
    expect((await call(`/agents/${agent.id}`, 'PATCH', { failure_reply: '' })).body).toMatchObject({
      detail: [
        expect.objectContaining({
          loc: ['body', 'failure_reply'],
          msg: expect.stringContaining('failure_reply must be 1-1000 characters') as unknown,
        }),
      ],
    });
    expect((await call(`/agents/${agent.id}`, 'PATCH', { failure_reply: 42 })).status).toBe(422);
    expect((await call('/agents', 'POST', { name: 'Bad', failure_reply: 'x'.repeat(1001) })).status).toBe(422);
    expect(
      (await call(`/agents/${agent.id}`, 'PATCH', { failure_reply: 'Our order system is down, a colleague will follow up.' })).status,
    ).toBe(200);
    const again = await turn(session.id, 'What is the status of my order 66666?');
    const reply = again.filter((e) => e.kind === 'message' && e.source === 'ai_agent').at(-1);
    expect([reply?.data.message, reply?.data['error_type']]).toEqual([
      'Our order system is down, a colleague will follow up.',
      'tool_failed',
    ]);
    // Parlant's client reads the failure reply as an ordinary agent message.
    const listed = await new ParlantClient({ environment: url }).sessions.listEvents(session.id, { kinds: 'message', source: 'ai_agent' });
    expect(listed.at(-1)?.data).toMatchObject({
      message: 'Our order system is down, a colleague will follow up.',
      error_type: 'tool_failed',
    });
  }, 90_000);

  it('a failing agent tool with allow_failure: true is reported to the model and the turn goes on', async () => {
    expect((await registerOrders('broken', `http://127.0.0.1:${deadPort}`)).status).toBe(200);
    const parameters = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] };
    const agent = await created('/agents', {
      name: 'Lenient',
      tools: [
        {
          name: 'get_order_status',
          description: 'Look up an order',
          parameters,
          service_name: 'broken',
          allow_failure: true,
          timeout_secs: 5,
        },
      ],
    });
    await created('/guidelines', {
      condition: 'The customer asks about the status of their order',
      action: 'Tell them the status of their order',
      tools: ['get_order_status'],
      tags: [`agent:${agent.id}`],
    });
    const session = await created('/sessions', { agent_id: agent.id });
    const events = await turn(session.id, 'What is the status of my order 55555?');
    expect(events.filter((e) => e.kind === 'status').at(-1)?.data.status).toBe('ready');
    const tool = events.find((e) => e.kind === 'tool');
    expect(tool?.data.tool_calls?.[0]).toMatchObject({
      tool_id: 'broken:get_order_status',
      result: { data: null, metadata: { error: { code: expect.any(String) as unknown } } },
    });
    expect(events.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data.message).toMatch(/couldn't look that up/);
  }, 90_000);

  it("parlant-client 3.3.1: services.createOrUpdate/list/retrieve/delete and guidelines.update's toolAssociations", async () => {
    const client = new ParlantClient({ environment: url });
    const service = await client.services.createOrUpdate('pc-orders', {
      kind: 'openapi',
      openapi: { url: orders.url, source: orders.source },
    });
    expect(service.tools?.map((t) => t.name).sort()).toEqual(['get_customer_orders', 'get_order_status']);
    expect(service.tools?.find((t) => t.name === 'get_order_status')?.required).toEqual(['order_id']);
    expect((await client.services.list()).map((s) => s.name)).toContain('pc-orders');
    expect(
      (await client.services.retrieve('pc-orders')).tools?.find((t) => t.name === 'get_order_status')?.parameters['order_id']?.type,
    ).toBe('string');
    const guideline = await client.guidelines.create({ condition: 'The customer asks about an order' });
    const updated = await client.guidelines.update(guideline.id, {
      toolAssociations: { add: [{ serviceName: 'pc-orders', toolName: 'get_order_status' }] },
    });
    expect(updated.toolAssociations.map((a) => a.toolId)).toEqual([{ serviceName: 'pc-orders', toolName: 'get_order_status' }]);
    await client.services.delete('pc-orders');
    expect((await client.services.list()).map((s) => s.name)).not.toContain('pc-orders');
  });

  it('a tool-backed context variable (tool_id) is filled by calling its tool before a turn; unknown tools and bad cron are refused', async () => {
    expect((await registerOrders()).status).toBe(200);
    const unknown = await call('/context-variables', 'POST', { name: 'ghost', tool_id: { service_name: 'orders', tool_name: 'nope' } });
    expect(unknown.status).toBe(422);
    expect(details(unknown)[0]).toMatchObject({ loc: ['body', 'tool_id'], msg: expect.stringContaining('no tool nope') as unknown });
    const badCron = await call('/context-variables', 'POST', {
      name: 'ghost',
      tool_id: { service_name: 'orders', tool_name: 'get_customer_orders' },
      freshness_rules: '99 * * * *',
    });
    expect(badCron.status).toBe(422);
    const agent = await created('/agents', { name: 'Context' });
    const variable = await created('/context-variables', {
      name: 'open_orders',
      data_type: 'Object',
      tool_id: { service_name: 'orders', tool_name: 'get_customer_orders' },
      freshness_rules: '0 * * * *',
      tags: [`agent:${agent.id}`],
    });
    const customer = await created('/customers', { name: 'Grace' });
    const session = await created('/sessions', { agent_id: agent.id, customer_id: customer.id });
    expect((await call(`/context-variables/${variable.id}/${customer.id}`)).status).toBe(404);
    await turn(session.id, 'hello');
    const value = (await call(`/context-variables/${variable.id}/${customer.id}`)).body as { data: unknown };
    expect(value.data).toEqual({ customer_id: customer.id, open_orders: ['55555', '12345'] });
  }, 90_000);

  it('MCP (official SDK server) and Parlant SDK-protocol services register with their tools; a flaky MCP tool is retried with backoff in a turn and succeeds once', async () => {
    for (const [name, server] of [
      ['mcp-orders', mcp],
      ['sdk-orders', sdk],
    ] as const) {
      const put = await call(`/services/${name}`, 'PUT', { kind: server.kind, [server.kind]: { url: server.service.url } });
      expect(put.status).toBe(200);
      expect((put.body as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_order', 'flaky']));
    }
    const parameters = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] };
    const agent = await created('/agents', {
      name: 'Retry',
      tools: [
        {
          name: 'flaky',
          description: 'Look up an order',
          parameters,
          service_name: 'mcp-orders',
          retry_config: { max_attempts: 4, delay_ms: 20, backoff_multiplier: 2 },
        },
      ],
    });
    await created('/guidelines', {
      condition: 'The customer asks about the status of their order',
      action: 'Tell them the status of their order',
      tools: ['flaky'],
      tags: [`agent:${agent.id}`],
    });
    const session = await created('/sessions', { agent_id: agent.id });
    const events = await turn(session.id, 'What is the status of my order 77777?');
    expect(events.filter((e) => e.kind === 'status').at(-1)?.data.status).toBe('ready');
    const ready = events.find((e) => e.data.status === 'ready');
    expect(ready?.data.data?.['tool_calls']).toEqual([
      expect.objectContaining({ tool_id: 'mcp-orders:flaky', status: 'succeeded', attempts: 3 }),
    ]);
    expect(mcp.backend.totalEffects()).toBe(1);
  }, 90_000);

  it('a session polled while a slow tool runs is AwaitingTool, and leaves it when the tool finishes (runs last: its call counts as an effect of the MCP backend)', async () => {
    expect((await call('/services/mcp-slow', 'PUT', { kind: mcp.kind, [mcp.kind]: { url: mcp.service.url } })).status).toBe(200);
    const parameters = { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] };
    const agent = await created('/agents', {
      name: 'Patient',
      tools: [{ name: 'slow', description: 'Run the slow check', parameters, service_name: 'mcp-slow', timeout_secs: 20 }],
    });
    await created('/guidelines', {
      condition: 'The customer asks for the slow check',
      action: 'Tell them the slow check is done',
      tools: ['slow'],
      tags: [`agent:${agent.id}`],
    });
    const session = await created('/sessions', { agent_id: agent.id });
    const states: string[] = [];
    const poll = async (): Promise<void> => {
      const state = ((await call(`/sessions/${session.id}`)).body as { state: string }).state;
      if (states.at(-1) !== state) states.push(state);
    };
    const customer = (
      await call(`/sessions/${session.id}/events`, 'POST', {
        kind: 'message',
        source: 'customer',
        message: 'Please run the slow check for 1500 ms',
      })
    ).body as Event;
    for (let done = false; !done; await new Promise((resolve) => setTimeout(resolve, 25))) {
      await poll();
      const events = (await call(`/sessions/${session.id}/events?min_offset=${customer.offset + 1}`)).body as Event[];
      done = events.some((e) => e.kind === 'status' && (e.data.status === 'ready' || e.data.status === 'error'));
    }
    await poll();
    const events = (await call(`/sessions/${session.id}/events?min_offset=${customer.offset + 1}`)).body as Event[];
    expect(events.find((e) => e.kind === 'status' && e.data.status === 'ready')?.data.data?.['tool_calls']).toEqual([
      expect.objectContaining({ tool_id: 'mcp-slow:slow', status: 'succeeded' }),
    ]);
    // Active while matching, AwaitingTool during the 1.5 s call, Active again once it finished; after the reply the
    // session waits for the customer. Polls see AwaitingTool; they may miss the short Active phases before and after it.
    const during = states.indexOf('AwaitingTool');
    expect(during).toBeGreaterThanOrEqual(0);
    expect(states.slice(0, during).every((state) => state === 'Active')).toBe(true);
    expect(states.slice(during + 1).every((state) => state === 'Active' || state === 'AwaitingInput')).toBe(true);
    await eventually(async () => expect(((await call(`/sessions/${session.id}`)).body as { state: string }).state).toBe('AwaitingInput'), {
      timeoutMs: 10_000,
    });
    // Parlant's client reads the session as before (the state is a Tenet extension).
    expect((await new ParlantClient({ environment: url }).sessions.retrieve(session.id)).id).toBe(session.id);
  }, 90_000);
});
