import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Module } from '@nestjs/common';
import {
  MATCHER_COMPOSE_SUBJECT,
  MATCHER_MATCH_SUBJECT,
  type ComposeReplyReplyV1,
  type MatchGuidelinesReplyV1,
  type MatchGuidelinesRequestV1,
} from '@tenet/contracts';
import { ProviderUnavailableError, withFallback } from '@tenet/llm';
import { ScriptedProvider } from '@tenet/llm/testing';
import { InProcessMessageBus, RemoteHandlerError, TenetTransport } from '@tenet/messaging';
import { GuidelineMatcherModule } from './matcher.module.js';

const guideline = (id: string, condition: string, extra: Partial<MatchGuidelinesRequestV1['guidelines'][number]> = {}) => ({
  id,
  condition,
  action: `act on ${id}`,
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...extra,
});

const request = (guidelines: MatchGuidelinesRequestV1['guidelines']): MatchGuidelinesRequestV1 => ({
  session_id: 's1',
  agent: { id: 'a1', name: 'Ada' },
  message: 'I want a refund',
  history: [{ role: 'agent', content: 'Hello, how can I help?' }],
  guidelines,
});

describe('guideline matcher over the bus (scripted provider, in-process bus)', () => {
  let app: INestApplication;
  let bus: InProcessMessageBus;
  let provider: ScriptedProvider;

  beforeEach(async () => {
    provider = new ScriptedProvider({ usage: { inputTokens: 120, outputTokens: 30 } });
    bus = new InProcessMessageBus();
    @Module({ imports: [GuidelineMatcherModule.forRoot({ provider })] })
    class Host {}
    app = await NestFactory.create(Host, { logger: false });
    app.connectMicroservice({ strategy: new TenetTransport({ bus, serviceName: 'guideline-matcher' }) });
    await app.startAllMicroservices();
    await app.init();
  });

  afterEach(async () => {
    await app.close();
    await bus.close();
  });

  it('asks the provider only about enabled candidates whose required context is present, then thresholds, sorts and cuts to the top 3', async () => {
    provider.answer('match_guidelines', {
      matches: [
        { guideline_id: 'refund', relevance: 0.9, confidence: 0.9, reasoning: 'asks for a refund' },
        { guideline_id: 'vip', relevance: 0.5, confidence: 0.7, reasoning: 'maybe' },
        { guideline_id: 'weather', relevance: 0.1, confidence: 0.9, reasoning: 'unrelated' },
      ],
    });
    const reply = await bus.request<MatchGuidelinesReplyV1>(
      MATCHER_MATCH_SUBJECT,
      request([
        guideline('refund', 'The customer asks for a refund', { priority: 1 }),
        guideline('vip', 'The customer is a VIP', { priority: 5 }),
        guideline('weather', 'The customer asks about the weather'),
        guideline('off', 'Disabled', { enabled: false }),
        guideline('needs-order', 'Needs an order', { required_context: ['order_id'] }),
      ]),
    );
    const asked = (provider.requests[0]!.task.input as { guidelines: { id: string }[] }).guidelines.map((g) => g.id);
    expect(asked).toEqual(['refund', 'vip', 'weather']);
    expect(reply.result.top_matches.map((m) => m.guideline_id)).toEqual(['vip', 'refund']); // priority first
    expect(reply.result.evaluation_time_ms).toBeGreaterThan(0);
    expect(reply.usage).toEqual({
      purpose: 'match_guidelines',
      provider: 'scripted',
      model: 'scripted-1',
      input_tokens: 120,
      output_tokens: 30,
      latency_ms: expect.any(Number),
    });
    expect(provider.requests[0]!.context).toEqual({ purpose: 'match_guidelines', sessionId: 's1', agentId: 'a1' });
  });

  it('makes no LLM call and reports no usage when no guideline is a candidate', async () => {
    const reply = await bus.request<MatchGuidelinesReplyV1>(
      MATCHER_MATCH_SUBJECT,
      request([guideline('off', 'Disabled', { enabled: false })]),
    );
    expect(provider.requests).toHaveLength(0);
    expect(reply.result.top_matches).toEqual([]);
    expect(reply.usage).toBeUndefined();
  });

  it('composes the reply from the matched actions and reports the call', async () => {
    provider.answer('compose_reply', { message: 'Our refund window is 30 days.', cited_guideline_ids: ['refund'] });
    const reply = await bus.request<ComposeReplyReplyV1>(MATCHER_COMPOSE_SUBJECT, {
      session_id: 's1',
      agent: { id: 'a1', name: 'Ada', description: 'Support for Acme' },
      message: 'I want a refund',
      history: [],
      matched: [{ guideline_id: 'refund', action: 'Explain the refund policy' }],
    });
    expect(reply).toMatchObject({
      message: 'Our refund window is 30 days.',
      cited_guideline_ids: ['refund'],
      usage: { purpose: 'compose_reply', input_tokens: 120 },
    });
    expect(provider.requests[0]!.system).toContain('Support for Acme');
  });

  it('prefilters a large agent by embeddings and evaluates the rest in at most max_batches parallel calls', async () => {
    const many = Array.from({ length: 300 }, (_, i) => guideline(`g${i}`, `The customer asks about topic number ${i} in detail`));
    many.push(guideline('refund', 'The customer wants a refund for an order'));
    provider.answerAlways('match_guidelines', (req) => ({
      matches: (req.task.input as { guidelines: { id: string }[] }).guidelines.map((g) => ({
        guideline_id: g.id,
        relevance: g.id === 'refund' ? 0.9 : 0.1,
        confidence: 0.9,
        reasoning: 'scored',
        tool_arguments: [],
      })),
    }));
    const reply = await bus.request<MatchGuidelinesReplyV1>(MATCHER_MATCH_SUBJECT, {
      ...request(many),
      message: 'I want a refund for my order',
      settings: { prefilter_k: 20, max_batch_tokens: 500, max_batches: 3 },
    });
    const asked = provider.requests.flatMap((r) => (r.task.input as { guidelines: { id: string }[] }).guidelines.map((g) => g.id));
    expect(provider.requests.length).toBeLessThanOrEqual(3);
    expect(asked.length).toBe(20);
    expect(asked).toContain('refund');
    expect(reply.result.top_matches.map((m) => m.guideline_id)).toEqual(['refund']);
    expect(reply.provenance).toMatchObject({ prefilter: { guidelines: 301, candidates: 301, kept: 20, used: true } });
    expect(reply.calls!.map((c) => c.purpose)).toEqual(['embed', ...provider.requests.map(() => 'match_guidelines')]);
  });

  it('resolves relationships on the matches: priority removes, entailment adds, and the steps are recorded', async () => {
    provider.answer('match_guidelines', {
      matches: [
        { guideline_id: 'refund', relevance: 0.9, confidence: 0.9, reasoning: 'refund', tool_arguments: [] },
        { guideline_id: 'upsell', relevance: 0.8, confidence: 0.9, reasoning: 'sale', tool_arguments: [] },
      ],
    });
    const reply = await bus.request<MatchGuidelinesReplyV1>(MATCHER_MATCH_SUBJECT, {
      ...request([guideline('refund', 'refund'), guideline('upsell', 'upsell'), guideline('apologise', 'apologise')]),
      relationships: [
        { id: 'p', kind: 'priority', source: { type: 'guideline', id: 'refund' }, target: { type: 'guideline', id: 'upsell' } },
        { id: 'e', kind: 'entailment', source: { type: 'guideline', id: 'refund' }, target: { type: 'guideline', id: 'apologise' } },
      ],
    });
    expect(reply.result.top_matches.map((m) => m.guideline_id).sort()).toEqual(['apologise', 'refund']);
    expect(
      (reply.provenance as { relationships: { steps: { guideline_id: string; effect: string }[] } }).relationships.steps.map(
        (x) => `${x.effect} ${x.guideline_id}`,
      ),
    ).toEqual(['deactivated upsell', 'activated apologise']);
  });

  it('keeps tool parameters that fit the tool schema, and does not schedule a tool whose arguments do not', async () => {
    const tools = [
      {
        name: 'check_order',
        description: 'Look up an order',
        parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]+$' } }, required: ['order_id'] },
      },
      {
        name: 'refund',
        description: 'Refund an order',
        parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      },
    ];
    provider.answer('match_guidelines', {
      matches: [
        {
          guideline_id: 'g',
          relevance: 0.9,
          confidence: 0.9,
          reasoning: '',
          tool_arguments: [
            { tool_name: 'check_order', arguments_json: '{"order_id":"12345"}' },
            { tool_name: 'refund', arguments_json: '{"amount":"lots"}' },
          ],
        },
      ],
    });
    const reply = await bus.request<MatchGuidelinesReplyV1>(MATCHER_MATCH_SUBJECT, {
      ...request([guideline('g', 'order problems', { tools: ['check_order', 'refund'] })]),
      tools,
    });
    expect(reply.result.tools_to_execute).toEqual([
      { tool_name: 'check_order', priority: 0, guideline_id: 'g', parameters: { order_id: '12345' } },
    ]);
    expect((reply.provenance as { tool_parameter_issues: { tool_name: string }[] }).tool_parameter_issues.map((i) => i.tool_name)).toEqual([
      'refund',
    ]);
  });

  it('strict_canned never says anything but a template or the no-match message', async () => {
    provider.answer('compose_reply', { message: 'Free text the model made up', cited_guideline_ids: ['refund'], canned_response_id: '' });
    const base = {
      session_id: 's1',
      agent: { id: 'a1', name: 'Ada' },
      message: 'refund?',
      history: [],
      matched: [{ guideline_id: 'refund', action: 'Explain refunds' }],
    };
    const fallback = await bus.request<ComposeReplyReplyV1>(MATCHER_COMPOSE_SUBJECT, {
      ...base,
      composition_mode: 'strict_canned',
      canned_responses: [{ id: 'c1', value: 'Refunds take {{days}} days.', fields: ['days'] }],
      no_match_message: 'Let me get a human for that.',
    });
    expect(fallback).toMatchObject({ message: 'Let me get a human for that.', cited_guideline_ids: [] });
    provider.answer('compose_reply', { message: 'whatever', cited_guideline_ids: ['refund'], canned_response_id: 'c1' });
    const templated = await bus.request<ComposeReplyReplyV1>(MATCHER_COMPOSE_SUBJECT, {
      ...base,
      composition_mode: 'strict_canned',
      canned_responses: [{ id: 'c1', value: 'Refunds take {{days}} days.', fields: ['days'] }],
      field_values: { days: '5' },
    });
    expect(templated).toMatchObject({ message: 'Refunds take 5 days.', canned_response_id: 'c1', cited_guideline_ids: ['refund'] });
  });

  it('refuses a request that breaks its contract, naming every field, without calling the provider', async () => {
    const bad = { ...request([guideline('g', '')]), session_id: 'has space', extra: true };
    const error = await bus.request(MATCHER_MATCH_SUBJECT, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteHandlerError);
    expect((error as RemoteHandlerError).remoteCode).toBe('CONTRACT.INVALID');
    expect((error as Error).message).toContain('/session_id');
    expect((error as Error).message).toContain('/guidelines/0/condition');
    expect((error as Error).message).toContain('/extra');
    expect(provider.requests).toHaveLength(0);
  });
});

