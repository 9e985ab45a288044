import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { budgetStreamId } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { OpenAiProvider } from '@tenet/llm';
import { openAiCompletion, startWireServer, type RecordedRequest, type WireServer } from '@tenet/llm/testing';
import { EVENT_STORE, tenetStreamsFor } from '@tenet/platform-runtime';
import { AgentBudgets } from '@tenet/session-gateway';
import { deleteStreams, describeWithService, natsUrl, probeNats, probeRedis, redisUrl } from '@tenet/testing';
import { gatewayHttp } from './support/gateway-http.js';

const API_KEY = 'sk-tenet-test-budget-0123456789';
/** Every call the wire server answers is billed this much: 100 input + 20 output tokens. */
const CALL_TOKENS = 120;

interface SessionEvent {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: { status?: string; message?: string; data?: Record<string, unknown> };
}

const schemaOf = (request: RecordedRequest): string => ((request.body['response_format'] as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? '');
const chatCalls = (wire: WireServer): number => wire.requests.filter((r) => r.url.endsWith('/chat/completions')).length;

/** An OpenAI-wire stand-in answering every call (after `delayMs`) with CALL_TOKENS of usage. */
const startCountingWire = (delayMs = 0): Promise<WireServer> =>
  startWireServer(async (request) => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const usage = { prompt_tokens: 100, completion_tokens: 20 };
    return schemaOf(request) === 'guideline_matches'
      ? openAiCompletion({ matches: [] }, usage)
      : openAiCompletion({ message: 'Happy to help.', cited_guideline_ids: [], canned_response_id: '' }, usage);
  });

