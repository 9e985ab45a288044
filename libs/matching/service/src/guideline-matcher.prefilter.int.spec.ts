import type { MatchGuidelinesReplyV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';
import {
  AuthenticationError,
  OfflineVectorizer,
  ProviderUnavailableError,
  type EmbeddingProvider,
  type EmbeddingResponse,
  type LlmCallContext,
} from '@tenet/llm';
import { ScriptedProvider } from '@tenet/llm/testing';
import { EmbeddingCache } from './embedding-cache.js';
import { GuidelineMatcher } from './guideline-matcher.js';
import type { GuidelineMatcherOptions } from './matcher-options.js';
import { ProviderRegistry } from './provider-registry.js';

type Guideline = MatchGuidelinesRequestV1['guidelines'][number];
type Turn = MatchGuidelinesRequestV1['history'][number];

const guideline = (id: string, condition: string, action: string, extra: Partial<Guideline> = {}): Guideline => ({
  id,
  condition,
  action,
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...extra,
});

/** 300 guidelines about other things, some sharing everyday words with the messages below. */
const distractors = (count = 300): Guideline[] =>
  Array.from({ length: count }, (_, i) =>
    i % 3 === 0
      ? guideline(
          `charge-${i}`,
          `The customer asks about the delivery charge on order ${i}`,
          `Explain delivery charge ${i} and the charge schedule`,
        )
      : i % 3 === 1
        ? guideline(`ahead-${i}`, `The customer says go ahead with upgrade offer ${i}`, `Go ahead and apply upgrade offer ${i}`)
        : guideline(`topic-${i}`, `The customer asks about topic number ${i} in detail`, `Explain topic ${i}`),
  );

const refundGuidelines = [
  guideline('refund', 'The customer asks for a refund of an order', 'Explain the 30-day refund policy and offer to start a refund'),
  guideline('refund-start', 'The customer agrees that the agent starts a refund', 'Start the refund and confirm the refund amount'),
];

/** Embeddings that fail the way the test says, counting calls. */
class BrokenEmbeddings implements EmbeddingProvider {
  readonly name = 'openai';
  readonly model = 'text-embedding-3-small';
  readonly dimensions = 8;
  calls = 0;
  constructor(private readonly fail: (texts: string[]) => Promise<EmbeddingResponse>) {}
  embed(texts: string[], _context: LlmCallContext): Promise<EmbeddingResponse> {
    this.calls += 1;
    return this.fail(texts);
  }
}

/** The offline vectorizer, counting calls. */
class CountingVectorizer extends OfflineVectorizer {
  calls = 0;
  override async embed(texts: string[], context: LlmCallContext): Promise<EmbeddingResponse> {
    this.calls += 1;
    return super.embed(texts, context);
  }
}

function setUp(
  embeddings: EmbeddingProvider,
  options: Omit<GuidelineMatcherOptions, 'logger'> = {},
  cache: ConstructorParameters<typeof EmbeddingCache>[1] = {},
) {
  const provider = new ScriptedProvider({ usage: { inputTokens: 100, outputTokens: 10 } });
  provider.answerAlways('match_guidelines', (req) => ({
    matches: (req.task.input as { guidelines: { id: string }[] }).guidelines.map((g) => ({
      guideline_id: g.id,
      relevance: g.id.startsWith('refund') ? 0.9 : 0.1,
      confidence: 0.9,
      reasoning: 'scored',
      tool_arguments: [],
    })),
  }));
  const warnings: string[] = [];
  const clock = { now: 0 };
  const matcher = new GuidelineMatcher(new ProviderRegistry(provider), new EmbeddingCache(embeddings, cache), {
    ...options,
    logger: { warn: (m) => warnings.push(m) },
    now: () => clock.now,
  });
  const sent = (): string[] =>
    provider.requestsFor<{ guidelines: { id: string }[] }>('match_guidelines').flatMap((r) => r.task.input.guidelines.map((g) => g.id));
  return { matcher, provider, warnings, clock, sent };
}

const request = (
  guidelines: Guideline[],
  message: string,
  history: Turn[] = [],
  extra: Partial<MatchGuidelinesRequestV1> = {},
): MatchGuidelinesRequestV1 => ({
  session_id: 's1',
  agent: { id: 'a1', name: 'Ada' },
  message,
  history,
  guidelines,
  settings: { prefilter_k: 10 },
  ...extra,
});

const prefilterOf = (reply: MatchGuidelinesReplyV1) =>
  reply.provenance!['prefilter'] as Record<string, unknown> & {
    degraded?: Record<string, unknown>;
    always_keep_cap?: Record<string, unknown>;
    query?: Record<string, unknown>;
  };

describe('guideline matcher prefilter when embeddings fail', () => {
  const agent = [
    ...distractors(),
    ...refundGuidelines,
    guideline('critical', 'The customer threatens legal action', 'Escalate to the disputes team', { criticality: 'high' }),
  ];

  it('given an embedding provider that is down, when a turn is matched, then it ranks lexically, keeps k plus the always-keep rules, records the degradation and logs a warning', async () => {
    const embeddings = new BrokenEmbeddings(async () => {
      throw new ProviderUnavailableError('openai', 'openai call failed (HTTP 503): overloaded', true, 503);
    });
    const { matcher, warnings, sent, provider } = setUp(embeddings);
    const reply = await matcher.match(request(agent, 'I want a refund for my order'));
    expect(prefilterOf(reply)).toMatchObject({
      used: true,
      ranking: 'lexical',
      kept: 11,
      reasons: { similarity: 10, high_criticality: 1 },
      degraded: { reason: 'LLM.UNAVAILABLE', ranking: 'lexical', configuration: false },
    });
    expect(sent()).toEqual(expect.arrayContaining(['refund', 'refund-start', 'critical']));
    expect(provider.requestsFor('match_guidelines').length).toBeLessThanOrEqual(3);
    expect(reply.result.top_matches.map((m) => m.guideline_id).sort()).toEqual(['refund', 'refund-start']);
    expect(reply.calls!.map((c) => c.purpose)).not.toContain('embed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('LLM.UNAVAILABLE');
  });

  it('given an embedding provider that is down, when 20 turns are matched, then the whole set is embedded once and the other turns rank lexically without calling it', async () => {
    const embeddings = new BrokenEmbeddings(async () => {
      throw new ProviderUnavailableError('openai', 'openai call failed (HTTP 503): overloaded', true, 503);
    });
    const { matcher } = setUp(embeddings, {}, { backoffMs: 60_000 });
    for (let i = 0; i < 20; i++) {
      const reply = await matcher.match(request(agent, `I want a refund for order ${i}`));
      expect(prefilterOf(reply)).toMatchObject({
        ranking: 'lexical',
        embedded_now: 0,
        degraded: { reason: 'LLM.UNAVAILABLE', configuration: false },
      });
      expect(reply.result.top_matches.map((m) => m.guideline_id).sort()).toEqual(['refund', 'refund-start']);
    }
    expect(embeddings.calls).toBe(1);
  });

  it('given rejected credentials, when turns are matched, then each turn still completes, the provenance marks a configuration error, and the log says so once a minute with the count of turns in between', async () => {
    const embeddings = new BrokenEmbeddings(async () => {
      throw new AuthenticationError('openai', 'openai rejected the credentials (HTTP 401): invalid api key');
    });
    const { matcher, warnings, clock } = setUp(embeddings);
    const reply = await matcher.match(request(agent, 'I want a refund'));
    expect(prefilterOf(reply).degraded).toEqual({
      reason: 'LLM.AUTHENTICATION',
      message: 'openai rejected the credentials (HTTP 401): invalid api key',
      ranking: 'lexical',
      configuration: true,
    });
    expect(warnings).toEqual([expect.stringContaining('the embedding configuration is wrong')]);
    await matcher.match(request(agent, 'I want a refund'));
    await matcher.match(request(agent, 'I want a refund'));
    expect(warnings).toHaveLength(1);
    clock.now = 61_000;
    await matcher.match(request(agent, 'I want a refund'));
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('2 more turns since the last warning');
  });

  it('given a provider answering fewer vectors than texts, when a turn is matched, then it degrades with LLM.INVALID_OUTPUT instead of comparing missing vectors', async () => {
    const embeddings = new BrokenEmbeddings(async (texts) => ({
      vectors: texts.slice(1).map(() => new Array<number>(8).fill(1)),
      usage: { inputTokens: 1 },
      provider: 'openai',
      model: 'm',
      latencyMs: 1,
    }));
    const { matcher, sent } = setUp(embeddings);
    const reply = await matcher.match(request(agent, 'I want a refund for my order'));
    expect(prefilterOf(reply).degraded).toMatchObject({ reason: 'LLM.INVALID_OUTPUT', ranking: 'lexical' });
    expect(sent()).toContain('refund');
  });

  it('given a provider that does not answer in time, when a turn is matched, then it degrades after the timeout and the turn completes', async () => {
    const embeddings = new BrokenEmbeddings(() => new Promise<EmbeddingResponse>(() => undefined));
    const { matcher } = setUp(embeddings, {}, { timeoutMs: 30 });
    const reply = await matcher.match(request(agent, 'I want a refund for my order'));
    expect(prefilterOf(reply).degraded).toMatchObject({
      reason: 'LLM.UNAVAILABLE',
      message: expect.stringContaining('no embeddings within 30 ms'),
    });
    expect(reply.result.top_matches.map((m) => m.guideline_id)).toContain('refund');
  });
});

describe('guideline matcher prefilter query', () => {
  const chargeback = guideline('chargeback', 'The customer threatens a chargeback', 'Do not argue; escalate to the disputes team');
  const terms = [
    {
      name: 'chargeback',
      description: 'The customer asks their bank to reverse a card payment',
      synonyms: ['reverse the payment', 'dispute the charge'],
    },
  ];

  it('given a message using a glossary synonym, when matching with the glossary, then the guideline written with the canonical term is kept, and without the glossary it is not', async () => {
    const agent = [...distractors(), chargeback];
    // No word in common with the guideline ("dispute the charge" would meet "disputes" in its action: see the hybrid test below).
    const message = 'I will ask my bank to reverse the payment';
    const withGlossary = setUp(new OfflineVectorizer());
    const reply = await withGlossary.matcher.match(request(agent, message, [], { terms }));
    expect(prefilterOf(reply).query).toMatchObject({ glossary: ['chargeback'], topic_free: false });
    expect(withGlossary.sent()).toContain('chargeback');
    const without = setUp(new OfflineVectorizer());
    await without.matcher.match(request(agent, message));
    expect(without.sent()).not.toContain('chargeback');
  });

  it.each(['yes', 'Yes please, go ahead', 'ok', '12345'])(
    'given "%s" after a refund question, when matching, then the query leans on the conversation and the refund guidelines are kept',
    async (message) => {
      const { matcher, sent } = setUp(new OfflineVectorizer());
      const history: Turn[] = [
        { role: 'customer', content: 'I want my money back for the kettle' },
        { role: 'agent', content: 'I can start a refund for order 1203, shall I?' },
      ];
      const reply = await matcher.match(
        request([...distractors(), ...refundGuidelines], message, history, { settings: { prefilter_k: 5 } }),
      );
      expect(prefilterOf(reply).query).toMatchObject({ topic_free: true });
      expect(sent()).toEqual(expect.arrayContaining(['refund', 'refund-start']));
      expect(reply.result.top_matches.map((m) => m.guideline_id).sort()).toEqual(['refund', 'refund-start']);
    },
  );
});

describe('guideline matcher prefilter limits', () => {
  it('given prefilter_k at or above the number of candidates, when matching, then nothing is embedded, every candidate is evaluated and the calls stay within max_batches', async () => {
    for (const k of [50, 1000]) {
      const embeddings = new CountingVectorizer();
      const { matcher, provider, sent } = setUp(embeddings);
      const agent = distractors(50);
      const reply = await matcher.match(
        request(agent, 'I want a refund', [], { settings: { prefilter_k: k, max_batch_tokens: 500, max_batches: 3 } }),
      );
      expect(embeddings.calls).toBe(0);
      expect(prefilterOf(reply)).toEqual({ guidelines: 50, candidates: 50, kept: 50, used: false });
      expect(sent().sort()).toEqual(agent.map((g) => g.id).sort());
      expect(provider.requestsFor('match_guidelines').length).toBeLessThanOrEqual(3);
    }
  });

  it('given 1000 guidelines of which 400 are high-criticality, when matching with the default cap, then every rule-kept guideline goes to the LLM while they fit the call budget, in at most max_batches calls', async () => {
    const agent = Array.from({ length: 1000 }, (_, i) =>
      guideline(`g${i}`, `The customer asks about topic number ${i}`, `Explain topic ${i}`, i % 5 < 2 ? { criticality: 'high' } : {}),
    );
    const { matcher, provider, sent } = setUp(new OfflineVectorizer());
    const reply = await matcher.match(request(agent, 'Tell me about topic number 7', [], { settings: { prefilter_k: 40 } }));
    const cap = prefilterOf(reply).always_keep_cap as { limit: number; wanted: number; dropped: number };
    expect(cap.wanted).toBeGreaterThanOrEqual(360); // the 400 high ones not already among the 40 most similar
    expect(cap.dropped).toBe(0);
    expect(cap.limit).toBeGreaterThan(cap.wanted); // 3 × 12,000 tokens hold them all
    expect(sent()).toEqual(expect.arrayContaining(agent.filter((g) => g.criticality === 'high').map((g) => g.id)));
    expect(provider.requestsFor('match_guidelines').length).toBeLessThanOrEqual(3);
  });

  it('given the same agent with a call budget too small for its 400 high-criticality guidelines, when matching with the default cap, then the cap binds at max(k, 40) and the provenance says how many it dropped', async () => {
    const agent = Array.from({ length: 1000 }, (_, i) =>
      guideline(`g${i}`, `The customer asks about topic number ${i}`, `Explain topic ${i}`, i % 5 < 2 ? { criticality: 'high' } : {}),
    );
    const { matcher, provider, sent } = setUp(new OfflineVectorizer());
    const reply = await matcher.match(
      request(agent, 'Tell me about topic number 7', [], { settings: { prefilter_k: 40, max_batches: 1, max_batch_tokens: 2_000 } }),
    );
    expect(prefilterOf(reply).always_keep_cap).toMatchObject({
      limit: 40,
      wanted: expect.any(Number),
      dropped: expect.any(Number),
      dropped_reasons: { high_criticality: expect.any(Number) },
    });
    const cap = prefilterOf(reply).always_keep_cap as { wanted: number; dropped: number };
    expect(cap.wanted - cap.dropped).toBe(40);
    expect(sent()).toHaveLength(80);
    expect(provider.requestsFor('match_guidelines')).toHaveLength(1);
  });

  it('given a configured cap, when matching, then it is the limit; turned off, everything a rule wants goes through', async () => {
    const agent = Array.from({ length: 200 }, (_, i) =>
      guideline(`g${i}`, `The customer asks about topic number ${i}`, `Explain topic ${i}`, i % 2 === 0 ? { criticality: 'high' } : {}),
    );
    const capped = setUp(new OfflineVectorizer(), { alwaysKeepCap: 5 });
    const reply = await capped.matcher.match(request(agent, 'topic number 7'));
    expect(prefilterOf(reply).always_keep_cap).toMatchObject({ limit: 5 });
    expect(capped.sent()).toHaveLength(15);
    const off = setUp(new OfflineVectorizer(), { alwaysKeepCap: Infinity });
    const uncapped = await off.matcher.match(request(agent, 'topic number 7'));
    expect(prefilterOf(uncapped).always_keep_cap).toMatchObject({ limit: null, dropped: 0 });
    expect(off.sent().length).toBeGreaterThanOrEqual(100);
  });
});

describe('guideline matcher prefilter ranking', () => {
  it('given a message whose only rare word is in a guideline the embedding ranks low, when matching, then the hybrid ranking keeps it and the embedding ranking alone does not', async () => {
    // 300 distractors, 100 of them about a "delivery charge" (charge ×3): the hashing vectorizer ranks them all
    // above the chargeback guideline (101st), whose action shares the rare "dispute" with the message; BM25 ranks
    // it first. Fused by rank, it is 2nd of 301 and among the k = 10 kept.
    const agent = [
      ...distractors(),
      guideline('chargeback', 'The customer threatens a chargeback', 'Do not argue; escalate to the disputes team'),
    ];
    const message = 'I will ask my bank to dispute the charge';
    const hybrid = setUp(new OfflineVectorizer());
    const reply = await hybrid.matcher.match(request(agent, message));
    expect(prefilterOf(reply)).toMatchObject({ ranking: 'hybrid', kept: 10 });
    expect(hybrid.sent()).toContain('chargeback');
    const embeddingOnly = setUp(new OfflineVectorizer(), { ranking: 'embedding' });
    const alone = await embeddingOnly.matcher.match(request(agent, message));
    expect(prefilterOf(alone)).toMatchObject({ ranking: 'embedding', kept: 10 });
    expect(embeddingOnly.sent()).not.toContain('chargeback');
  });

  const agent = [
    ...distractors(),
    ...refundGuidelines,
    guideline('critical', 'The customer threatens legal action', 'Escalate to the disputes team', { criticality: 'high' }),
  ];

  it('given the default settings, when turns are matched, then the ranking is hybrid, the BM25 index is built on the first turn and reused after, and the embeddings are still used', async () => {
    const embeddings = new CountingVectorizer();
    const { matcher } = setUp(embeddings);
    const first = await matcher.match(request(agent, 'I want a refund for my order'));
    expect(prefilterOf(first)).toMatchObject({
      used: true,
      ranking: 'hybrid',
      lexical_index: 'built',
      embedding_model: 'offline/tenet-hashing-1',
    });
    expect(prefilterOf(first).degraded).toBeUndefined();
    const second = await matcher.match(request(agent, 'Where is my refund?'));
    expect(prefilterOf(second)).toMatchObject({ ranking: 'hybrid', lexical_index: 'cached' });
    expect(matcher.lexicalIndexes.size).toBe(1);
    expect(embeddings.calls).toBe(2);
  });

  it('given a guideline whose text is edited between turns, when the next turn is matched, then its candidate set gets a new BM25 index that ranks the new text', async () => {
    const { matcher, sent } = setUp(new OfflineVectorizer(), { ranking: 'lexical' });
    await matcher.match(request(agent, 'My parcel is lost'));
    expect(sent()).not.toContain('topic-2');
    const edited = agent.map((g) =>
      g.id === 'topic-2' ? { ...g, condition: 'The customer says their parcel is lost', action: 'Open a lost parcel claim' } : g,
    );
    const reply = await matcher.match(request(edited, 'My parcel is lost'));
    expect(prefilterOf(reply)).toMatchObject({ ranking: 'lexical', lexical_index: 'built' });
    expect(sent()).toContain('topic-2');
    expect(matcher.lexicalIndexes.size).toBe(2);
  });

  it('given TENET_PREFILTER_RANKING=lexical, when a turn is matched, then nothing is embedded, BM25 ranks alone and the turn is not marked degraded', async () => {
    const embeddings = new CountingVectorizer();
    const { matcher, sent } = setUp(embeddings, { ranking: 'lexical' });
    const reply = await matcher.match(request(agent, 'I want a refund for my order'));
    expect(embeddings.calls).toBe(0);
    expect(prefilterOf(reply)).toMatchObject({ used: true, ranking: 'lexical', lexical_index: 'built', embedded_now: 0 });
    expect(prefilterOf(reply).degraded).toBeUndefined();
    expect(prefilterOf(reply).embedding_model).toBeUndefined();
    expect(reply.calls!.map((c) => c.purpose)).not.toContain('embed');
    expect(sent()).toEqual(expect.arrayContaining(['refund', 'refund-start', 'critical']));
  });

  it('given TENET_PREFILTER_RANKING=embedding, when a turn is matched, then the embedding similarity ranks alone and no BM25 index is built', async () => {
    const { matcher } = setUp(new OfflineVectorizer(), { ranking: 'embedding' });
    const reply = await matcher.match(request(agent, 'I want a refund for my order'));
    expect(prefilterOf(reply)).toMatchObject({ ranking: 'embedding', embedded_now: expect.any(Number) });
    expect(prefilterOf(reply).lexical_index).toBeUndefined();
    expect(matcher.lexicalIndexes.size).toBe(0);
  });

  it.each(['hybrid', 'embedding'] as const)(
    'given the %s ranking and embeddings that fail, when a turn is matched, then BM25 ranks alone and the provenance says lexical and degraded',
    async (ranking) => {
      const embeddings = new BrokenEmbeddings(async () => {
        throw new ProviderUnavailableError('openai', 'openai call failed (HTTP 503): overloaded', true, 503);
      });
      const { matcher, sent } = setUp(embeddings, { ranking });
      const reply = await matcher.match(request(agent, 'I want a refund for my order'));
      expect(prefilterOf(reply)).toMatchObject({
        ranking: 'lexical',
        lexical_index: 'built',
        degraded: { reason: 'LLM.UNAVAILABLE', ranking: 'lexical' },
      });
      expect(sent()).toEqual(expect.arrayContaining(['refund', 'refund-start', 'critical']));
    },
  );
});
