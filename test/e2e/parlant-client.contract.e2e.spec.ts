/**
 * The Parlant contract: every method of parlant-client@3.3.1 (journeys.* and services.* excepted — their own
 * suites, test/api/journeys.int.spec.ts and test/api/tools.int.spec.ts) against `npm start` as a user runs it: a
 * real child process on a random port with a fresh data directory and the offline provider.
 *
 * Each response goes through the client's own serializers made strict (./support/strict-parlant.ts): an unknown
 * field, an enum value or union member the client does not know, a missing or mistyped field fails the call. The
 * client's methods are enumerated from its prototypes, and the last test fails if one is neither covered by a
 * call that returned nor explicitly excluded here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePortRange, killGroup, runCommand, waitHealthy, type RunningCommand } from '@tenet/testing';
import { ParlantError, serialization, type Parlant } from 'parlant-client';
import { makeSerializersStrict, trackedClient } from './support/strict-parlant.js';

const root = new URL('../../', import.meta.url).pathname;

/** Methods this suite does not drive, and why. Anything else the client has must be covered below. */
const EXCLUDED: Record<string, string> = {
  journeys: 'test/api/journeys.int.spec.ts drives journeys.* through the client',
  services: 'test/api/tools.int.spec.ts drives services.* against real tool servers',
};
const excluded = (method: string): boolean => method.split('.')[0]! in EXCLUDED;

/**
 * Fields Tenet adds to Parlant's wire types — its own settings and state (an agent's matching, fallback and
 * journeys, a session's status, a guideline's required context…) and `creation_utc` where Parlant's type lacks
 * it. Parlant clients pass them through unread. Declared per wire type, then placed where each type appears in
 * a response (`*` = every list item); any other unknown field, or a declared one no response has, fails.
 */
const TENET_FIELDS: Record<string, string[]> = {
  Agent: [
    'budget',
    'config',
    'creation_utc',
    'failure_reply',
    'fallback',
    'intents',
    'journeys',
    'matching',
    'no_match_message',
    'retrieval',
    'soul',
    'status',
    'tools',
    'updated_at',
  ],
  Capability: ['creation_utc'],
  ContextVariable: ['creation_utc', 'metadata', 'required'],
  Guideline: ['creation_utc', 'required_context', 'tools'],
  Session: ['config', 'state', 'status'],
  /** GET /sessions/{id} adds what the session has seen so far (active_journey only while in a journey). */
  SessionDetail: ['config', 'last_activity_at', 'message_count', 'state', 'status', 'usage'],
  Tag: ['creation_utc'],
  Term: ['creation_utc'],
};
/** Response schema (as the client exports it) → where a wire type sits in it. */
const PLACES: Record<string, [type: string, at: string][]> = {
  Agent: [['Agent', '']],
  'agents.list.Response': [['Agent', '*.']],
  Capability: [['Capability', '']],
  'capabilities.list.Response': [['Capability', '*.']],
  ContextVariable: [['ContextVariable', '']],
  ContextVariableReadResult: [['ContextVariable', 'context_variable.']],
  'contextVariables.list.Response': [['ContextVariable', '*.']],
  Guideline: [['Guideline', '']],
  GuidelineWithRelationshipsAndToolAssociations: [['Guideline', 'guideline.']],
  'guidelines.list.Response': [['Guideline', '*.']],
  Relationship: [
    ['Guideline', 'source_guideline.'],
    ['Guideline', 'target_guideline.'],
  ],
  'relationships.list.Response': [
    ['Guideline', '*.source_guideline.'],
    ['Guideline', '*.target_guideline.'],
  ],
  Session: [['SessionDetail', '']],
  'sessions.SessionsListResponse': [
    ['Session', '*.'],
    ['Session', 'items.*.'],
  ],
  Tag: [['Tag', '']],
  'tags.list.Response': [['Tag', '*.']],
  Term: [['Term', '']],
  'glossary.listTerms.Response': [['Term', '*.']],
};
const EXTENSIONS: Record<string, string[]> = Object.fromEntries(
  Object.entries(PLACES).map(([schema, places]) => [
    schema,
    places.flatMap(([type, at]) => TENET_FIELDS[type]!.map((field) => `${at}${field}`)).sort(),
  ]),
);

const strict = makeSerializersStrict();

