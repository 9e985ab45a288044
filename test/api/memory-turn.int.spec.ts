import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { contextExtractionStream } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { gatewayHttp } from './support/gateway-http.js';

interface EventView {
  kind: string;
  source: string;
  offset: number;
  correlation_id: string;
  data: Record<string, unknown> & {
    status?: string;
    message?: string;
    data?: Record<string, unknown>;
    sources?: Record<string, unknown>[];
  };
}

const policies = readFileSync(new URL('../../examples/acme-policies.md', import.meta.url), 'utf8');

/**
 * Memory and knowledge in the turn (ADR 0017), all-in-one with the offline provider: the reply answers from the agent's documents and
 * cites them (`data.sources`); extraction fills variables (one LLM call) and facts that a later session recalls.
 */
describe('memory in the turn', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let store: EventStore;
  const { call, created } = gatewayHttp(() => url);

  /** Posts a customer message and waits for the turn's `ready` (or `error`); the events of the turn. */
  const turn = async (sessionId: string, message: string): Promise<{ reply: EventView; ready: EventView }> => {
    const posted = await created<EventView>(`/sessions/${sessionId}/events`, { kind: 'message', source: 'customer', message });
    let offset = posted.offset + 1;
    const seen: EventView[] = [];
    for (let i = 0; i < 120; i++) {
      const events = (await call(`/sessions/${sessionId}/events?min_offset=${offset}&wait_for_data=10`)).body as EventView[];
      if (!Array.isArray(events)) continue;
      seen.push(...events);
      offset = (events.at(-1)?.offset ?? offset - 1) + 1;
      const end = seen.find(
        (e) =>
          e.kind === 'status' && e.correlation_id === posted.correlation_id && (e.data.status === 'ready' || e.data.status === 'error'),
      );
      if (end) {
        expect(end.data.status).toBe('ready');
        return {
          reply: seen.find((e) => e.kind === 'message' && e.source === 'ai_agent' && e.correlation_id === posted.correlation_id)!,
          ready: end,
        };
      }
    }
    throw new Error('the turn did not end');
  };

  const eventually = async <T>(probe: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 200; i++) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('condition not met in time');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-memory-turn-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }));
    store = app.get<EventStore>(EVENT_STORE);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a policy question from the agent's document and cites the passage in data.sources", async () => {
    const agent = await created('/agents', { name: 'Ada', description: 'Acme support' });
    const other = await created('/agents', { name: 'Bob' });
    await created('/knowledge/sources', {
      id: 'policies',
      title: 'Acme customer policies',
      url: 'https://acme.example/policies',
      format: 'markdown',
      content: policies,
      agent_ids: [agent.id],
    });
    const session = await created('/sessions', { agent_id: agent.id });

    const { reply, ready } = await turn(session.id, 'What is the warranty on electronics?');
    expect(reply.data.message).toContain('two-year warranty');
    expect(reply.data.sources).toEqual([
      expect.objectContaining({
        source_id: 'policies',
        title: 'Acme customer policies',
        url: 'https://acme.example/policies',
        heading: 'Acme customer policies › Warranty › Electronics',
        chunk_text: expect.stringContaining('two-year warranty') as unknown,
        score: expect.any(Number) as unknown,
      }),
    ]);
    expect(ready.data.data?.['memory']).toMatchObject({ recalled: true });

    // Another agent has no access to the document: no answer from it, no citation.
    const otherSession = await created('/sessions', { agent_id: other.id });
    const { reply: otherReply } = await turn(otherSession.id, 'What is the warranty on electronics?');
    expect(otherReply.data.message).not.toContain('two-year');
    expect(otherReply.data.sources).toBeUndefined();

    // A message the document does not answer cites nothing.
    const { reply: unrelated } = await turn(session.id, 'hello there');
    expect(unrelated.data.sources).toBeUndefined();
  }, 120_000);

  it("recalls and cites by the agent's retrieval settings (threshold, max_results, sources), refused out of range on create and PATCH", async () => {
    const agent = await created<{ id: string; retrieval: unknown }>('/agents', { name: 'Retriever' });
    // The retrieval defaults (docs/data-model.md#retrieval).
    expect(agent.retrieval).toEqual({ max_results: 5, threshold: 0.5, sources: [] });
    await created('/knowledge/sources', {
      id: 'retrieval-policies',
      title: 'Acme customer policies',
      url: 'https://acme.example/policies',
      format: 'markdown',
      content: policies,
      agent_ids: [agent.id],
    });
    const session = await created('/sessions', { agent_id: agent.id });
    const question = 'What is the warranty on electronics?';

    const cited = await turn(session.id, question);
    expect(cited.reply.data.sources).toEqual([
      expect.objectContaining({
        source_id: 'retrieval-policies',
        heading: 'Acme customer policies › Warranty › Electronics',
        section_path: 'Acme customer policies › Warranty › Electronics',
        chunk_index: expect.any(Number) as unknown,
      }),
    ]);
    const score = cited.reply.data.sources![0]!['score'] as number;

    // A threshold above the passage's score: nothing recalled, nothing cited.
    expect((await call(`/agents/${agent.id}`, 'PATCH', { retrieval: { threshold: Math.min(1, score + 0.05) } })).status).toBe(200);
    const strict = await turn(session.id, question);
    expect(strict.reply.data.sources).toBeUndefined();
    expect(strict.ready.data.data?.['memory']).toMatchObject({ knowledge_chunks: [] });

    // A low threshold with max_results 2: two chunks recalled (the passage and a neighbour), the passage cited.
    expect((await call(`/agents/${agent.id}`, 'PATCH', { retrieval: { threshold: 0.01, max_results: 2 } })).body).toMatchObject({
      retrieval: { threshold: 0.01, max_results: 2, sources: [] },
    });
    const loose = await turn(session.id, question);
    expect((loose.ready.data.data?.['memory'] as { knowledge_chunks: string[] }).knowledge_chunks).toHaveLength(2);
    expect(loose.reply.data.sources).toEqual([expect.objectContaining({ heading: 'Acme customer policies › Warranty › Electronics' })]);

    // Narrowed to another source: this document is not recalled.
    expect((await call(`/agents/${agent.id}`, 'PATCH', { retrieval: { sources: ['some-other-source'] } })).status).toBe(200);
    const narrowed = await turn(session.id, question);
    expect(narrowed.reply.data.sources).toBeUndefined();

    // Out of range: 422 naming the field, on create and on PATCH; nothing stored.
    const refusedCreate = await call('/agents', 'POST', { name: 'Bad', retrieval: { max_results: 21, threshold: 1.5 } });
    expect(refusedCreate.status).toBe(422);
    expect(JSON.stringify(refusedCreate.body)).toContain('retrieval.max_results must be an integer from 1 to 20');
    expect(JSON.stringify(refusedCreate.body)).toContain('retrieval.threshold must be a number from 0 to 1');
    for (const retrieval of [{ max_results: 0 }, { threshold: -0.1 }, { sources: ['no spaces allowed'] }]) {
      expect((await call(`/agents/${agent.id}`, 'PATCH', { retrieval })).status).toBe(422);
    }
    expect(((await call(`/agents/${agent.id}`)).body as { retrieval: unknown }).retrieval).toEqual({
      max_results: 2,
      threshold: 0.01,
      sources: ['some-other-source'],
    });
  }, 180_000);

  it('extracts every variable and the facts in one LLM call, stores them with provenance, and a later session recalls them', async () => {
    const agent = await created('/agents', { name: 'Extractor', config: { auto_extract_context: true } });
    const tag = `agent:${agent.id}`;
    const order = await created('/context-variables', {
      name: 'order_number',
      data_type: 'String',
      extraction_prompt: "The customer's order number",
      tags: [tag],
    });
    const email = await created('/context-variables', {
      name: 'email',
      data_type: 'String',
      extraction_prompt: "The customer's email address",
      validation: { pattern: '^[^@]+@[^@]+$' },
      tags: [tag],
    });
    const name = await created('/context-variables', {
      name: 'customer_name',
      data_type: 'String',
      extraction_prompt: "The customer's first name",
      tags: [tag],
    });
    // Many more variables: still one extraction call.
    for (let i = 0; i < 12; i++)
      await created('/context-variables', {
        name: `extra_${i}`,
        data_type: 'Number',
        extraction_prompt: `Quantity ${i} of an item`,
        validation: { min: 1000 },
        tags: [tag],
      });
    const customer = await created('/customers', { name: 'Alice' });
    const session = await created<{ id: string }>('/sessions', { agent_id: agent.id, customer_id: customer.id });

    const { ready, reply } = await turn(
      session.id,
      'Hi, my name is Alice and my order number is 55555. You can reach me at alice@example.com',
    );
    const usage = ready.data.data?.['usage'] as { purpose: string }[];
    expect(usage.filter((u) => u.purpose === 'extract_context')).toHaveLength(1);
    expect(usage.length).toBeLessThanOrEqual(4);
    expect(ready.data.data?.['memory']).toMatchObject({
      extraction: {
        stored: expect.arrayContaining([
          expect.objectContaining({ name: 'order_number' }),
          expect.objectContaining({ name: 'email' }),
          expect.objectContaining({ name: 'customer_name' }),
        ]) as unknown,
      },
    });
    expect(reply.data.message).toBeTruthy();

    const value = async (id: string) =>
      (
        (await call(`/context-variables/${id}?include_values=true`)).body as {
          key_value_pairs: Record<string, { data: unknown; confidence: number; source_message_id: string; extracted_at: string }>;
        }
      ).key_value_pairs[customer.id];
    expect(await value(order.id)).toMatchObject({
      data: '55555',
      confidence: expect.any(Number) as unknown,
      source_message_id: expect.any(String) as unknown,
      extracted_at: expect.any(String) as unknown,
    });
    expect(await value(email.id)).toMatchObject({ data: 'alice@example.com' });
    expect(await value(name.id)).toMatchObject({ data: 'Alice' });

    // Published: variable_update per stored value, facts_extracted once.
    const published = await store.readStream(contextExtractionStream(customer.id));
    expect(
      published
        .filter((e) => e.type === 'VariableUpdated')
        .map((e) => (e.data as { name: string }).name)
        .sort(),
    ).toEqual(['customer_name', 'email', 'order_number']);
    expect(published.filter((e) => e.type === 'FactsExtracted')).toHaveLength(1);

    // The memory store records the facts from the published event.
    const facts = await eventually(async () => {
      const body = (await call(`/customers/${customer.id}/memory`)).body as { predicate: string; object: string }[];
      return body.length >= 3 ? body : undefined;
    });
    expect(facts.map((f) => `${f.predicate}=${f.object}`).sort()).toEqual(['email=alice@example.com', 'name=Alice', 'order_number=55555']);

    // A value the variable's rules refuse is not stored (and said so).
    const refused = await turn(session.id, 'my new email is not-an-email, order 77777');
    expect((await value(order.id))?.data).toBe('77777');
    expect((await value(email.id))?.data).toBe('alice@example.com');

    // A new session of the same customer: the reply recalls what was said before.
    expect(refused.ready.data.status).toBe('ready');
    const later = await created<{ id: string }>('/sessions', { agent_id: agent.id, customer_id: customer.id });
    await eventually(async () =>
      ((await call(`/customers/${customer.id}/memory`)).body as { object: string }[]).some((f) => f.object === '77777') ? true : undefined,
    );
    const { reply: recalled } = await turn(later.id, 'What is my order number?');
    expect(recalled.data.message).toContain('77777');
  }, 180_000);

  it('a guest session keeps its extracted values for its own later turns, and no other guest session sees them', async () => {
    const agent = await created('/agents', { name: 'Guesty', composition_mode: 'strict_canned', config: { auto_extract_context: true } });
    const tag = `agent:${agent.id}`;
    const order = await created('/context-variables', {
      name: 'guest_order',
      data_type: 'String',
      extraction_prompt: "The customer's order number",
      tags: [tag],
    });
    // Strict canned mode says this template only when its field has a value: what the turn sees, observable.
    await created('/canned_responses', { value: 'Your order number is {{guest_order}}.', tags: [tag] });
    const session = await created<{ id: string }>('/sessions', { agent_id: agent.id });
    const other = await created<{ id: string }>('/sessions', { agent_id: agent.id });

    await turn(session.id, 'Hello, my order number is 55555');
    const values = (
      (await call(`/context-variables/${order.id}?include_values=true`)).body as {
        key_value_pairs: Record<string, { data: unknown; source_message_id: string }>;
      }
    ).key_value_pairs;
    expect(Object.keys(values)).toEqual([`session:${session.id}`]);
    expect(values[`session:${session.id}`]).toMatchObject({ data: '55555', source_message_id: expect.any(String) as unknown });
    // Nothing published or remembered for the shared guest customer.
    expect(await store.readStream(contextExtractionStream('guest'))).toEqual([]);

    const { reply } = await turn(session.id, 'What is my order number?');
    expect(reply.data.message).toBe('Your order number is 55555.');
    const { reply: stranger } = await turn(other.id, 'What is my order number?');
    expect(stranger.data.message).not.toContain('55555');
  }, 180_000);

  it('extraction is off unless the agent turns it on', async () => {
    const agent = await created('/agents', { name: 'Quiet' });
    await created('/context-variables', {
      name: 'quiet_order',
      data_type: 'String',
      extraction_prompt: 'The order number',
      tags: [`agent:${agent.id}`],
    });
    const customer = await created('/customers', { name: 'Carl' });
    const session = await created('/sessions', { agent_id: agent.id, customer_id: customer.id });
    const { ready } = await turn(session.id, 'my order number is 12345');
    expect((ready.data.data?.['usage'] as { purpose: string }[]).some((u) => u.purpose === 'extract_context')).toBe(false);
    expect(await store.readStream(contextExtractionStream(customer.id))).toEqual([]);
  }, 120_000);
  it("a session's config.auto_extract overrides the agent's switch; null (the default) lets the agent decide", async () => {
    const extracts = (ready: EventView): boolean =>
      (ready.data.data?.['usage'] as { purpose: string }[]).some((u) => u.purpose === 'extract_context');
    const quiet = await created('/agents', { name: 'Quiet by default' });
    const eager = await created('/agents', { name: 'Eager by default', config: { auto_extract_context: true } });
    for (const agent of [quiet, eager])
      await created('/context-variables', {
        name: `order_${agent.id}`.toLowerCase().replace(/-/g, '_'),
        data_type: 'String',
        extraction_prompt: 'The order number',
        tags: [`agent:${agent.id}`],
      });
    const customer = await created('/customers', { name: 'Olga' });
    const open = async (agentId: string, config?: Record<string, unknown>) =>
      created<{ id: string; config: { auto_extract: unknown } }>('/sessions', {
        agent_id: agentId,
        customer_id: customer.id,
        ...(config ? { config } : {}),
      });

    // Default: null, the agent decides.
    const quietDefault = await open(quiet.id);
    expect(quietDefault.config.auto_extract).toBeNull();
    expect(extracts((await turn(quietDefault.id, 'my order number is 12345')).ready)).toBe(false);
    expect(extracts((await turn((await open(eager.id)).id, 'my order number is 12345')).ready)).toBe(true);

    // On for a session of an agent that does not extract: extracted, stored and published.
    const on = await open(quiet.id, { auto_extract: true });
    expect(on.config.auto_extract).toBe(true);
    const onTurn = await turn(on.id, 'my order number is 24680');
    expect(extracts(onTurn.ready)).toBe(true);
    expect(onTurn.ready.data.data?.['memory']).toMatchObject({
      extraction: { stored: [expect.objectContaining({ name: expect.stringMatching(/^order_/) as unknown })] },
    });
    expect((await call(`/sessions/${on.id}`)).body).toMatchObject({ config: { auto_extract: true } });

    // Off for a session of an agent that extracts: no extraction call.
    const off = await open(eager.id, { auto_extract: false });
    expect(extracts((await turn(off.id, 'my order number is 13579')).ready)).toBe(false);

    // Anything else is refused naming the field.
    const refused = await call('/sessions', 'POST', { agent_id: quiet.id, config: { auto_extract: 'yes' } });
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: { loc: unknown[] }[] }).detail).toEqual([
      expect.objectContaining({ loc: ['body', 'config', 'auto_extract'] }),
    ]);
  }, 180_000);

  it('a required variable without a value is asked for and listed on ready as missing; once given, the guideline that needs it acts', async () => {
    const agent = await created('/agents', { name: 'Tracker' });
    const order = await created<{ id: string; required: boolean }>('/context-variables', {
      name: 'tracked_order',
      data_type: 'String',
      description: 'The order to track',
      required: true,
      tags: [`agent:${agent.id}`],
    });
    expect(order.required).toBe(true);
    const guideline = await created('/guidelines', {
      condition: 'The customer asks where their order is',
      action: 'Tell them their order ships tomorrow',
      required_context: ['tracked_order'],
      tags: [`agent:${agent.id}`],
    });
    const customer = await created('/customers', { name: 'Pia' });
    const session = await created('/sessions', { agent_id: agent.id, customer_id: customer.id });

    const asked = await turn(session.id, 'Where is my order?');
    expect(asked.ready.data.data?.['missing_context']).toEqual(['tracked_order']);
    expect(asked.reply.data.message).toMatch(/tracked order/i);
    expect((asked.ready.data.data?.['matched_guidelines'] as { guideline_id: string }[]).map((m) => m.guideline_id)).not.toContain(
      guideline.id,
    );

    expect((await call(`/context-variables/${order.id}/${customer.id}`, 'PUT', { data: 'A-100' })).status).toBe(200);
    const acted = await turn(session.id, 'Where is my order?');
    expect(acted.ready.data.data?.['missing_context']).toBeUndefined();
    expect((acted.ready.data.data?.['matched_guidelines'] as { guideline_id: string }[]).map((m) => m.guideline_id)).toContain(
      guideline.id,
    );
    expect(acted.reply.data.message).toMatch(/ships tomorrow/i);

    // required is switched off (and on) by PATCH like any field.
    expect((await call(`/context-variables/${order.id}`, 'PATCH', { required: false })).body).toMatchObject({ required: false });
  }, 180_000);

  it('an address said twice in conversation supersedes the old one, and "what was it then" answers from the history', async () => {
    const agent = await created('/agents', { name: 'Movers', config: { auto_extract_context: true } });
    const customer = await created('/customers', { name: 'Dana' });
    const session = await created('/sessions', { agent_id: agent.id, customer_id: customer.id });
    const addressNow = async (at?: string) =>
      (
        (await call(`/customers/${customer.id}/memory${at ? `?at=${encodeURIComponent(at)}` : ''}`)).body as {
          predicate: string;
          object: string;
        }[]
      )
        .filter((f) => f.predicate === 'address')
        .map((f) => f.object);
    const says = async (message: string, expected: string): Promise<string> => {
      await turn(session.id, message);
      await eventually(async () => ((await addressNow()).join() === expected ? true : undefined));
      const after = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 20));
      return after;
    };
    const inMarch = await says('I live at 3 Baker Street, London.', '3 Baker Street, London');
    const inJune = await says('I moved to 10 Rue Oberkampf, Paris.', '10 Rue Oberkampf, Paris');
    await says('I have just moved to 5 Via Roma, Turin.', '5 Via Roma, Turin');
    expect(await addressNow(inMarch)).toEqual(['3 Baker Street, London']);
    expect(await addressNow(inJune)).toEqual(['10 Rue Oberkampf, Paris']);
    const all = (await store.readStream(`customer-memory:${customer.id}`)).map((e) => e.type);
    expect(all.filter((t) => t === 'FactRecorded')).toHaveLength(3);
    expect(all.filter((t) => t === 'FactSuperseded')).toHaveLength(2);
  }, 120_000);
});
