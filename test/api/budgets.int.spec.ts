import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { budgetStreamId } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { OfflineVectorizer, OpenAiProvider } from '@tenet/llm';
import { openAiCompletion, startWireServer, type RecordedRequest, type WireServer } from '@tenet/llm/testing';
import { EVENT_STORE, tenetStreamsFor } from '@tenet/platform-runtime';
import { AgentBudgets } from '@tenet/metering-http';
import { deleteRedisKeys, deleteStreams, describeWithService, natsUrl, probeNats, probeRedis, redisUrl } from '@tenet/testing';
import { gatewayHttp } from './support/gateway-http.js';

const API_KEY = 'sk-tenet-test-budget-0123456789';
/** Every call the wire server answers is billed this much (unless a test changes `billing`): 1,800 input + 200 output tokens. */
const CALL_TOKENS = 2_000;
const billing = { prompt: 1_800, completion: 200 };
/** The agents' reply cap: with it a simple turn is estimated at ~5,300 tokens (turnTokenEstimate), two calls bill 4,000. */
const MAX_TOKENS = 50;

interface SessionEvent {
  offset: number;
  kind: string;
  source: string;
  correlation_id: string;
  data: { status?: string; message?: string; data?: Record<string, unknown> };
}

const schemaOf = (request: RecordedRequest): string =>
  (request.body['response_format'] as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? '';
const chatCalls = (wire: WireServer): number => wire.requests.filter((r) => r.url.endsWith('/chat/completions')).length;

/** An OpenAI-wire stand-in answering every call (after `delayMs`) with CALL_TOKENS of usage. */
const startCountingWire = (delayMs = 0): Promise<WireServer> =>
  startWireServer(async (request) => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const usage = { prompt_tokens: billing.prompt, completion_tokens: billing.completion };
    return schemaOf(request) === 'guideline_matches'
      ? openAiCompletion({ matches: [] }, usage)
      : openAiCompletion({ message: 'Happy to help.', cited_guideline_ids: [], canned_response_id: '' }, usage);
  });

/** The tokens of the memory store's query embedding in a turn, as its `ready` status lists them (`knowledge.search`). */
const recallEmbeddingTokens = (events: SessionEvent[]): number =>
  ((events.find((e) => e.data.status === 'ready')?.data.data?.['usage'] as { purpose: string; input_tokens: number }[] | undefined) ?? [])
    .filter((u) => u.purpose === 'knowledge.search')
    .reduce((sum, u) => sum + u.input_tokens, 0);