describe('parlant-client 3.3.1 contract against `npm start` (strict wire types)', () => {
  let dataDir: string;
  let app: RunningCommand;
  let url: string;
  let tracked: ReturnType<typeof trackedClient>;
  let client: ReturnType<typeof trackedClient>['client'];
  let agentId: string;

  const status = async (call: Promise<unknown>): Promise<number> => {
    try {
      await call;
      return 200;
    } catch (error) {
      if (error instanceof ParlantError) return error.statusCode ?? 0;
      throw error;
    }
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-contract-'));
    const port = await freePortRange(1);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      TENET_DATA_DIR: dataDir,
      TENET_MODE: 'embedded',
      TENET_LLM_PROVIDER: 'offline',
    };
    delete env['OPENAI_API_KEY'];
    delete env['ANTHROPIC_API_KEY'];
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    app = runCommand(scripts['start']!, { cwd: root, env });
    url = `http://127.0.0.1:${port}`;
    await waitHealthy(url, app);
    tracked = trackedClient(url);
    client = tracked.client;
    agentId = (await client.agents.create({ name: 'Contract' })).id;
  });

  afterAll(async () => {
    if (app) {
      app.child.kill('SIGTERM');
      await Promise.race([app.exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      killGroup(app);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("parses strictly: the client's schemas refuse a mistyped field, an unknown enum value and a missing field", () => {
    expect(strict.schemas).toBeGreaterThan(100);
    const tag = { id: 't1', name: 'vip' };
    expect(serialization.Tag.parseOrThrow(tag)).toEqual(tag);
    expect(() => serialization.Tag.parseOrThrow({ ...tag, id: 7 })).toThrow(/id/);
    expect(() => serialization.Tag.parseOrThrow({ id: 't1' })).toThrow(/name/);
    expect(() => serialization.CompositionModeDto.parseOrThrow('poetic')).toThrow();
    expect(strict.failures).toHaveLength(3);
    // An unknown field passes through but is recorded as an extension of that wire type.
    expect(serialization.Tag.parseOrThrow({ ...tag, extra: 1 })).toMatchObject({ id: 't1' });
    expect([...strict.extensions.get('Tag')!]).toEqual(['extra']);
    strict.failures.length = 0;
    strict.extensions.clear();
  });

  it('healthCheckHealthzGet', async () => {
    expect(await client.healthCheckHealthzGet()).toMatchObject({ status: 'ok' });
  });

  it('agents: create, list, retrieve, update, delete', async () => {
    const tag = await client.tags.create({ name: 'agents' });
    const agent = await client.agents.create({
      name: 'Support',
      description: 'Helps',
      maxEngineIterations: 2,
      compositionMode: 'fluid',
      tags: [tag.id],
    });
    expect(agent).toMatchObject({
      name: 'Support',
      description: 'Helps',
      maxEngineIterations: 2,
      compositionMode: 'fluid',
      tags: [tag.id],
    });
    expect((await client.agents.list()).map((a) => a.id)).toEqual(expect.arrayContaining([agent.id, agentId]));
    expect((await client.agents.retrieve(agent.id)).name).toBe('Support');
    const updated = await client.agents.update(agent.id, {
      name: 'Helpdesk',
      compositionMode: 'strict_canned',
      tags: { remove: [tag.id] },
    });
    expect(updated).toMatchObject({ name: 'Helpdesk', compositionMode: 'strict_canned', tags: [] });
    await client.agents.delete(agent.id);
    expect(await status(client.agents.retrieve(agent.id))).toBe(404);
  });

  it('guidelines: create, list, retrieve, update, delete', async () => {
    const tag = await client.tags.create({ name: 'guides' });
    const guideline = await client.guidelines.create({
      condition: 'The customer asks about shipping',
      action: 'Explain shipping times',
      tags: [tag.id],
      metadata: { owner: 'ops' },
      enabled: true,
    });
    expect(guideline).toMatchObject({
      condition: 'The customer asks about shipping',
      action: 'Explain shipping times',
      tags: [tag.id],
      metadata: { owner: 'ops' },
      enabled: true,
    });
    expect((await client.guidelines.list({ tagId: tag.id })).map((g) => g.id)).toEqual([guideline.id]);
    const read = await client.guidelines.retrieve(guideline.id);
    expect(read.guideline.id).toBe(guideline.id);
    expect(read.relationships).toEqual([]);
    const updated = await client.guidelines.update(guideline.id, {
      action: 'Explain shipping times and costs',
      metadata: { set: { team: 'a' }, unset: ['owner'] },
      tags: { remove: [tag.id] },
      enabled: false,
    });
    expect(updated.guideline).toMatchObject({
      action: 'Explain shipping times and costs',
      metadata: { team: 'a' },
      tags: [],
      enabled: false,
    });
    await client.guidelines.delete(guideline.id);
    expect(await status(client.guidelines.retrieve(guideline.id))).toBe(404);
  });

  it('relationships: create, list, retrieve, delete', async () => {
    const a = await client.guidelines.create({ condition: 'The customer asks for a refund', action: 'Explain the refund policy' });
    const b = await client.guidelines.create({ condition: 'The customer mentions an order', action: 'Offer the premium plan' });
    const relationship = await client.relationships.create({ sourceGuideline: a.id, targetGuideline: b.id, kind: 'priority' });
    expect(relationship).toMatchObject({ kind: 'priority', sourceGuideline: { id: a.id }, targetGuideline: { id: b.id } });
    expect((await client.relationships.list({ guidelineId: a.id })).map((r) => r.id)).toEqual([relationship.id]);
    expect((await client.relationships.retrieve(relationship.id)).id).toBe(relationship.id);
    await client.relationships.delete(relationship.id);
    expect(await status(client.relationships.retrieve(relationship.id))).toBe(404);
  });

  it('cannedResponses: create, list, retrieve, update, delete', async () => {
    const canned = await client.cannedResponses.create({
      value: 'Your order {{order_id}} ships today.',
      fields: [{ name: 'order_id', description: 'The order', examples: ['A-1'] }],
      tags: [`agent:${agentId}`],
      signals: ['when does it ship'],
    });
    expect(canned).toMatchObject({ value: 'Your order {{order_id}} ships today.', tags: [`agent:${agentId}`] });
    expect((await client.cannedResponses.list({ tags: `agent:${agentId}` })).map((c) => c.id)).toEqual([canned.id]);
    expect((await client.cannedResponses.retrieve(canned.id)).value).toBe('Your order {{order_id}} ships today.');
    expect(
      (await client.cannedResponses.update(canned.id, { value: 'Order {{order_id}} ships tomorrow.', metadata: { set: { v: 2 } } })).value,
    ).toBe('Order {{order_id}} ships tomorrow.');
    await client.cannedResponses.delete(canned.id);
    expect(await status(client.cannedResponses.retrieve(canned.id))).toBe(404);
  });

  it('sessions: create, retrieve, update, list (filtered, paginated), delete, deleteMany', async () => {
    const customer = await client.customers.create({ name: 'Ann' });
    const session = await client.sessions.create({ agentId, customerId: customer.id, title: 'Hello', metadata: { a: 1 } });
    expect(session).toMatchObject({ agentId, customerId: customer.id, mode: 'auto', title: 'Hello' });
    expect(session.creationUtc).toBeInstanceOf(Date);
    expect((await client.sessions.retrieve(session.id)).id).toBe(session.id);
    const updated = await client.sessions.update(session.id, {
      title: 'Renamed',
      mode: 'manual',
      metadata: { set: { b: 2 }, unset: ['a'] },
      labels: { upsert: ['vip'] },
      consumptionOffsets: { client: 2 },
    });
    expect(updated).toMatchObject({
      title: 'Renamed',
      mode: 'manual',
      metadata: { b: 2 },
      labels: ['vip'],
      consumptionOffsets: { client: 2 },
    });
    const second = await client.sessions.create({ agentId });
    const listed = (await client.sessions.list({ agentId, customerId: customer.id })) as Parlant.Session[];
    expect(listed.map((s) => s.id)).toEqual([session.id]);
    const page = (await client.sessions.list({ agentId, limit: 1 })) as Parlant.SessionListing;
    expect(page).toMatchObject({ totalCount: 2, hasMore: true });
    const next = (await client.sessions.list({ agentId, limit: 1, cursor: page.nextCursor! })) as Parlant.SessionListing;
    expect(next.items.map((s) => s.id)).toEqual([second.id]);
    await client.sessions.delete(second.id);
    expect(await status(client.sessions.retrieve(second.id))).toBe(404);
    await client.sessions.deleteMany({ agentId, customerId: customer.id });
    expect(await status(client.sessions.retrieve(session.id))).toBe(404);
  });

  it('events: createEvent, listEvents, readEvent, updateEvent, deleteEvents; a customer message gets a reply', async () => {
    const session = await client.sessions.create({ agentId });
    const message = await client.sessions.createEvent(session.id, { kind: 'message', source: 'customer', message: 'Hello there' });
    const events = await eventually(
      async () => {
        const all = await client.sessions.listEvents(session.id, { minOffset: 0, waitForData: 0 });
        expect(all.some((e) => e.kind === 'status' && (e.data as { status?: string }).status === 'ready')).toBe(true);
        return all;
      },
      { timeoutMs: 60_000 },
    );
    expect(events.some((e) => e.kind === 'message' && e.source === 'ai_agent')).toBe(true);
    expect((await client.sessions.listEvents(session.id, { kinds: 'message', source: 'customer' })).map((e) => e.id)).toEqual([message.id]);
    const read = await client.sessions.readEvent(session.id, message.id);
    expect(read).toMatchObject({ id: message.id, kind: 'message', source: 'customer', deleted: false });
    const patched = await client.sessions.updateEvent(session.id, message.id, { metadata: { set: { flagged: true } } });
    expect(patched.metadata).toEqual({ flagged: true });
    await client.sessions.deleteEvents(session.id, { minOffset: 1 });
    expect((await client.sessions.listEvents(session.id)).map((e) => e.id)).toEqual([message.id]);
  });

  it('hand-off through the client: auto → manual (agent silent for 3 customer messages, a human answers) → auto (agent replies)', async () => {
    const session = await client.sessions.create({ agentId });
    const ready = async (count: number): Promise<Parlant.Event[]> =>
      eventually(
        async () => {
          const all = await client.sessions.listEvents(session.id);
          expect(all.filter((e) => e.kind === 'status' && (e.data as { status?: string }).status === 'ready')).toHaveLength(count);
          return all;
        },
        { timeoutMs: 60_000 },
      );
    await client.sessions.createEvent(session.id, { kind: 'message', source: 'customer', message: 'Hi' });
    await ready(1);
    expect((await client.sessions.update(session.id, { mode: 'manual' })).mode).toBe('manual');
    for (const text of ['Are you there?', 'Hello?', 'I need a person']) {
      await client.sessions.createEvent(session.id, { kind: 'message', source: 'customer', message: text });
      await client.sessions.createEvent(session.id, {
        kind: 'message',
        source: 'human_agent',
        message: `Human: ${text}`,
        participant: { displayName: 'Sam' },
      });
    }
    expect((await client.sessions.update(session.id, { mode: 'auto' })).mode).toBe('auto');
    await client.sessions.createEvent(session.id, { kind: 'message', source: 'customer', message: 'Thanks, back to the bot' });
    const all = await ready(2); // one ready before the hand-off, one after: none while manual
    const agentReplies = all.filter((e) => e.kind === 'message' && e.source === 'ai_agent');
    expect(agentReplies).toHaveLength(2);
    expect(all.filter((e) => e.kind === 'status' && (e.data as { status?: string }).status === 'acknowledged')).toHaveLength(2); // no turn started while manual
    expect(all.filter((e) => e.source === 'human_agent')).toHaveLength(3);
    expect(agentReplies[1]!.offset).toBeGreaterThan(all.filter((e) => e.source === 'human_agent').at(-1)!.offset);
  });

  it('capabilities: create, list, retrieve, update, delete', async () => {
    const tag = await client.tags.create({ name: 'caps' });
    const capability = await client.capabilities.create({
      title: 'Order tracking',
      description: 'Find an order',
      signals: ['where is my order'],
      tags: [tag.id],
    });
    expect(capability).toMatchObject({ title: 'Order tracking', signals: ['where is my order'], tags: [tag.id] });
    expect((await client.capabilities.list({ tagId: tag.id })).map((c) => c.id)).toEqual([capability.id]);
    expect((await client.capabilities.retrieve(capability.id)).description).toBe('Find an order');
    expect((await client.capabilities.update(capability.id, { title: 'Tracking', tags: { remove: [tag.id] } })).tags).toEqual([]);
    await client.capabilities.delete(capability.id);
    expect(await status(client.capabilities.retrieve(capability.id))).toBe(404);
  });

  it('evaluations: create and retrieve (waiting for completion); the offline provider checks coherence lexically', async () => {
    await client.guidelines.create({ condition: 'The customer asks for a refund of their order', action: 'Offer a full refund' });
    const evaluation = await client.evaluations.create({
      payloads: [
        {
          kind: 'guideline',
          guideline: {
            content: { condition: 'The customer wants a refund for an order', action: 'Never offer a refund' },
            toolIds: [],
            operation: 'add',
          },
        },
      ],
    });
    expect(['pending', 'running', 'completed']).toContain(evaluation.status);
    const done = await eventually(
      async () => {
        const read = await client.evaluations.retrieve(evaluation.id, { waitForCompletion: 30 });
        expect(read.status).toBe('completed');
        return read;
      },
      { timeoutMs: 60_000 },
    );
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    expect(done.invoices[0]).toMatchObject({ approved: false });
    expect(done.invoices[0]!.data?.guideline?.propertiesProposition).toMatchObject({
      contradictions: [expect.objectContaining({ reason: expect.any(String) })],
    });
  });

  it('customers: create, list (plain and paginated), retrieve, update, delete', async () => {
    const customer = await client.customers.create({ name: 'Bob', metadata: { tier: 'gold' } });
    expect((await client.customers.retrieve(customer.id)).name).toBe('Bob');
    expect(((await client.customers.list()) as Parlant.Customer[]).some((c) => c.id === customer.id)).toBe(true);
    expect(((await client.customers.list({ limit: 1 })) as Parlant.PaginatedCustomers).items).toHaveLength(1);
    expect((await client.customers.update(customer.id, { name: 'Robert', metadata: { unset: ['tier'] } })).metadata).toEqual({});
    await client.customers.delete(customer.id);
    expect(await status(client.customers.retrieve(customer.id))).toBe(404);
  });

  it('tags: create, list, retrieve, update, delete', async () => {
    const tag = await client.tags.create({ name: 'vip' });
    expect((await client.tags.list()).some((t) => t.id === tag.id)).toBe(true);
    expect((await client.tags.retrieve(tag.id)).name).toBe('vip');
    expect((await client.tags.update(tag.id, { name: 'VIP' })).name).toBe('VIP');
    await client.tags.delete(tag.id);
    expect(await status(client.tags.retrieve(tag.id))).toBe(404);
  });

  it('context variables: create (untyped, Parlant name), list, retrieve, update, setValue/getValue/deleteValue, delete, deleteMany', async () => {
    const tag = await client.tags.create({ name: 'vars' });
    const variable = await client.contextVariables.create({ name: 'UserBalance', description: 'Balance', tags: [tag.id] });
    expect((await client.contextVariables.list({ tagId: tag.id })).map((v) => v.id)).toEqual([variable.id]);
    expect((await client.contextVariables.update(variable.id, { description: 'The balance' })).description).toBe('The balance');
    const value = await client.contextVariables.setValue(variable.id, 'guest', { data: { amount: 12.5, currency: 'EUR' } });
    expect(value.data).toEqual({ amount: 12.5, currency: 'EUR' });
    expect((await client.contextVariables.getValue(variable.id, 'guest')).data).toEqual({ amount: 12.5, currency: 'EUR' });
    const read = await client.contextVariables.retrieve(variable.id, { includeValues: true });
    expect(Object.keys(read.keyValuePairs ?? {})).toEqual(['guest']);
    await client.contextVariables.deleteValue(variable.id, 'guest');
    expect(await status(client.contextVariables.getValue(variable.id, 'guest'))).toBe(404);
    await client.contextVariables.delete(variable.id);
    expect(await status(client.contextVariables.retrieve(variable.id))).toBe(404);
    const other = await client.contextVariables.create({ name: 'Plan', tags: [tag.id] });
    await client.contextVariables.deleteMany({ tagId: tag.id });
    expect(await status(client.contextVariables.retrieve(other.id))).toBe(404);
  });

  it('glossary: createTerm, listTerms, retrieveTerm, updateTerm, deleteTerm', async () => {
    const term = await client.glossary.createTerm({ name: 'SKU', description: 'Stock keeping unit', synonyms: ['item code'] });
    expect((await client.glossary.listTerms()).some((t) => t.id === term.id)).toBe(true);
    expect((await client.glossary.retrieveTerm(term.id)).synonyms).toEqual(['item code']);
    expect((await client.glossary.updateTerm(term.id, { description: 'Item code' })).description).toBe('Item code');
    await client.glossary.deleteTerm(term.id);
    expect(await status(client.glossary.retrieveTerm(term.id))).toBe(404);
  });

  it('covers every client method except the excluded resources, and no response failed strict parsing', () => {
    expect(tracked.all).toHaveLength(72); // parlant-client@3.3.1: 71 resource methods + healthCheckHealthzGet
    expect(tracked.all.filter((m) => !excluded(m) && !tracked.covered.has(m))).toEqual([]);
    expect(tracked.all.filter(excluded)).toHaveLength(10);
    expect(strict.failures).toEqual([]);
    const seen = Object.fromEntries([...strict.extensions].map(([schema, keys]) => [schema, [...keys].sort()]));
    expect(seen).toEqual(EXTENSIONS);
  });
});
