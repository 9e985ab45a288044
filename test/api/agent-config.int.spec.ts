import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { GuidelinesRepository } from '@tenet/catalog-data-access';
import { gatewayHttp, logHead as logHeadOf } from './support/gateway-http.js';

type Agent = Record<string, unknown> & { id: string };

const TOOL = {
  name: 'check_order',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
};
const tool = (changes: Record<string, unknown>): Record<string, unknown> => ({ ...TOOL, ...changes });

describe('agent extensions (tools, config, matching, fallback, no_match_message) and guideline fields', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;
  let store: EventStore;

  const http = gatewayHttp(() => url);
  const { call, details } = http;
  const created = <T = Agent>(path: string, body: unknown): Promise<T> => http.created<T>(path, body);
  const logHead = (): Promise<number> => logHeadOf(store);
  /** A broken rule is a 422 naming the field and the rule, and the log gains nothing. */
  const expectRejected = async (path: string, method: string, body: unknown, loc: (string | number)[], msg?: RegExp): Promise<void> => {
    const head = await logHead();
    const reply = await call(path, method, body);
    expect({ status: reply.status, locs: details(reply)?.map((d) => d.loc) }).toEqual({
      status: 422,
      locs: expect.arrayContaining([loc]) as unknown,
    });
    if (msg)
      expect(details(reply)).toEqual(
        expect.arrayContaining([expect.objectContaining({ loc, msg: expect.stringMatching(msg) as unknown })]),
      );
    expect(await logHead()).toBe(head);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-agent-config-'));
    ({ app, url } = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }));
    store = app.get<EventStore>(EVENT_STORE);
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('agents', () => {
    it("shows Parlant's fields and every Tenet default in the GET view", async () => {
      const agent = await created('/agents', { name: 'Defaults' });
      expect(agent).toEqual({
        id: agent.id,
        name: 'Defaults',
        max_engine_iterations: 3,
        composition_mode: 'fluid',
        message_output_mode: 'block',
        tags: [],
        journeys: [],
        config: {
          max_history_length: 50,
          temperature: 0.7,
          max_tokens: 2048,
          tool_timeout_secs: 30,
          auto_extract_context: false,
          enable_journeys: true,
        },
        matching: { threshold: 0.3, top_n: 3, prefilter_k: 40, max_batch_tokens: 12_000, max_batches: 3, temperatures: [0, 0.3] },
        retrieval: { max_results: 5, threshold: 0.5, sources: [] },
        intents: {
          clarify_below: 0.5,
          margin: 0.1,
          fallback: "I'm sorry, I can't help with that here. Could you tell me what you need in other words?",
        },
        tools: [],
        fallback: null,
        failure_reply: "I'm sorry, I couldn't complete that just now. Please try again in a moment.",
        no_match_message: 'Not sure I understand. Could you please say that another way?',
        budget: null,
        status: 'active',
        soul: null,
        creation_utc: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        updated_at: agent['creation_utc'],
      });
      expect((await call(`/agents/${agent.id}`)).body).toEqual(agent);
      expect((await store.readStream(`agent-${agent.id}`)).map((e) => e.type)).toEqual(['AgentCreated']);
    });

    it('stores every extension and shows tools with their defaults (timeout from config.tool_timeout_secs)', async () => {
      const agent = await created('/agents', {
        name: 'Orders',
        composition_mode: 'strict_canned',
        max_engine_iterations: 2,
        config: {
          max_history_length: 1000,
          temperature: 0,
          max_tokens: 100_000,
          tool_timeout_secs: 300,
          auto_extract_context: false,
          enable_journeys: false,
        },
        matching: { threshold: 1, top_n: 50, prefilter_k: 1000, max_batch_tokens: 200_000, max_batches: 1, temperatures: [0, 2] },
        tools: [
          TOOL,
          tool({
            name: 'refund_order',
            timeout_secs: 1,
            allow_failure: true,
            retry_config: { max_attempts: 10, delay_ms: 60_000, backoff_multiplier: 10 },
            metadata: { cost: 'low' },
          }),
        ],
        fallback: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        no_match_message: 'Let me get a colleague.',
      });
      expect(agent).toMatchObject({
        composition_mode: 'strict_canned',
        max_engine_iterations: 2,
        config: {
          max_history_length: 1000,
          temperature: 0,
          max_tokens: 100_000,
          tool_timeout_secs: 300,
          auto_extract_context: false,
          enable_journeys: false,
        },
        matching: { threshold: 1, top_n: 50, prefilter_k: 1000, max_batch_tokens: 200_000, max_batches: 1, temperatures: [0, 2] },
        tools: [
          { ...TOOL, timeout_secs: 300, allow_failure: false, retry_config: null, metadata: {} },
          {
            ...TOOL,
            name: 'refund_order',
            timeout_secs: 1,
            allow_failure: true,
            retry_config: { max_attempts: 10, delay_ms: 60_000, backoff_multiplier: 10 },
            metadata: { cost: 'low' },
          },
        ],
        fallback: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        no_match_message: 'Let me get a colleague.',
      });
      expect((await call(`/agents/${agent.id}`)).body).toEqual(agent);
    });

    it.each(['fluid', 'canned_fluid', 'composited_canned', 'strict_canned'])("accepts Parlant's composition_mode %s", async (mode) => {
      expect((await created('/agents', { name: 'M', composition_mode: mode })).composition_mode).toBe(mode);
    });

    type Case = [title: string, body: Record<string, unknown>, loc: (string | number)[], msg: RegExp];
    type PatchCase = [title: string, body: Record<string, unknown>, loc: (string | number)[]];
    const rejected: Case[] = [
      // Tool rules (docs/data-model.md#tools).
      [
        'tool rule 1: a name not matching ^[a-zA-Z][a-zA-Z0-9_]*$',
        { tools: [tool({ name: '1st_tool' })] },
        ['body', 'tools', 0, 'name'],
        /tools\[\]\.name must match/,
      ],
      [
        'tool rule 1: a name with a dash',
        { tools: [tool({ name: 'check-order' })] },
        ['body', 'tools', 0, 'name'],
        /tools\[\]\.name must match/,
      ],
      [
        'tool rule 1: a name of 51 characters',
        { tools: [tool({ name: 'a'.repeat(51) })] },
        ['body', 'tools', 0, 'name'],
        /tools\[\]\.name must be 1-50 characters/,
      ],
      [
        'tool rule 2: an empty description',
        { tools: [tool({ description: '' })] },
        ['body', 'tools', 0, 'description'],
        /tools\[\]\.description must be 1-500 characters/,
      ],
      [
        'tool rule 2: a description of 501 characters',
        { tools: [tool({ description: 'd'.repeat(501) })] },
        ['body', 'tools', 0, 'description'],
        /tools\[\]\.description must be 1-500 characters/,
      ],
      [
        'tool rule 3: parameters of type "string"',
        { tools: [tool({ parameters: { type: 'string' } })] },
        ['body', 'tools', 0, 'parameters'],
        /JSON Schema with type "object"/,
      ],
      [
        'tool rule 3: parameters without a type',
        { tools: [tool({ parameters: { properties: {} } })] },
        ['body', 'tools', 0, 'parameters'],
        /JSON Schema with type "object"/,
      ],
      [
        'tool rule 3: parameters that do not compile',
        { tools: [tool({ parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } })] },
        ['body', 'tools', 0, 'parameters'],
        /parameters is not a valid JSON Schema/,
      ],
      [
        'tool rule 3: parameters that are not an object',
        { tools: [tool({ parameters: ['type', 'object'] })] },
        ['body', 'tools', 0, 'parameters'],
        /JSON Schema object/,
      ],
      [
        'tool rule 3: no parameters',
        { tools: [{ name: 'x', description: 'y' }] },
        ['body', 'tools', 0, 'parameters'],
        /tools\[\]\.parameters must be a JSON Schema object/,
      ],
      [
        'tool rule 4: timeout_secs 0',
        { tools: [tool({ timeout_secs: 0 })] },
        ['body', 'tools', 0, 'timeout_secs'],
        /must not be less than 1/,
      ],
      [
        'tool rule 4: timeout_secs 301',
        { tools: [tool({ timeout_secs: 301 })] },
        ['body', 'tools', 0, 'timeout_secs'],
        /must not be greater than 300/,
      ],
      [
        'tool rule 5: retry max_attempts 0',
        { tools: [tool({ retry_config: { max_attempts: 0, delay_ms: 100, backoff_multiplier: 2 } })] },
        ['body', 'tools', 0, 'retry_config', 'max_attempts'],
        /must not be less than 1/,
      ],
      [
        'tool rule 5: retry max_attempts 11',
        { tools: [tool({ retry_config: { max_attempts: 11, delay_ms: 100, backoff_multiplier: 2 } })] },
        ['body', 'tools', 0, 'retry_config', 'max_attempts'],
        /must not be greater than 10/,
      ],
      [
        'tool rule 6: retry delay_ms 9',
        { tools: [tool({ retry_config: { max_attempts: 3, delay_ms: 9, backoff_multiplier: 2 } })] },
        ['body', 'tools', 0, 'retry_config', 'delay_ms'],
        /must not be less than 10/,
      ],
      [
        'tool rule 6: retry delay_ms 60001',
        { tools: [tool({ retry_config: { max_attempts: 3, delay_ms: 60_001, backoff_multiplier: 2 } })] },
        ['body', 'tools', 0, 'retry_config', 'delay_ms'],
        /must not be greater than 60000/,
      ],
      [
        'tool rule 7: retry backoff_multiplier 0.5',
        { tools: [tool({ retry_config: { max_attempts: 3, delay_ms: 100, backoff_multiplier: 0.5 } })] },
        ['body', 'tools', 0, 'retry_config', 'backoff_multiplier'],
        /must not be less than 1/,
      ],
      [
        'tool rule 7: retry backoff_multiplier 10.5',
        { tools: [tool({ retry_config: { max_attempts: 3, delay_ms: 100, backoff_multiplier: 10.5 } })] },
        ['body', 'tools', 0, 'retry_config', 'backoff_multiplier'],
        /must not be greater than 10/,
      ],
      [
        'agent rule 4: a tool name used twice',
        { tools: [TOOL, tool({ description: 'again' })] },
        ['body', 'tools', 1, 'name'],
        /tool names must be unique per agent/,
      ],
      [
        'tool metadata with a non-string value',
        { tools: [tool({ metadata: { cost: 3 } })] },
        ['body', 'tools', 0, 'metadata', 'cost'],
        /metadata values must be strings/,
      ],
      [
        'an unknown tool field (the handler stays in code)',
        { tools: [tool({ handler: 'fn' })] },
        ['body', 'tools', 0, 'handler'],
        /should not exist/,
      ],
      // The agent's config ranges (docs/data-model.md#agents).
      [
        'config rule 6: max_history_length 0',
        { config: { max_history_length: 0 } },
        ['body', 'config', 'max_history_length'],
        /must not be less than 1/,
      ],
      [
        'config rule 6: max_history_length 1001',
        { config: { max_history_length: 1001 } },
        ['body', 'config', 'max_history_length'],
        /must not be greater than 1000/,
      ],
      [
        'config rule 6: max_history_length 1.5',
        { config: { max_history_length: 1.5 } },
        ['body', 'config', 'max_history_length'],
        /must be an integer/,
      ],
      ['config rule 7: temperature -0.1', { config: { temperature: -0.1 } }, ['body', 'config', 'temperature'], /must not be less than 0/],
      [
        'config rule 7: temperature 2.01',
        { config: { temperature: 2.01 } },
        ['body', 'config', 'temperature'],
        /must not be greater than 2/,
      ],
      ['config rule 8: max_tokens 0', { config: { max_tokens: 0 } }, ['body', 'config', 'max_tokens'], /must not be less than 1/],
      [
        'config rule 8: max_tokens 100001',
        { config: { max_tokens: 100_001 } },
        ['body', 'config', 'max_tokens'],
        /must not be greater than 100000/,
      ],
      [
        'config rule 9: tool_timeout_secs 0',
        { config: { tool_timeout_secs: 0 } },
        ['body', 'config', 'tool_timeout_secs'],
        /must not be less than 1/,
      ],
      [
        'config rule 9: tool_timeout_secs 301',
        { config: { tool_timeout_secs: 301 } },
        ['body', 'config', 'tool_timeout_secs'],
        /must not be greater than 300/,
      ],
      [
        'config: auto_extract_context not a boolean',
        { config: { auto_extract_context: 'yes' } },
        ['body', 'config', 'auto_extract_context'],
        /must be a boolean/,
      ],
      // Tenet's matching settings.
      ['matching.threshold -0.1', { matching: { threshold: -0.1 } }, ['body', 'matching', 'threshold'], /must not be less than 0/],
      ['matching.threshold 1.1', { matching: { threshold: 1.1 } }, ['body', 'matching', 'threshold'], /must not be greater than 1/],
      ['matching.top_n 0', { matching: { top_n: 0 } }, ['body', 'matching', 'top_n'], /must not be less than 1/],
      ['matching.top_n 51', { matching: { top_n: 51 } }, ['body', 'matching', 'top_n'], /must not be greater than 50/],
      ['matching.prefilter_k 0', { matching: { prefilter_k: 0 } }, ['body', 'matching', 'prefilter_k'], /must not be less than 1/],
      [
        'matching.prefilter_k 1001',
        { matching: { prefilter_k: 1001 } },
        ['body', 'matching', 'prefilter_k'],
        /must not be greater than 1000/,
      ],
      [
        'matching.max_batch_tokens 499',
        { matching: { max_batch_tokens: 499 } },
        ['body', 'matching', 'max_batch_tokens'],
        /must not be less than 500/,
      ],
      [
        'matching.max_batch_tokens 200001',
        { matching: { max_batch_tokens: 200_001 } },
        ['body', 'matching', 'max_batch_tokens'],
        /must not be greater than 200000/,
      ],
      ['matching.max_batches 0', { matching: { max_batches: 0 } }, ['body', 'matching', 'max_batches'], /must not be less than 1/],
      ['matching.max_batches 4', { matching: { max_batches: 4 } }, ['body', 'matching', 'max_batches'], /must not be greater than 3/],
      ['matching.temperatures empty', { matching: { temperatures: [] } }, ['body', 'matching', 'temperatures'], /1 or 2 numbers/],
      [
        'matching.temperatures of 3 (no third attempt exists)',
        { matching: { temperatures: [0, 0.3, 0.7] } },
        ['body', 'matching', 'temperatures'],
        /1 or 2 numbers/,
      ],
      [
        'matching.temperatures with 2.5',
        { matching: { temperatures: [0, 2.5] } },
        ['body', 'matching', 'temperatures'],
        /must not be greater than 2/,
      ],
      [
        'matching.temperatures with -1',
        { matching: { temperatures: [-1] } },
        ['body', 'matching', 'temperatures'],
        /must not be less than 0/,
      ],
      // The fallback provider (docs/data-model.md#fallback).
      [
        'fallback with an unknown provider',
        { fallback: { provider: 'gemini' } },
        ['body', 'fallback', 'provider'],
        /provider must be one of openai, anthropic, offline/,
      ],
      ['fallback that is not an object', { fallback: 'openai' }, ['body', 'fallback'], /fallback must be an object/],
      [
        'fallback equal to the primary',
        { llm: { provider: 'offline' }, fallback: { provider: 'offline' } },
        ['body', 'fallback'],
        /the fallback must differ from the primary/,
      ],
      [
        'llm.fallback equal to the primary',
        { llm: { provider: 'openai', model: 'gpt-4o', fallback: { provider: 'openai', model: 'gpt-4o' } } },
        ['body', 'llm', 'fallback'],
        /must differ/,
      ],
      // Parlant's fields and no_match_message.
      ['composition_mode poetic', { composition_mode: 'poetic' }, ['body', 'composition_mode'], /composition_mode must be one of/],
      [
        'message_output_mode shout',
        { message_output_mode: 'shout' },
        ['body', 'message_output_mode'],
        /message_output_mode must be 'block'/,
      ],
      [
        'message_output_mode stream (Tenet has no partial messages)',
        { message_output_mode: 'stream' },
        ['body', 'message_output_mode'],
        /is not supported/,
      ],
      ['max_engine_iterations 0', { max_engine_iterations: 0 }, ['body', 'max_engine_iterations'], /must not be less than 1/],
      ['an empty no_match_message', { no_match_message: '' }, ['body', 'no_match_message'], /no_match_message must be 1-1000 characters/],
      [
        'a no_match_message of 1001 characters',
        { no_match_message: 'n'.repeat(1001) },
        ['body', 'no_match_message'],
        /no_match_message must be 1-1000 characters/,
      ],
    ];

    it.each(rejected)('POST with %s → 422, nothing written', async (_title, body, loc, msg) => {
      await expectRejected('/agents', 'POST', { name: 'Rejected', ...body }, loc, msg);
    });

    it('fallback and llm.fallback must agree when both are given', async () => {
      await expectRejected(
        '/agents',
        'POST',
        { name: 'F', llm: { provider: 'openai', fallback: { provider: 'anthropic' } }, fallback: { provider: 'offline' } },
        ['body', 'fallback'],
        /disagree/,
      );
    });

    it("PATCH (Parlant's update) changes exactly what it names, Tenet's fields included, and appends one AgentUpdated", async () => {
      const agent = await created('/agents', {
        name: 'Patchy',
        tools: [TOOL],
        config: { temperature: 0.2 },
        matching: { top_n: 5 },
        tags: [],
      });
      const tag = await created<{ id: string }>('/tags', { name: 'team' });
      const patched = await call(`/agents/${agent.id}`, 'PATCH', {
        composition_mode: 'composited_canned',
        max_engine_iterations: 5,
        description: 'Order desk',
        tags: { add: [tag.id] },
        config: { max_tokens: 512 },
        matching: { threshold: 0.6, temperatures: [0.1] },
        tools: [tool({ name: 'track_parcel', timeout_secs: 10 })],
        fallback: { provider: 'openai', model: 'gpt-4o-mini' },
        no_match_message: 'Sorry, no template fits.',
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({
        ...agent,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        composition_mode: 'composited_canned',
        max_engine_iterations: 5,
        description: 'Order desk',
        tags: [tag.id],
        config: { ...(agent['config'] as object), temperature: 0.2, max_tokens: 512 },
        matching: { ...(agent['matching'] as object), top_n: 5, threshold: 0.6, temperatures: [0.1] },
        tools: [{ ...TOOL, name: 'track_parcel', timeout_secs: 10, allow_failure: false, retry_config: null, metadata: {} }],
        fallback: { provider: 'openai', model: 'gpt-4o-mini' },
        no_match_message: 'Sorry, no template fits.',
      });
      expect((await call(`/agents/${agent.id}`)).body).toEqual(patched.body);

      const cleared = (await call(`/agents/${agent.id}`, 'PATCH', { fallback: null, tags: { remove: [tag.id] }, tools: [] })).body as Agent;
      expect(cleared).toMatchObject({ fallback: null, tags: [], tools: [] });
      expect((await store.readStream(`agent-${agent.id}`)).map((e) => e.type)).toEqual(['AgentCreated', 'AgentUpdated', 'AgentUpdated']);
    });

    it('llm.fallback and the top-level fallback are one setting', async () => {
      const agent = await created('/agents', {
        name: 'Mirror',
        llm: { provider: 'openai', model: 'gpt-4o', fallback: { provider: 'anthropic' } },
      });
      expect(agent).toMatchObject({
        llm: { provider: 'openai', model: 'gpt-4o', fallback: { provider: 'anthropic' } },
        fallback: { provider: 'anthropic' },
      });
      const patched = (await call(`/agents/${agent.id}`, 'PATCH', { fallback: { provider: 'offline' } })).body as Agent;
      expect(patched).toMatchObject({
        llm: { provider: 'openai', model: 'gpt-4o', fallback: { provider: 'offline' } },
        fallback: { provider: 'offline' },
      });
      const cleared = (await call(`/agents/${agent.id}`, 'PATCH', { fallback: null })).body as Agent;
      expect(cleared['fallback']).toBeNull();
      expect(cleared['llm']).toEqual({ provider: 'openai', model: 'gpt-4o' });
    });

    it.each<PatchCase>([
      ['tools breaking rule 3', { tools: [tool({ parameters: { type: 'array' } })] }, ['body', 'tools', 0, 'parameters']],
      ['tools with a duplicate name', { tools: [TOOL, TOOL] }, ['body', 'tools', 1, 'name']],
      ['config.temperature 3', { config: { temperature: 3 } }, ['body', 'config', 'temperature']],
      ['matching.top_n 0', { matching: { top_n: 0 } }, ['body', 'matching', 'top_n']],
      ['a fallback equal to the primary', { fallback: { provider: 'offline' } }, ['body', 'fallback']],
      ['an llm equal to the stored fallback', { llm: { provider: 'anthropic', model: 'claude-x' } }, ['body', 'llm']],
      ['tags that are not {add, remove}', { tags: ['t1'] }, ['body', 'tags']],
      ['an empty no_match_message', { no_match_message: '' }, ['body', 'no_match_message']],
      ['message_output_mode stream', { message_output_mode: 'stream' }, ['body', 'message_output_mode']],
    ])('PATCH with %s → 422, the agent unchanged and nothing written', async (_title, body, loc) => {
      const agent = await created('/agents', {
        name: 'Stable',
        tools: [TOOL],
        llm: { provider: 'offline' },
        fallback: { provider: 'anthropic', model: 'claude-x' },
      });
      await expectRejected(`/agents/${agent.id}`, 'PATCH', body, loc);
      expect((await call(`/agents/${agent.id}`)).body).toEqual(agent);
    });

    it('unknown agent ids are 404', async () => {
      expect((await call('/agents/nope')).status).toBe(404);
      expect((await call('/agents/nope', 'PATCH', { matching: { top_n: 2 } })).status).toBe(404);
      expect((await call('/agents/nope', 'DELETE')).status).toBe(404);
    });
  });

  describe('guidelines: criticality, continuous, and tool references', () => {
    let orders: Agent;
    let refunds: Agent;
    let teamTag: string;

    beforeAll(async () => {
      teamTag = (await created<{ id: string }>('/tags', { name: 'refund-team' })).id;
      orders = await created('/agents', { name: 'Orders', tools: [TOOL] });
      refunds = await created('/agents', {
        name: 'Refunds',
        tags: [teamTag],
        tools: [tool({ name: 'refund_order', description: 'Refund an order' })],
      });
    });

    it("accepts and shows Parlant's criticality, title and metadata.continuous; forAgent gives continuous: boolean", async () => {
      const continuous = await created<{ id: string }>('/guidelines', {
        condition: 'Always',
        action: 'Be polite',
        criticality: 'high',
        title: 'Politeness',
        metadata: { continuous: true },
        tags: [`agent:${orders.id}`],
      });
      expect(continuous).toMatchObject({ criticality: 'high', title: 'Politeness', metadata: { continuous: true }, track: true });
      const plain = await created<{ id: string }>('/guidelines', {
        condition: 'The customer greets',
        action: 'Greet back',
        criticality: 'low',
        tags: [`agent:${orders.id}`],
      });
      expect(plain).toMatchObject({ criticality: 'low', metadata: {} });
      const forAgent = async (): Promise<Record<string, boolean>> =>
        Object.fromEntries((await app.get(GuidelinesRepository).forAgent(orders.id)).map((g) => [g.id, g.continuous]));
      expect(await forAgent()).toMatchObject({ [continuous.id]: true, [plain.id]: false });

      const patched = await call(`/guidelines/${plain.id}`, 'PATCH', { metadata: { set: { continuous: true } }, criticality: 'medium' });
      expect((patched.body as { guideline: unknown }).guideline).toMatchObject({ criticality: 'medium', metadata: { continuous: true } });
      expect(await forAgent()).toMatchObject({ [plain.id]: true });
      await call(`/guidelines/${plain.id}`, 'PATCH', { metadata: { unset: ['continuous'] } });
      expect(await forAgent()).toMatchObject({ [plain.id]: false });
    });

    it.each<[string, Record<string, unknown>, (string | number)[], RegExp]>([
      [
        'metadata.continuous that is not a boolean',
        { condition: 'c', metadata: { continuous: 'yes' } },
        ['body', 'metadata', 'continuous'],
        /metadata.continuous must be a boolean/,
      ],
      ['criticality extreme', { condition: 'c', criticality: 'extreme' }, ['body', 'criticality'], /criticality must be one of/],
      ['an empty title', { condition: 'c', title: '' }, ['body', 'title'], /title must be 1-200 characters/],
      [
        'a reference to a journey that does not exist',
        { condition: 'c', journey_id: 'onboarding' },
        ['body', 'journey_id'],
        /journey_id must reference an existing journey/,
      ],
    ])('POST /guidelines with %s → 422, nothing written', async (_title, body, loc, msg) => {
      await expectRejected('/guidelines', 'POST', body, loc, msg);
    });

    it('PATCH metadata.set continuous that is not a boolean → 422 at metadata.set.continuous', async () => {
      const guideline = await created<{ id: string }>('/guidelines', { condition: 'c', action: 'a' });
      await expectRejected(
        `/guidelines/${guideline.id}`,
        'PATCH',
        { metadata: { set: { continuous: 1 } } },
        ['body', 'metadata', 'set', 'continuous'],
        /must be a boolean/,
      );
    });

    it("a guideline may name only tools defined on an agent it applies to (agent:<id>, an agent's tag; untagged: any agent)", async () => {
      const own = await created<{ id: string; tools: string[] }>('/guidelines', {
        condition: 'Order status asked',
        action: 'Check it',
        tools: ['check_order'],
        tags: [`agent:${orders.id}`],
      });
      expect(own.tools).toEqual(['check_order']);
      await expectRejected(
        '/guidelines',
        'POST',
        { condition: 'Refund asked', tools: ['refund_order'], tags: [`agent:${orders.id}`] },
        ['body', 'tools', 0],
        /tools must name tools defined on the agent: refund_order is not defined/,
      );
      // Untagged guidelines apply to every agent: any agent's tool will do.
      expect((await created<{ tools: string[] }>('/guidelines', { condition: 'Refund asked', tools: ['refund_order'] })).tools).toEqual([
        'refund_order',
      ]);
      // A tag the Refunds agent carries scopes the guideline to it.
      expect(
        (await created<{ tools: string[] }>('/guidelines', { condition: 'Refund asked', tools: ['refund_order'], tags: [teamTag] })).tools,
      ).toEqual(['refund_order']);
      await expectRejected(
        '/guidelines',
        'POST',
        { condition: 'Order asked', tools: ['check_order'], tags: [teamTag] },
        ['body', 'tools', 0],
        /check_order is not defined/,
      );
      // Several agents: the tool must exist on at least one of them.
      expect(
        (
          await created<{ tools: string[] }>('/guidelines', {
            condition: 'Either',
            tools: ['check_order', 'refund_order'],
            tags: [`agent:${orders.id}`, `agent:${refunds.id}`],
          })
        ).tools,
      ).toEqual(['check_order', 'refund_order']);
      await expectRejected(
        '/guidelines',
        'POST',
        { condition: 'Nowhere', tools: ['teleport'] },
        ['body', 'tools', 0],
        /teleport is not defined/,
      );
      await expectRejected(
        `/guidelines/${own.id}`,
        'PATCH',
        { tools: ['refund_order'] },
        ['body', 'tools', 0],
        /refund_order is not defined/,
      );
    });

    it("Parlant's tool_associations name agent tools by tool_name and are shown on read", async () => {
      const guideline = await created<{ id: string }>('/guidelines', {
        condition: 'Order asked',
        action: 'Check it',
        tags: [`agent:${orders.id}`],
      });
      const added = (
        await call(`/guidelines/${guideline.id}`, 'PATCH', {
          tool_associations: { add: [{ service_name: 'orders', tool_name: 'check_order' }] },
        })
      ).body as { guideline: { tools: string[] }; tool_associations: unknown[] };
      expect(added.guideline.tools).toEqual(['check_order']);
      expect(added.tool_associations).toEqual([
        { id: `${guideline.id}:check_order`, guideline_id: guideline.id, tool_id: { service_name: 'tenet', tool_name: 'check_order' } },
      ]);
      expect(((await call(`/guidelines/${guideline.id}`)).body as { tool_associations: unknown[] }).tool_associations).toEqual(
        added.tool_associations,
      );
      await expectRejected(
        `/guidelines/${guideline.id}`,
        'PATCH',
        { tool_associations: { add: [{ service_name: 'x', tool_name: 'refund_order' }] } },
        ['body', 'tool_associations', 'add', 0],
        /refund_order is not defined/,
      );
      const removed = (
        await call(`/guidelines/${guideline.id}`, 'PATCH', {
          tool_associations: { remove: [{ service_name: 'orders', tool_name: 'check_order' }] },
        })
      ).body as { guideline: { tools: string[] }; tool_associations: unknown[] };
      expect(removed).toMatchObject({ guideline: { tools: [] }, tool_associations: [] });
    });
  });
});