/** Posts a customer message; resolves with the turn's events once it ended (ready, error or cancelled). */
async function turn(url: string, sessionId: string, message: string): Promise<SessionEvent[]> {
  const { call } = gatewayHttp(() => url);
  const posted = (await call(`/sessions/${sessionId}/events`, 'POST', { kind: 'message', source: 'customer', message }))
    .body as SessionEvent;
  for (let attempt = 0; attempt < 200; attempt++) {
    const events = (
      (await call(`/sessions/${sessionId}/events?min_offset=${posted.offset + 1}&wait_for_data=5`)).body as SessionEvent[]
    ).filter((e) => e.correlation_id === posted.correlation_id);
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
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' },
      { provider: new OpenAiProvider({ apiKey: API_KEY, baseURL: wire.url, maxRetries: 0 }) },
    ));
  });

  afterAll(async () => {
    await app.close();
    await wire.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newAgent = async (budget: unknown): Promise<string> => {
    const agent = await created('/agents', { name: 'Frugal', budget, config: { max_tokens: MAX_TOKENS } });
    await created('/guidelines', { condition: 'the customer asks anything', action: 'answer briefly', tags: [`agent:${agent.id}`] });
    return agent.id;
  };

  it('a budget smaller than one turn refuses the turn up front: no LLM call is made, the agent says its message', async () => {
    // The audit's case: a 4,000-token limit overshot 6.4× by one call. The default reply cap (2,048) alone makes
    // the turn's estimate larger than the whole budget.
    const agent = await created('/agents', {
      name: 'Tiny',
      budget: { limits: [{ period: 'day', tokens: 4_000 }], exhausted_message: 'We have reached our limit for today.' },
    });
    await created('/guidelines', { condition: 'the customer asks anything', action: 'answer briefly', tags: [`agent:${agent.id}`] });
    const session = await created('/sessions', { agent_id: agent.id });
    const before = chatCalls(wire);
    const refused = await turn(url, session.id, 'hello');
    expect(chatCalls(wire) - before).toBe(0);
    expect(refused.find((e) => e.kind === 'message')?.data.message).toBe('We have reached our limit for today.');
    expect(refused.find((e) => e.data.status === 'ready')?.data.data).toMatchObject({
      budget_exceeded: { key: `agent:${agent.id}:day:tokens` },
    });
    expect((await call(`/agents/${agent.id}/budget`)).body).toMatchObject({ budgets: [{ used: 0, reserved: 0, limit: 4_000 }] });
  });

  it('a daily budget answers whole turns while one fits, then refuses the next up front — never a match without its compose', async () => {
    const limit = 20_000;
    const agentId = await newAgent({
      limits: [{ period: 'day', tokens: limit }],
      exhausted_message: 'We have reached our limit for today.',
    });
    const session = await created('/sessions', { agent_id: agentId });
    let answered = 0;
    let recallTokens = 0;
    for (let i = 0; i < 10; i++) {
      const before = chatCalls(wire);
      const events = await turn(url, session.id, `question ${i}`);
      recallTokens += recallEmbeddingTokens(events);
      const reply = events.find((e) => e.kind === 'message')?.data.message;
      if (reply === 'We have reached our limit for today.') {
        expect(chatCalls(wire) - before).toBe(0);
        break;
      }
      expect(reply).toBe('Happy to help.');
      expect(chatCalls(wire) - before).toBe(2);
      answered++;
    }
    // ~5,300 estimated per turn: 20,000 admits four turns of 4,000 (16,000 used, 4,000 left < one turn).
    expect(answered).toBe(4);
    const budget = (await call(`/agents/${agentId}/budget`)).body as {
      budgets: { period: string; limit: number; used: number; exhausted: boolean; resets_at: string }[];
    };
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    // The two LLM calls of each answered turn and recall's query embedding (the memory store's call).
    expect(recallTokens).toBeGreaterThan(0);
    expect(budget.budgets).toEqual([
      expect.objectContaining({
        period: 'day',
        unit: 'tokens',
        limit,
        used: answered * 2 * CALL_TOKENS + recallTokens,
        reserved: 0,
        exhausted: false,
        resets_at: midnight.toISOString(),
      }),
    ]);

    // Published (through the log): the 80 % warning, once.
    const store = app.get<EventStore>(EVENT_STORE, { strict: false });
    expect((await store.readStream(budgetStreamId(agentId))).map((e) => e.type)).toEqual(['BudgetWarningReached']);

    // The daily reset job's work: a new day's counter starts from 0, and the agent answers again.
    const tomorrow = new Date(Date.now() + 86_400_000);
    expect(await app.get(AgentBudgets).reset(tomorrow)).toBeGreaterThanOrEqual(1);
    expect((await turn(url, session.id, 'a new day')).find((e) => e.kind === 'message')?.data.message).toBe('Happy to help.');
  }, 120_000);

  it("recall's query embedding (the memory store's call) counts in used and is listed with the turn's usage", async () => {
    const agentId = await newAgent({ limits: [{ period: 'day', tokens: 100_000 }] });
    expect(
      (
        await call('/knowledge/sources', 'POST', {
          id: `refunds-${agentId}`,
          title: 'Refunds',
          format: 'markdown',
          content: '# Refunds\nRefunds are paid within 30 days of delivery.',
          agent_ids: [agentId],
        })
      ).status,
    ).toBe(201);
    const session = await created('/sessions', { agent_id: agentId });
    const message = 'How long do refunds take after delivery?';
    const events = await turn(url, session.id, message);
    expect(events.find((e) => e.kind === 'message')?.data.message).toBe('Happy to help.');
    const ready = events.find((e) => e.data.status === 'ready')?.data.data as {
      usage: { purpose: string; provider: string; input_tokens: number; output_tokens: number }[];
      memory?: Record<string, unknown>;
    };
    // The memory store embedded the message with the offline vectorizer (no embedding key here): its tokens, exactly.
    const embedding = (await new OfflineVectorizer().embed([message], { purpose: 'knowledge.search' })).usage.inputTokens;
    expect(embedding).toBeGreaterThan(0);
    expect(ready.usage.filter((u) => u.purpose === 'knowledge.search')).toEqual([
      expect.objectContaining({ provider: 'offline', input_tokens: embedding, output_tokens: 0 }),
    ]);
    const [day] = ((await call(`/agents/${agentId}/budget`)).body as { budgets: { used: number; reserved: number }[] }).budgets;
    // Two LLM calls of CALL_TOKENS, plus the embedding (once unmetered, when `used` stopped at the two calls).
    expect(day).toMatchObject({ used: 2 * CALL_TOKENS + embedding, reserved: 0 });
  }, 120_000);

  it('one call that crosses 80 % and 100 % at once publishes the warning and the exhaustion; the turn ends with the budget reply', async () => {
    const agentId = await newAgent({ limits: [{ period: 'day', tokens: 20_000 }] });
    const session = await created('/sessions', { agent_id: agentId });
    // The provider bills far more than any estimate (30,000 tokens for the match call): the compose call is refused.
    billing.prompt = 30_000;
    // What the memory store's offline embedding of the message bills (the turn's ready status is the budget reply's).
    const recallTokens = (await new OfflineVectorizer().embed(['hello'], { purpose: 'knowledge.search' })).usage.inputTokens;
    try {
      const before = chatCalls(wire);
      const events = await turn(url, session.id, 'hello');
      expect(chatCalls(wire) - before).toBe(1);
      expect(events.find((e) => e.kind === 'message')?.data.message).toMatch(/can't continue this conversation/);
    } finally {
      billing.prompt = 1_800;
    }
    const store = app.get<EventStore>(EVENT_STORE, { strict: false });
    const published = await store.readStream(budgetStreamId(agentId));
    expect(published.map((e) => e.type)).toEqual(['BudgetWarningReached', 'BudgetExceeded']);
    expect(published[1]?.data).toMatchObject({
      agent_id: agentId,
      limit: 20_000,
      scope: { owner: 'agent', period: 'day', unit: 'tokens' },
    });
    // The match call, and recall's query embedding when it was charged before the exhaustion was published.
    const used = (published[1]?.data as { used: number }).used;
    expect(used).toBeGreaterThanOrEqual(30_200);
    expect(used).toBeLessThanOrEqual(30_200 + recallTokens);
  }, 120_000);

  it('a session budget limits one session only; on_exhausted handoff hands the session to a human', async () => {
    const agentId = await newAgent({ limits: [{ period: 'session', tokens: 6_000 }], on_exhausted: 'handoff' });
    const spent = await created('/sessions', { agent_id: agentId });
    const before = chatCalls(wire);
    expect((await turn(url, spent.id, 'hello')).find((e) => e.kind === 'message')?.data.message).toBe('Happy to help.');
    // 4,000 used, 2,000 left: the next turn does not fit and is refused before any call.
    const second = await turn(url, spent.id, 'and more');
    expect(chatCalls(wire) - before).toBe(2);
    expect(second.find((e) => e.kind === 'message')?.data.message).toMatch(/can't continue this conversation/);
    expect(((await call(`/sessions/${spent.id}`)).body as { mode: string }).mode).toBe('manual');

    const fresh = await created('/sessions', { agent_id: agentId });
    expect((await call(`/agents/${agentId}/budget?session_id=${fresh.id}`)).body).toMatchObject({
      budgets: [{ key: `session:${fresh.id}:tokens`, used: 0, limit: 6_000 }],
    });
  }, 120_000);

  it('a cost budget counts estimated USD from the price table', async () => {
    const agentId = await newAgent({ limits: [{ period: 'month', cost_usd: 1 }] });
    const session = await created('/sessions', { agent_id: agentId });
    await turn(url, session.id, 'hello');
    const [month] = ((await call(`/agents/${agentId}/budget`)).body as { budgets: { unit: string; used: number; limit: number }[] })
      .budgets;
    // gpt-4o-mini: 0.15 $ per million input tokens, 0.6 $ per million output tokens; two calls of 1,800 + 200.
    expect(month).toMatchObject({ unit: 'usd', limit: 1 });
    expect(month?.used).toBeCloseTo((2 * (1_800 * 0.15 + 200 * 0.6)) / 1_000_000, 9);
  }, 120_000);

  it.each([
    [{ limits: [{ period: 'day', tokens: 10, cost_usd: 1 }] }, ['body', 'budget', 'limits', 0], /exactly one of tokens and cost_usd/],
    [{ limits: [{ period: 'week', tokens: 10 }] }, ['body', 'budget', 'limits', 0, 'period'], /period must be one of session, day, month/],
    [{ limits: [{ period: 'day', tokens: 0 }] }, ['body', 'budget', 'limits', 0, 'tokens'], /tokens must be a positive integer/],
    [
      {
        limits: [
          { period: 'day', tokens: 5 },
          { period: 'day', tokens: 6 },
        ],
      },
      ['body', 'budget', 'limits', 1],
      /only one tokens limit per period/,
    ],
    [{ limits: [], on_exhausted: 'panic' }, ['body', 'budget', 'on_exhausted'], /on_exhausted must be one of message, handoff/],
  ])('PATCH budget %j is refused with a 422 naming the field', async (budget, loc, msg) => {
    const agent = await created('/agents', { name: 'Any' });
    const reply = await call(`/agents/${agent.id}`, 'PATCH', { budget });
    expect(reply.status).toBe(422);
    expect((reply.body as { detail: { loc: unknown[]; msg: string }[] }).detail).toContainEqual(
      expect.objectContaining({ loc, msg: expect.stringMatching(msg) as unknown }),
    );
  });

  it("a workspace's monthly budget is charged by all its agents and stops them all", async () => {
    expect((await call('/workspace', 'PATCH', { budget: { limits: [{ period: 'session', tokens: 5 }] } })).body).toMatchObject({
      detail: [{ loc: ['body', 'budget', 'limits', 0, 'period'] }],
    });
    expect(
      (await call('/workspace', 'PATCH', { budget: { limits: [{ period: 'month', tokens: 8_000 }], exhausted_message: 'unused' } })).body,
    ).toMatchObject({ id: 'default', budget: { limits: [{ period: 'month', tokens: 8_000 }] } });
    try {
      const first = await newAgent(undefined);
      const second = await newAgent(undefined);
      const before = chatCalls(wire);
      const recallTokens = recallEmbeddingTokens(await turn(url, (await created('/sessions', { agent_id: first })).id, 'hello'));
      expect(chatCalls(wire) - before).toBe(2);
      const refused = await turn(url, (await created('/sessions', { agent_id: second })).id, 'hello');
      expect(chatCalls(wire) - before).toBe(2);
      expect(refused.find((e) => e.data.status === 'ready')?.data.data).toMatchObject({
        budget_exceeded: { key: 'workspace:default:month:tokens', period: 'month' },
      });
      // 4,000 (and recall's embedding) used by the first agent, < 4,000 left: less than the second agent's turn, refused before any call.
      expect((await call(`/agents/${second}/budget`)).body).toMatchObject({
        budgets: [{ key: 'workspace:default:month:tokens', limit: 8_000, used: 4_000 + recallTokens, exhausted: false }],
      });
    } finally {
      await call('/workspace', 'PATCH', { budget: null });
    }
  }, 120_000);

  it('a restart keeps what the period used: the counters are rebuilt from the usage the log holds', async () => {
    // Day, month and session budgets, all far from spent: each counter must come back, not start again from 0.
    const agent = await newAgent({
      limits: [
        { period: 'day', tokens: 100_000 },
        { period: 'month', cost_usd: 50 },
        { period: 'session', tokens: 100_000 },
      ],
    });
    const session = (await created('/sessions', { agent_id: agent })).id;
    await turn(url, session, 'hello');
    await turn(url, session, 'and again');
    const usedOf = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        ((await call(`/agents/${agent}/budget?session_id=${session}`)).body as { budgets: { key: string; used: number }[] }).budgets.map(
          (b) => [b.key, b.used],
        ),
      );
    const before = await usedOf();
    expect(Object.keys(before)).toHaveLength(3);
    expect(Object.values(before).every((used) => used > 0)).toBe(true);

    // The embedded host keeps its counters in memory: a new host on the same log starts them from 0, then rebuilds.
    await app.close();
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_DEMO: 'off' },
      { provider: new OpenAiProvider({ apiKey: API_KEY, baseURL: wire.url, maxRetries: 0 }) },
    ));
    await app.get(AgentBudgets).rebuilt();
    expect(await usedOf()).toEqual(before);
    // Rebuilt counters are charged like any: one more turn adds its calls on top of them.
    await turn(url, session, 'once more');
    const after = await usedOf();
    expect(after[`agent:${agent}:day:tokens`]).toBeGreaterThan(before[`agent:${agent}:day:tokens`]! + 3_000);
  }, 120_000);

  it('PATCH sets and clears a budget; GET /agents/{id}/budget of an unknown agent is 404', async () => {
    const agent = await created('/agents', { name: 'Any' });
    expect((await call(`/agents/${agent.id}`, 'PATCH', { budget: { limits: [{ period: 'month', tokens: 5000 }] } })).body).toMatchObject({
      budget: { limits: [{ period: 'month', tokens: 5000 }], on_exhausted: 'message' },
    });
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
  const redisPrefix = `test-${randomUUID()}`;

  beforeAll(async () => {
    // Slow answers, so that calls of concurrent turns overlap on both processes.
    wire = await startCountingWire(40);
    dir = mkdtempSync(join(tmpdir(), 'tenet-budgets-dist-'));
    const env = {
      TENET_MODE: 'distributed',
      TENET_DATA_DIR: dir,
      NATS_URL: natsUrl(),
      REDIS_URL: redisUrl(),
      TENET_REDIS_PREFIX: redisPrefix,
      TENET_NAMESPACE: namespace,
      TENET_DEMO: 'off',
      TENET_AUTH: 'off',
    };
    const provider = () => new OpenAiProvider({ apiKey: API_KEY, baseURL: wire.url, maxRetries: 0 });
    hosts = [await startAllInOne(env, { provider: provider() }), await startAllInOne(env, { provider: provider() })];
  }, 180_000);

  afterAll(async () => {
    for (const host of hosts) await host.app.close();
    await wire.close();
    await deleteStreams(
      natsUrl(),
      tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
    );
    await deleteRedisKeys(redisUrl(), redisPrefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('concurrent turns on two gateways never overshoot a daily budget and never leave a turn half-answered', async () => {
    const [a, b] = [hosts[0]!, hosts[1]!];
    const { created, call } = gatewayHttp(() => a.url);
    const limit = 14_000;
    const agent = await created('/agents', {
      name: 'Shared budget',
      budget: { limits: [{ period: 'day', tokens: limit }] },
      config: { max_tokens: MAX_TOKENS },
    });
    await created('/guidelines', { condition: 'the customer asks anything', action: 'answer briefly', tags: [`agent:${agent.id}`] });
    const sessions = await Promise.all(Array.from({ length: 8 }, () => created('/sessions', { agent_id: agent.id })));
    const before = chatCalls(wire);
    // 8 turns × 4,000 tokens wanted, ~5,300 held per turn: whole turns run while one fits, the rest are refused up front.
    const turns = await Promise.all(sessions.map((s, i) => turn((i % 2 === 0 ? a : b).url, s.id, `question ${i}`)));
    const spent = (chatCalls(wire) - before) * CALL_TOKENS;
    const answered = turns.filter((events) => events.some((e) => e.kind === 'message' && e.data.message === 'Happy to help.')).length;
    expect(answered).toBeGreaterThanOrEqual(2);
    expect(spent).toBe(answered * 2 * CALL_TOKENS);
    // Recall's query embeddings of the answered turns count too (refused turns end before recall).
    const recalled = turns.reduce((sum, events) => sum + recallEmbeddingTokens(events), 0);
    expect(spent + recalled).toBeLessThanOrEqual(limit);
    const [day] = ((await call(`/agents/${agent.id}/budget`)).body as { budgets: { used: number }[] }).budgets;
    expect(day?.used).toBe(spent + recalled);
  }, 180_000);
});