/** Posts a customer message; resolves with the turn's events once it ended (ready, error or cancelled). */
async function turn(url: string, sessionId: string, message: string): Promise<SessionEvent[]> {
  const { call } = gatewayHttp(() => url);
  const posted = (await call(`/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message })).body as SessionEvent;
  for (let attempt = 0; attempt < 200; attempt++) {
    const events = ((await call(`/sessions/${sessionId}/events?min_offset=${posted.offset + 1}&wait_for_data=5`)).body as SessionEvent[]).filter((e) => e.correlation_id === posted.correlation_id);
    if (events.some((e) => ['ready', 'error', 'cancelled'].includes(e.data.status ?? ''))) return events;
  }
  throw new Error('the turn did not end');
}

describe('token budgets: checked before each LLM call (embedded, real OpenAI SDK against a counting wire server)', () => {
  let app: INestApplication;
  let url: string;
  let wire: WireServer;
  let dir: string;
  const { call, created } = gatewayHttp(() => url);

  beforeAll(async () => {
    wire = await startCountingWire();
    dir = mkdtempSync(join(tmpdir(), 'tenet-budgets-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' }, { provider: new OpenAiProvider({ apiKey: API_KEY, baseURL: wire.url, maxRetries: 0 }) }));
  });

  afterAll(async () => {
    await app.close();
    await wire.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newAgent = async (budget: unknown): Promise<string> => {
    const agent = await created('/agents', { name: 'Frugal', budget });
    await created('/guidelines', { condition: 'the customer asks anything', action: 'answer briefly', tags: [`agent:${agent.id}`] });
    return agent.id;
  };

  it('an agent with a daily budget of N tokens makes no LLM call once it is spent, and says its configured message', async () => {
    // Two calls per turn (match, compose) of 120 tokens: turn 1 uses 240; turn 2's match brings it to 360 ≥ 300,
    // so its compose is refused; turn 3 makes no call at all.
    const agentId = await newAgent({ limits: [{ period: 'day', tokens: 300 }], exhausted_message: 'We have reached our limit for today.' });
    const session = await created('/sessions', { agent_id: agentId });
    const before = chatCalls(wire);

    const first = await turn(url, session.id, 'hello');
    expect(first.find((e) => e.kind === 'message')?.data.message).toBe('Happy to help.');
    expect(chatCalls(wire) - before).toBe(2);

    const second = await turn(url, session.id, 'and another thing');
    expect(chatCalls(wire) - before).toBe(3);
    expect(second.find((e) => e.kind === 'message')?.data.message).toBe('We have reached our limit for today.');
    expect(second.find((e) => e.data.status === 'ready')?.data.data).toMatchObject({ budget_exceeded: { key: `agent:${agentId}:day:tokens`, period: 'day', unit: 'tokens' } });

    const third = await turn(url, session.id, 'still there?');
    expect(chatCalls(wire) - before).toBe(3);
    expect(third.find((e) => e.kind === 'message')?.data.message).toBe('We have reached our limit for today.');

    const budget = (await call(`/agents/${agentId}/budget`)).body as { budgets: { period: string; limit: number; used: number; exhausted: boolean; resets_at: string }[] };
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(budget.budgets).toEqual([expect.objectContaining({ period: 'day', unit: 'tokens', limit: 300, used: 3 * CALL_TOKENS, reserved: 0, exhausted: true, resets_at: midnight.toISOString() })]);

    // Published (through the log): the 80 % warning and the exhaustion, once each.
    const store = app.get<EventStore>(EVENT_STORE, { strict: false });
    const published = await store.readStream(budgetStreamId(agentId));
    expect(published.map((e) => e.type)).toEqual(['BudgetWarningReached', 'BudgetExceeded']);
    expect(published[1]?.data).toMatchObject({ agent_id: agentId, limit: 300, scope: { owner: 'agent', period: 'day', unit: 'tokens' } });

    // The daily reset job's work: a new day's counter starts from 0, and the agent answers again.
    const tomorrow = new Date(Date.now() + 86_400_000);
    expect(await app.get(AgentBudgets).reset(tomorrow)).toBeGreaterThanOrEqual(1);
    expect((await turn(url, session.id, 'a new day')).find((e) => e.kind === 'message')?.data.message).toBe('Happy to help.');
  }, 120_000);

  it('a session budget limits one session only; on_exhausted handoff hands the session to a human', async () => {
    const agentId = await newAgent({ limits: [{ period: 'session', tokens: 100 }], on_exhausted: 'handoff' });
    const spent = await created('/sessions', { agent_id: agentId });
    const before = chatCalls(wire);
    const first = await turn(url, spent.id, 'hello');
    // The match call is the session's last (it may overshoot by its own tokens); the compose call is refused.
    expect(chatCalls(wire) - before).toBe(1);
    expect(first.find((e) => e.kind === 'message')?.data.message).toMatch(/can't continue this conversation/);
    expect(((await call(`/sessions/${spent.id}`)).body as { mode: string }).mode).toBe('manual');

    const fresh = await created('/sessions', { agent_id: agentId });
    expect((await call(`/agents/${agentId}/budget?session_id=${fresh.id}`)).body).toMatchObject({ budgets: [{ key: `session:${fresh.id}:tokens`, used: 0, limit: 100 }] });
  }, 120_000);

  it('a cost budget counts estimated USD from the price table', async () => {
    const agentId = await newAgent({ limits: [{ period: 'month', cost_usd: 1 }] });
    const session = await created('/sessions', { agent_id: agentId });
    await turn(url, session.id, 'hello');
    const [month] = ((await call(`/agents/${agentId}/budget`)).body as { budgets: { unit: string; used: number; limit: number }[] }).budgets;
    // gpt-4o-mini: 0.15 $ per million input tokens, 0.6 $ per million output tokens; two calls of 100 + 20.
    expect(month).toMatchObject({ unit: 'usd', limit: 1 });
    expect(month?.used).toBeCloseTo(2 * (100 * 0.15 + 20 * 0.6) / 1_000_000, 9);
  }, 120_000);

  it.each([
    [{ limits: [{ period: 'day', tokens: 10, cost_usd: 1 }] }, ['body', 'budget', 'limits', 0], /exactly one of tokens and cost_usd/],
    [{ limits: [{ period: 'week', tokens: 10 }] }, ['body', 'budget', 'limits', 0, 'period'], /period must be one of session, day, month/],
    [{ limits: [{ period: 'day', tokens: 0 }] }, ['body', 'budget', 'limits', 0, 'tokens'], /tokens must be a positive integer/],
    [{ limits: [{ period: 'day', tokens: 5 }, { period: 'day', tokens: 6 }] }, ['body', 'budget', 'limits', 1], /only one tokens limit per period/],
    [{ limits: [], on_exhausted: 'panic' }, ['body', 'budget', 'on_exhausted'], /on_exhausted must be one of message, handoff/],
  ])('PATCH budget %j is refused with a 422 naming the field', async (budget, loc, msg) => {
    const agent = await created('/agents', { name: 'Any' });
    const reply = await call(`/agents/${agent.id}`, 'PATCH', { budget });
    expect(reply.status).toBe(422);
    expect((reply.body as { detail: { loc: unknown[]; msg: string }[] }).detail).toContainEqual(expect.objectContaining({ loc, msg: expect.stringMatching(msg) as unknown }));
  });

  it("a workspace's monthly budget is charged by all its agents and stops them all", async () => {
    expect((await call('/workspace', 'PATCH', { budget: { limits: [{ period: 'session', tokens: 5 }] } })).body).toMatchObject({ detail: [{ loc: ['body', 'budget', 'limits', 0, 'period'] }] });
    expect((await call('/workspace', 'PATCH', { budget: { limits: [{ period: 'month', tokens: 200 }], exhausted_message: 'unused' } })).body).toMatchObject({ id: 'default', budget: { limits: [{ period: 'month', tokens: 200 }] } });
    try {
      const first = await newAgent(undefined);
      const second = await newAgent(undefined);
      const before = chatCalls(wire);
      await turn(url, (await created('/sessions', { agent_id: first })).id, 'hello');
      expect(chatCalls(wire) - before).toBe(2);
      const refused = await turn(url, (await created('/sessions', { agent_id: second })).id, 'hello');
      expect(chatCalls(wire) - before).toBe(2);
      expect(refused.find((e) => e.data.status === 'ready')?.data.data).toMatchObject({ budget_exceeded: { key: 'workspace:default:month:tokens', period: 'month' } });
      expect((await call(`/agents/${second}/budget`)).body).toMatchObject({ budgets: [{ key: 'workspace:default:month:tokens', limit: 200, used: 240, exhausted: true }] });
    } finally {
      await call('/workspace', 'PATCH', { budget: null });
    }
  }, 120_000);

  it('PATCH sets and clears a budget; GET /agents/{id}/budget of an unknown agent is 404', async () => {
    const agent = await created('/agents', { name: 'Any' });
    expect((await call(`/agents/${agent.id}`, 'PATCH', { budget: { limits: [{ period: 'month', tokens: 5000 }] } })).body).toMatchObject({ budget: { limits: [{ period: 'month', tokens: 5000 }], on_exhausted: 'message' } });
    expect((await call(`/agents/${agent.id}`, 'PATCH', { budget: null })).body).toMatchObject({ budget: null });
    expect((await call('/agents/nobody/budget')).status).toBe(404);
  });
});

const nats = await probeNats();
const redis = await probeRedis();

describeWithService(nats.available ? redis : nats, 'token budgets across two gateway processes sharing Redis (real NATS and Redis)', () => {
  let dir: string;
  let hosts: { app: INestApplication; url: string }[];
  let wire: WireServer;
  const namespace = `test-${randomUUID()}`;

  beforeAll(async () => {
    // Slow answers, so that calls of concurrent turns overlap on both processes.
    wire = await startCountingWire(40);
    dir = mkdtempSync(join(tmpdir(), 'tenet-budgets-dist-'));
    const env = { TENET_MODE: 'distributed', TENET_DATA_DIR: dir, NATS_URL: natsUrl(), REDIS_URL: redisUrl(), TENET_REDIS_PREFIX: `test-${randomUUID()}`, TENET_NAMESPACE: namespace, TENET_DEMO: 'off', TENET_AUTH: 'off' };
    const provider = () => new OpenAiProvider({ apiKey: API_KEY, baseURL: wire.url, maxRetries: 0 });
    hosts = [await startAllInOne(env, { provider: provider() }), await startAllInOne(env, { provider: provider() })];
  }, 180_000);

  afterAll(async () => {
    for (const host of hosts) await host.app.close();
    await wire.close();
    await deleteStreams(natsUrl(), tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name));
    rmSync(dir, { recursive: true, force: true });
  });

  it('concurrent turns on two gateways cannot overshoot a daily budget by more than one call', async () => {
    const [a, b] = [hosts[0]!, hosts[1]!];
    const { created, call } = gatewayHttp(() => a.url);
    const limit = 1_000;
    const agent = await created('/agents', { name: 'Shared budget', budget: { limits: [{ period: 'day', tokens: limit }] } });
    await created('/guidelines', { condition: 'the customer asks anything', action: 'answer briefly', tags: [`agent:${agent.id}`] });
    const sessions = await Promise.all(Array.from({ length: 8 }, () => created('/sessions', { agent_id: agent.id })));
    const before = chatCalls(wire);
    // 8 turns × 2 calls × 120 tokens = 1,920 wanted; at most 1,000 + 120 may be spent.
    await Promise.all(sessions.map((s, i) => turn((i % 2 === 0 ? a : b).url, s.id, `question ${i}`)));
    const spent = (chatCalls(wire) - before) * CALL_TOKENS;
    expect(spent).toBeGreaterThanOrEqual(limit);
    expect(spent).toBeLessThan(limit + CALL_TOKENS);
    const [day] = ((await call(`/agents/${agent.id}/budget`)).body as { budgets: { used: number }[] }).budgets;
    expect(day?.used).toBe(spent);
  }, 180_000);
});
