import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { startAllInOne } from '@tenet/hosts';
import { eventually } from '@tenet/testing';
import { ParlantClient, ParlantError, type Parlant } from 'parlant-client';

/**
 * parlant-client@3.3.1 against the composed host. Every response is parsed by the client's own serializers
 * (`parseOrThrow`: a missing or mistyped field throws), so a passing call is a response of the client's wire type.
 * Journeys and services have their own suites.
 */
describe('parlant-client 3.3.1 contract: sessions, events, capabilities, evaluations, customers, tags, context variables, glossary', () => {
  let dir: string;
  let app: INestApplication;
  let client: ParlantClient;
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
    dir = mkdtempSync(join(tmpdir(), 'tenet-contract-'));
    const started = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_LLM_PROVIDER: 'offline' });
    app = started.app;
    client = new ParlantClient({ environment: started.url });
    agentId = (await client.agents.create({ name: 'Contract' })).id;
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sessions: create, retrieve, update, list (filtered, paginated), delete, deleteMany', async () => {
    const customer = await client.customers.create({ name: 'Ann' });
    const session = await client.sessions.create({ agentId, customerId: customer.id, title: 'Hello', metadata: { a: 1 } });
    expect(session).toMatchObject({ agentId, customerId: customer.id, mode: 'auto', title: 'Hello' });
    expect(session.creationUtc).toBeInstanceOf(Date);
    expect((await client.sessions.retrieve(session.id)).id).toBe(session.id);
    const updated = await client.sessions.update(session.id, { title: 'Renamed', mode: 'manual', metadata: { set: { b: 2 }, unset: ['a'] }, labels: { upsert: ['vip'] }, consumptionOffsets: { client: 2 } });
    expect(updated).toMatchObject({ title: 'Renamed', mode: 'manual', metadata: { b: 2 }, labels: ['vip'], consumptionOffsets: { client: 2 } });
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
      await client.sessions.createEvent(session.id, { kind: 'message', source: 'human_agent', message: `Human: ${text}`, participant: { displayName: 'Sam' } });
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
    const capability = await client.capabilities.create({ title: 'Order tracking', description: 'Find an order', signals: ['where is my order'], tags: [tag.id] });
    expect(capability).toMatchObject({ title: 'Order tracking', signals: ['where is my order'], tags: [tag.id] });
    expect((await client.capabilities.list({ tagId: tag.id })).map((c) => c.id)).toEqual([capability.id]);
    expect((await client.capabilities.retrieve(capability.id)).description).toBe('Find an order');
    expect((await client.capabilities.update(capability.id, { title: 'Tracking', tags: { remove: [tag.id] } })).tags).toEqual([]);
    await client.capabilities.delete(capability.id);
    expect(await status(client.capabilities.retrieve(capability.id))).toBe(404);
  });

  it('evaluations: create and retrieve (waiting for completion)', async () => {
    await client.guidelines.create({ condition: 'The customer asks for a refund of their order', action: 'Offer a full refund' });
    const evaluation = await client.evaluations.create({
      payloads: [{ kind: 'guideline', guideline: { content: { condition: 'The customer wants a refund for an order', action: 'Never offer a refund' }, toolIds: [], operation: 'add' } }],
    });
    expect(evaluation.status).toBe('pending');
    const done = await client.evaluations.retrieve(evaluation.id, { waitForCompletion: 30 });
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    expect(done.invoices[0]).toMatchObject({ approved: false });
    expect(done.invoices[0]!.data?.guideline?.propertiesProposition).toMatchObject({ contradictions: [expect.objectContaining({ reason: expect.any(String) })] });
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
});
