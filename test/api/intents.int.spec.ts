import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { allContracts, intentRecognitionStreamId, toIntegrationEvent } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne, startDemoOrderService, type DemoOrderService } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { gatewayHttp, type Detail, type Reply } from './support/gateway-http.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Event {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: Record<string, unknown> & {
    message?: string;
    status?: string;
    data?: Record<string, unknown>;
    tool_calls?: { tool_id: string; arguments: Record<string, unknown> }[];
  };
}

const ORDER_ID = { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{4,10}$' } } };
const ORDER_ID_REQUIRED = { ...ORDER_ID, required: ['order_id'] };
const FALLBACK = 'I can help with orders, cancellations and refunds only.';

/**
 * Intents through the API (ADR 0031): the `/intents` resource with its rules, and turns that classify the message
 * in their matching call — offline provider, all-in-one host, a real local order service for the mapped tool.
 */
describe('intents (embedded, offline provider)', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let orders: DemoOrderService;
  const { call, created, details, turnEvents } = gatewayHttp(() => url);
  const locs = (reply: Reply) => details(reply).map((d: Detail) => d.loc.join('.'));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-intents-'));
    orders = await startDemoOrderService();
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' },
      { toolAllowedHosts: [orders.hostPort] },
    ));
    expect((await call('/services/orders', 'PUT', { kind: 'openapi', openapi: { url: orders.url, source: orders.source } })).status).toBe(
      200,
    );
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await orders?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const orderAgent = async (settings: Record<string, unknown> = {}) => {
    const agent = await created('/agents', {
      name: 'Orders',
      tools: [{ name: 'get_order_status', description: 'Look up an order', parameters: ORDER_ID_REQUIRED, service_name: 'orders' }],
      intents: { fallback: FALLBACK, ...settings },
    });
    const tags = [`agent:${agent.id}`];
    await created('/intents', {
      name: 'track_order',
      description: 'Find out where an order is',
      keywords: ['track', 'where is my order', 'delivery status'],
      examples: ['Where is my order?', 'Has my parcel shipped yet?'],
      parameters: ORDER_ID,
      tool: 'get_order_status',
      tags,
    });
    await created('/intents', {
      name: 'cancel_order',
      description: 'Cancel an order',
      keywords: ['cancel', 'call off'],
      examples: ['Please cancel my order', 'I no longer want the order'],
      tags,
    });
    await created('/intents', {
      name: 'refund',
      description: 'Get money back for a purchase',
      keywords: ['refund', 'money back', 'reimburse'],
      examples: ['I want my money back', 'Can I get a refund?'],
      tags,
    });
    return agent;
  };

  it('creates, lists by agent, reads, patches and deletes an intent; refuses bad fields with 422s naming them, on create and PATCH', async () => {
    const agent = await created('/agents', {
      name: 'Catalog',
      tools: [{ name: 'lookup', description: 'x', parameters: { type: 'object' } }],
    });
    const tags = [`agent:${agent.id}`];
    const intent = await created<{ id: string; name: string; tool: string | null; parameters: unknown }>('/intents', {
      name: 'greet',
      description: 'Say hello',
      keywords: ['hello'],
      tags,
    });
    expect(intent).toMatchObject({
      name: 'greet',
      description: 'Say hello',
      examples: [],
      keywords: ['hello'],
      parameters: null,
      tool: null,
      journey_id: null,
      tags,
    });
    expect(((await call(`/intents?tags=agent:${agent.id}`)).body as { id: string }[]).map((i) => i.id)).toEqual([intent.id]);
    expect((await call(`/intents/${intent.id}`)).body).toMatchObject({ id: intent.id });

    const patched = await call(`/intents/${intent.id}`, 'PATCH', {
      tool: 'lookup',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
    });
    expect(patched).toMatchObject({ status: 200, body: { tool: 'lookup', parameters: { type: 'object' } } });
    expect((await call(`/intents/${intent.id}`, 'PATCH', { tool: null, parameters: null })).body).toMatchObject({
      tool: null,
      parameters: null,
    });

    for (const [body, loc] of [
      [{ name: 'has space', tags }, 'body.name'],
      [{ name: 'UNKNOWN', tags }, 'body.name'],
      [{ name: 'x', examples: 'not a list', tags }, 'body.examples'],
      [{ name: 'x', tags: ['no-such-tag'] }, 'body.tags.0'],
      [{ name: 'x', tool: 'nope', tags }, 'body.tool'],
      [{ name: 'x', journey_id: 'nope', tags }, 'body.journey_id'],
      [{ name: 'x', parameters: { type: 'string' }, tags }, 'body.parameters'],
      [{ name: 'x', parameters: { type: 'object', properties: { a: { type: 'nonsense' } } }, tags }, 'body.parameters'],
      [{ name: 'greet', tags }, 'body.name'],
    ] as const) {
      const reply = await call('/intents', 'POST', body);
      expect({ body, status: reply.status }).toEqual({ body, status: 422 });
      expect(locs(reply)).toContain(loc);
    }
    for (const [body, loc] of [
      [{ name: null }, 'body.name'],
      [{ name: 'bad name' }, 'body.name'],
      [{ keywords: [''] }, 'body.keywords'],
      [{ tool: 'nope' }, 'body.tool'],
      [{ tags: { add: ['no-such-tag'] } }, 'body.tags.add.0'],
    ] as const) {
      const reply = await call(`/intents/${intent.id}`, 'PATCH', body);
      expect({ body, status: reply.status }).toEqual({ body, status: 422 });
      expect(locs(reply)).toContain(loc);
    }
    // At most one intent per name per agent: a rename onto a taken name is refused; another agent may use the name.
    const other = await created('/intents', { name: 'farewell', tags });
    expect(locs(await call(`/intents/${other.id}`, 'PATCH', { name: 'greet' }))).toEqual(['body.name']);
    const second = await created('/agents', { name: 'Other' });
    await created('/intents', { name: 'greet', tags: [`agent:${second.id}`] });

    expect((await call(`/intents/${intent.id}`, 'DELETE')).status).toBe(204);
    expect((await call(`/intents/${intent.id}`)).status).toBe(404);
  }, 60_000);

  it('agent intents settings are validated on create and PATCH, and stored with their defaults', async () => {
    const agent = await created<{ id: string; intents: unknown }>('/agents', { name: 'Settings' });
    expect(agent.intents).toEqual({ clarify_below: 0.5, margin: 0.1, fallback: expect.any(String) as unknown });
    expect(locs(await call('/agents', 'POST', { name: 'Bad', intents: { clarify_below: 2 } }))).toContain('body.intents.clarify_below');
    expect(locs(await call(`/agents/${agent.id}`, 'PATCH', { intents: { margin: -1 } }))).toContain('body.intents.margin');
    expect(locs(await call(`/agents/${agent.id}`, 'PATCH', { intents: { fallback: '' } }))).toContain('body.intents.fallback');
    expect((await call(`/agents/${agent.id}`, 'PATCH', { intents: { margin: 0.2 } })).body).toMatchObject({
      intents: { clarify_below: 0.5, margin: 0.2 },
    });
  });

  it('an intent mapped to a tool runs it with the extracted parameters; data.intent of the message and ready carry the intent; intent.recognized validates', async () => {
    const agent = await orderAgent();
    const session = await created('/sessions', { agent_id: agent.id });
    const events = await turnEvents<Event>(session.id, 'Where is my order 55555?');
    const tool = events.find((e) => e.kind === 'tool');
    expect(tool?.data.tool_calls).toEqual([
      expect.objectContaining({ tool_id: 'orders:get_order_status', arguments: { order_id: '55555' } }),
    ]);
    const reply = events.find((e) => e.kind === 'message' && e.source === 'ai_agent');
    expect(reply?.data.message).toContain('55555');
    expect(reply?.data).toMatchObject({ intent: { name: 'track_order', confidence: expect.any(Number) as unknown } });
    const ready = events.find((e) => e.data.status === 'ready');
    expect(ready?.data.data).toMatchObject({
      intent: { name: 'track_order', outcome: 'recognized', extracted_params: { order_id: '55555' } },
    });
    // The matching call classified it: no call of its own (the re-match after the tool's result, with no
    // guideline to score, makes none and does not classify again), then the reply.
    // (Recall's query embedding, metered against budgets too, is not a model call of the turn's.)
    const usage = (ready?.data.data as { usage: { purpose: string }[] }).usage
      .map((u) => u.purpose)
      .filter((p) => p !== 'knowledge.search');
    expect(usage).toEqual(['match_guidelines', 'compose_reply']);

    const store = app.get<EventStore>(EVENT_STORE);
    const [recorded] = await store.readStream(intentRecognitionStreamId(agent.id));
    const published = recorded && toIntegrationEvent(recorded);
    expect(published?.subject).toBe(`tenet.v1.intent.${agent.id}.recognized`);
    const validate = addFormats(new Ajv2020({ strict: false, allErrors: true })).compile(
      allContracts.find((c) => c.type === 'intent.recognized')?.schema ?? {},
    );
    expect(validate(published?.payload)).toBe(true);
    expect(published?.payload).toMatchObject({
      data: {
        agent_id: agent.id,
        session_id: session.id,
        intent: 'track_order',
        outcome: 'recognized',
        parameter_names: ['order_id'],
        leads_to: { tool: 'get_order_status' },
      },
    });

    // Without the order number the tool's schema (order_id required) is not met: the tool is not called, the turn goes on.
    const fresh = await created('/sessions', { agent_id: agent.id });
    const without = await turnEvents<Event>(fresh.id, 'Has my parcel been tracked?');
    expect(without.some((e) => e.kind === 'tool')).toBe(false);
    expect(without.find((e) => e.data.status === 'ready')?.data.data).toMatchObject({
      intent: { name: 'track_order', tool_skipped: expect.stringContaining('order_id') as unknown },
    });
  }, 90_000);

  it('an ambiguous message gets a clarification question naming the choices and no tool call; the answer resolves it', async () => {
    const agent = await orderAgent();
    const session = await created('/sessions', { agent_id: agent.id });
    const first = await turnEvents<Event>(session.id, 'I have a problem with my order');
    expect(first.some((e) => e.kind === 'tool')).toBe(false);
    const question = first.find((e) => e.kind === 'message' && e.source === 'ai_agent');
    const asked = question?.data as unknown as { intent: { name: string; alternatives: string[] } };
    expect(asked.intent.name).toBe('CLARIFICATION_NEEDED');
    expect(asked.intent.alternatives.length).toBeGreaterThanOrEqual(2);
    const words: Record<string, string> = { track_order: 'where an order is', cancel_order: 'cancel an order', refund: 'money back' };
    for (const name of asked.intent.alternatives) expect(question?.data.message?.toLowerCase()).toContain(words[name]);
    expect(first.find((e) => e.data.status === 'ready')?.data.data).toMatchObject({ intent: { outcome: 'clarify' } });

    const second = await turnEvents<Event>(session.id, 'Cancel it please');
    expect(second.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data).toMatchObject({ intent: { name: 'cancel_order' } });
    expect(second.find((e) => e.data.status === 'ready')?.data.data).toMatchObject({
      intent: { outcome: 'recognized', resolving: asked.intent.alternatives },
    });
  }, 90_000);

  it('a message that is none of the intents gets the agent’s fallback reply, with no model call to compose it', async () => {
    const agent = await orderAgent();
    const session = await created('/sessions', { agent_id: agent.id });
    const events = await turnEvents<Event>(session.id, 'What is the weather like on Mars today?');
    const reply = events.find((e) => e.kind === 'message' && e.source === 'ai_agent');
    expect(reply?.data.message).toBe(FALLBACK);
    expect(reply?.data).toMatchObject({ intent: { name: 'UNKNOWN' } });
    const ready = events.find((e) => e.data.status === 'ready')?.data.data as { usage: { purpose: string }[]; intent: unknown };
    expect(ready.intent).toMatchObject({ outcome: 'unknown' });
    expect(ready.usage.map((u) => u.purpose)).not.toContain('compose_reply');
  }, 90_000);

  it('/admin/usage reports intent counts and the clarification rate per agent (chart and table); /metrics counts by agent and intent', async () => {
    const agent = await orderAgent();
    const session = await created('/sessions', { agent_id: agent.id });
    await turnEvents<Event>(session.id, 'I have a problem with my order');
    await turnEvents<Event>(session.id, 'Cancel it please');
    await turnEvents<Event>(session.id, 'I want a refund');
    const json = (await call('/admin/usage?range=24h&format=json')).body as {
      intents: { agent_id: string; total: Record<string, unknown> }[];
    };
    expect(json.intents.find((r) => r.agent_id === agent.id)?.total).toEqual({
      messages: 3,
      by_intent: { cancel_order: 1, refund: 1 },
      clarifications: 1,
      unknown: 0,
      clarification_rate: 0.333,
    });
    const html = await (await fetch(`${url}/admin/usage?range=24h`)).text();
    expect(html).toContain('Intents: what customers come for');
    expect(html).toMatch(/<td>cancel_order<\/td><td>1<\/td><td>33\.3%<\/td>/);
    expect(html).toMatch(/<td><em>asked to clarify<\/em><\/td><td>1<\/td><td>33\.3%<\/td>/);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(`^tenet_intents_total\\{agent_id="${agent.id}",intent="CLARIFICATION_NEEDED",outcome="clarify"[^}]*\\} 1$`, 'm'),
    );
  }, 90_000);

  it('an intent mapped to a journey starts the journey when recognised', async () => {
    const agent = await created('/agents', { name: 'Returns' });
    const journey = await created('/journeys', {
      title: 'Returns',
      description: 'Take an item back',
      conditions: ['the customer mentions the zebra protocol'],
      tags: [`agent:${agent.id}`],
      steps: [
        { id: 'ask_order', name: 'Ask for the order number', kind: 'chat', instruction: 'Ask for the order number of the item' },
        { id: 'done', name: 'Done', kind: 'final', instruction: 'Confirm' },
      ],
      transitions: [{ from: 'ask_order', to: 'done', condition: 'the customer gave their order number' }],
      initial_step: 'ask_order',
    });
    await created('/intents', {
      name: 'send_back',
      description: 'Send an item back',
      keywords: ['send back'],
      journey_id: journey.id,
      tags: [`agent:${agent.id}`],
    });
    const session = await created('/sessions', { agent_id: agent.id });
    const events = await turnEvents<Event>(session.id, 'I want to send back my jacket');
    const ready = events.find((e) => e.data.status === 'ready')?.data.data as {
      intent: unknown;
      matched_journeys?: unknown;
      active_journey?: unknown;
    };
    expect(ready.intent).toMatchObject({ name: 'send_back', outcome: 'recognized' });
    expect(ready.matched_journeys).toEqual([journey.id]);
    expect(ready.active_journey).toMatchObject({ journey_id: journey.id, step_id: 'ask_order' });
  }, 90_000);
});