describe("guideline matcher with a fallback provider (the agent's fallback)", () => {
  it('answers from the fallback when the primary is unavailable, and the usage names the primary that failed', async () => {
    const primary = new ScriptedProvider({ model: 'primary-1' }).fail(
      'match_guidelines',
      new ProviderUnavailableError('scripted', 'down for maintenance', true, 503),
    );
    const fallback = new ScriptedProvider({ model: 'backup-1', usage: { inputTokens: 7, outputTokens: 3 } }).answer('match_guidelines', {
      matches: [{ guideline_id: 'g', relevance: 0.9, confidence: 0.9, reasoning: 'ok', tool_arguments: [] }],
    });
    const bus = new InProcessMessageBus();
    @Module({ imports: [GuidelineMatcherModule.forRoot({ provider: withFallback(primary, fallback) })] })
    class Host {}
    const app = await NestFactory.create(Host, { logger: false });
    app.connectMicroservice({ strategy: new TenetTransport({ bus, serviceName: 'guideline-matcher' }) });
    await app.startAllMicroservices();
    await app.init();
    try {
      const reply = await bus.request<MatchGuidelinesReplyV1>(MATCHER_MATCH_SUBJECT, {
        ...request([guideline('g', 'anything')]),
        settings: { temperatures: [0] },
      });
      expect(reply.result.top_matches.map((m) => m.guideline_id)).toEqual(['g']);
      expect(reply.usage).toMatchObject({ provider: 'scripted', model: 'backup-1', input_tokens: 7, fallback_from: 'scripted/primary-1' });
    } finally {
      await app.close();
      await bus.close();
    }
  });
});
