import { hostname } from 'node:os';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { words } from '@tenet/text';
import type {
  BudgetScopeV1,
  CallUsageV1,
  ComposeReplyReplyV1,
  ComposeReplyRequestV1,
  MatchGuidelinesReplyV1,
  MatchGuidelinesRequestV1,
} from '@tenet/contracts';
import {
  agentInstructions,
  billedCallsOf,
  composeReplyRequest,
  generateWithRecovery,
  redactSecrets,
  matchGuidelinesRequest,
  parseIntentParameters,
  type BilledCall,
  type ComposeReplyInput,
  type ComposeReplyOutput,
  type LlmResponse,
  type MatchGuidelinesInput,
  type MatchGuidelinesOutput,
} from '@tenet/llm';
import {
  candidatesFor,
  cosineSimilarity,
  defaultAlwaysKeepCap,
  planBatches,
  prefilterCandidates,
  rankMatches,
  renderTemplate,
  resolveRelationships,
  scopeToJourneys,
  scoredMatches,
  withApplicationHistory,
  DEFAULT_NO_MATCH_MESSAGE,
  type MatchableGuideline,
  type RelevanceScore,
} from '@tenet/matching-domain';
import { BudgetGate } from '@tenet/metering-gate';
import { EmbeddingCache } from './embedding-cache.js';
import { DEFAULT_PREFILTER_RANKING, hybridSimilarity, type PrefilterRanking } from './hybrid-ranking.js';
import { DEFAULT_LEXICAL_INDEX_CACHE_ENTRIES, LexicalIndexCache } from './lexical-index-cache.js';
import {
  GUIDELINE_MATCHER_OPTIONS,
  guidelineMatcherOptionsFrom,
  type GuidelineMatcherOptions,
  type MatcherLogger,
} from './matcher-options.js';
import { combineQueryVectors, glossaryTermsUsed, prefilterQuery, type PrefilterQuery } from './prefilter-query.js';
import { ProviderRegistry } from './provider-registry.js';
import { ToolParameterValidator, type ToolParameterIssue } from './tool-parameters.js';
import { classifiedIntent, intentsForCall, INTENT_PREFILTER_K } from './intent-classification.js';

const replica = `${hostname()}:${process.pid}`;

/**
 * Reply temperatures: the agent's own first, then one retry sampled a little warmer (an answer out of schema is
 * often fixed by sampling differently). Without an agent setting (an older gateway): 0.3, then 0.7.
 */
export const composeTemperatures = (agentTemperature: number | undefined): number[] =>
  agentTemperature === undefined ? [0.3, 0.7] : [agentTemperature, Math.min(2, agentTemperature + 0.4)];

/** The agent's matching settings when it sets none (threshold 0.3, top 3: docs/data-model.md#matching; and Tenet's cost controls). */
export const DEFAULT_MATCHING_SETTINGS = {
  threshold: 0.3,
  top_n: 3,
  prefilter_k: 40,
  max_batch_tokens: 12_000,
  max_batches: 3,
  temperatures: [0, 0.3],
};

/** Templates offered to one composition call; more are ranked by overlap with the matched actions first. */
const MAX_TEMPLATES = 25;
/** Capabilities offered to the composer: the most relevant few (Parlant shows the agent a handful, not all). */
export const MAX_CAPABILITIES = 3;

/** The calls an answer cost: the billed calls before it (an answer out of schema, a failed primary), then its own. */
export const usagesOf = (purpose: string, response: LlmResponse): CallUsageV1[] => [
  ...(response.billedBefore ?? []).map((b) => billedUsage(purpose, b)),
  usageOf(purpose, response),
];

const billedUsage = (purpose: string, call: BilledCall): CallUsageV1 => ({
  purpose,
  provider: call.provider,
  model: call.model,
  input_tokens: call.usage.inputTokens,
  output_tokens: call.usage.outputTokens,
  latency_ms: 0,
});

/**
 * A step that failed after the provider billed some of its calls: the error goes back to the gateway with those
 * calls in `details.calls` (carried by `RemoteHandlerError.details`), so they are metered although the turn failed.
 */
export function failedWithCalls(error: unknown, purpose: string, calls: readonly CallUsageV1[]): unknown {
  const all = [...calls, ...billedCallsOf(error).map((b) => billedUsage(purpose, b))];
  if (all.length > 0 && typeof error === 'object' && error !== null)
    Object.assign(error, { details: { ...(error as { details?: object }).details, calls: all } });
  return error;
}

/** What the matcher's handlers get besides the request: the deadline as a signal (from the RPC's header). */
export interface StepOptions {
  signal?: AbortSignal;
}

export const usageOf = (purpose: string, response: LlmResponse): CallUsageV1 => ({
  purpose,
  provider: response.provider,
  model: response.model,
  input_tokens: response.usage.inputTokens,
  output_tokens: response.usage.outputTokens,
  latency_ms: Math.round(response.latencyMs * 1000) / 1000,
  ...(response.fallbackFrom !== undefined ? { fallback_from: response.fallbackFrom } : {}),
});

/** Rough prompt size of one guideline in a matching call: ~4 characters per token, plus its framing. */
const tokensOf = (g: MatchableGuideline, toolText: number): number =>
  Math.ceil((g.condition.length + (g.action?.length ?? 0) + toolText) / 4) + 24;

/** The length of each tool's JSON, serialized once per turn rather than once per guideline that names it. */
export const toolTextLengths = (tools: readonly { name: string }[]): ReadonlyMap<string, number> =>
  new Map(tools.map((t) => [t.name, JSON.stringify(t).length]));

/** A tool name the agent does not define still costs its placeholder (`""`). */
const UNKNOWN_TOOL_TEXT = JSON.stringify('').length;

/** The estimated prompt size of a guideline in a matching call, with the schemas of its tools (batching, budget cap). */
export const guidelineTokens = (g: MatchableGuideline, toolText: ReadonlyMap<string, number>): number =>
  tokensOf(
    g,
    g.tools.reduce((sum, name) => sum + (toolText.get(name) ?? UNKNOWN_TOOL_TEXT), 0),
  );

/** The text a guideline is compared with in the prefilter: its condition and action. */
const guidelineText = (g: MatchableGuideline): string => `${g.condition}\n${g.action ?? ''}`;

/** How the prefilter ranked a turn's candidates, and what it cost. */
interface CandidateRanking {
  similarity: Map<string, number>;
  /** The ranking used: the configured one, or `lexical` when embeddings failed (`degraded` says why). */
  ranking: PrefilterRanking;
  usage?: CallUsageV1;
  embeddedNow: number;
  /** Whether embeddings were asked for (not with `lexical` ranking). */
  embedded: boolean;
  /** Whether the BM25 index came from the cache or was built this turn (absent when BM25 was not used). */
  lexicalIndex?: 'cached' | 'built';
  degraded?: PrefilterDegradation;
}

/** Why the prefilter ranked lexically this turn (`provenance.prefilter.degraded`). */
export interface PrefilterDegradation {
  /** The error's stable code (`LLM.AUTHENTICATION`, `LLM.UNAVAILABLE`, `LLM.INVALID_OUTPUT`, …) or its name. */
  reason: string;
  message: string;
  ranking: 'lexical';
  /** The embeddings are misconfigured (rejected credentials, an unusable model or request, mixed models): it will not heal by itself. */
  configuration: boolean;
}

/** Errors that no retry fixes: an operator has to act. */
const CONFIGURATION_CODES = new Set(['LLM.AUTHENTICATION', 'LLM.CONFIGURATION', 'LLM.UNSUPPORTED_TASK', 'MATCHING.VECTOR_DIMENSION']);

function degradationOf(error: unknown): PrefilterDegradation {
  const e = error as { code?: unknown; name?: unknown; message?: unknown; retryable?: unknown } | undefined;
  const reason = typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'Error';
  // Provenance reaches API clients and the event log: the provider's message, bounded (SDKs mask keys already).
  const message = (typeof e?.message === 'string' ? e.message : String(error)).slice(0, 300);
  // A non-retryable "unavailable" is a request the API refuses every time (an unknown model, a bad base URL).
  const configuration = CONFIGURATION_CODES.has(reason) || (reason === 'LLM.UNAVAILABLE' && e?.retryable === false);
  return { reason, message, ranking: 'lexical', configuration };
}

/**
 * The default always-keep cap. The rules are the modeller's guarantee (high criticality, the active journey,
 * previously applied, continuous), so they hold in full as long as the kept guidelines fit the turn's call
 * budget — `max_batches` × `max_batch_tokens`, at the candidates' average size, after the `k` kept by
 * similarity. Only past that budget does the cap bind, keeping the most important first (see
 * `prefilterCandidates`); never below the domain's floor, max(k, 40).
 */
export function budgetCap(
  candidates: readonly MatchableGuideline[],
  settings: { prefilter_k: number; max_batches: number; max_batch_tokens: number },
  estimateTokens: (g: MatchableGuideline) => number,
): number {
  const average = candidates.reduce((sum, g) => sum + estimateTokens(g), 0) / Math.max(1, candidates.length);
  const fitting = Math.floor((settings.max_batches * settings.max_batch_tokens) / Math.max(1, average)) - settings.prefilter_k;
  return Math.max(defaultAlwaysKeepCap(settings.prefilter_k), fitting);
}

/** One warning per reason per minute: an outage is visible in the log without a line per turn. */
const WARNING_INTERVAL_MS = 60_000;

const wordSet = (text: string): Set<string> => new Set(words(text));

/**
 * The guideline matcher's engine, stateless per request so any replica serves any turn (docs/data-model.md#matching):
 *   1–3  enabled, journey scope, required context                 (domain: candidatesFor, scopeToJourneys)
 *        prefilter when there are more than prefilter_k: the k most similar to the conversation plus the capped
 *        always-keep rules (domain: prefilterCandidates); similarity by embeddings (vectors cached) fused with
 *        BM25 (index cached) by reciprocal rank — or either alone (TENET_PREFILTER_RANKING) — and BM25 alone when
 *        embeddings fail: the turn goes on, and provenance and the log say so
 *   4    relevance, reasoning, confidence and tool arguments from the LLM, in as few structured-output calls as
 *        the token budget allows (domain: planBatches), in parallel; an answer out of schema is repaired once with
 *        its validation error, then the agent's fallback answers (generateWithRecovery)
 *   5    threshold; relationships resolved to a fixed point        (domain: scoredMatches, resolveRelationships)
 *   6–9  priority/criticality order, top N, tool parameters checked against each tool's JSON Schema, combined
 *        action, deduplicated tools                               (domain: rankMatches; ToolParameterValidator)
 * and composes the reply in the agent's composition mode, enforcing strict_canned's "only templates".
 */
@Injectable()
export class GuidelineMatcher {
  private readonly validator = new ToolParameterValidator();
  private readonly logger: MatcherLogger;
  private readonly now: () => number;
  private readonly alwaysKeepCap: number | undefined;
  private readonly ranking: PrefilterRanking;
  /** The BM25 indexes of the candidate sets this replica has ranked (per agent version), bounded. */
  readonly lexicalIndexes: LexicalIndexCache;
  /** When each degradation reason was last logged, and how many turns it hit since. */
  private readonly warned = new Map<string, { at: number; since: number }>();
  private readonly budgets: BudgetGate;

  constructor(
    @Inject(ProviderRegistry) private readonly providers: ProviderRegistry,
    @Inject(EmbeddingCache) private readonly embeddings: EmbeddingCache,
    @Optional() @Inject(GUIDELINE_MATCHER_OPTIONS) options?: GuidelineMatcherOptions,
    @Optional() @Inject(BudgetGate) budgets?: BudgetGate,
  ) {
    // Without a gate (a host without a budget store) a request that carries a budget is refused, never run unchecked.
    this.budgets = budgets ?? new BudgetGate({ store: undefined, prices: {} });
    const settings = options ?? guidelineMatcherOptionsFrom(process.env);
    this.logger = settings.logger ?? new Logger(GuidelineMatcher.name);
    this.now = settings.now ?? (() => performance.now());
    this.alwaysKeepCap = settings.alwaysKeepCap;
    this.ranking = settings.ranking ?? DEFAULT_PREFILTER_RANKING;
    this.lexicalIndexes = new LexicalIndexCache(settings.lexicalIndexCacheMaxEntries ?? DEFAULT_LEXICAL_INDEX_CACHE_ENTRIES);
  }

  async match(request: MatchGuidelinesRequestV1, options: StepOptions = {}): Promise<MatchGuidelinesReplyV1> {
    const started = performance.now();
    const settings = { ...DEFAULT_MATCHING_SETTINGS, ...request.settings };
    const provider = this.budgets.provider(this.providers.for(request.llm), request.budget?.scopes);
    const callContext = { purpose: 'match_guidelines', sessionId: request.session_id, agentId: request.agent.id };
    const context = request.context ?? {};
    const applied = new Set(request.previously_applied ?? []);
    const relationships = request.relationships ?? [];
    const calls: CallUsageV1[] = [];

    // Steps 1-3, then the application history: a non-continuous guideline a reply already applied is flagged, so
    // the provider judges whether its condition arose anew, and the match says it was judged that way.
    const candidates = withApplicationHistory(candidatesFor(scopeToJourneys(request.guidelines, request.active_journey), context), applied);
    const tools = request.tools ?? [];
    const toolsByName = new Map(tools.map((t) => [t.name, t]));
    const toolText = toolTextLengths(tools);
    let kept: MatchableGuideline[] = candidates;
    const prefilter: Record<string, unknown> = {
      guidelines: request.guidelines.length,
      candidates: candidates.length,
      kept: candidates.length,
      used: false,
    };
    // k ≥ the candidates: every candidate is evaluated, no embedding is needed (planBatches still holds the calls
    // to max_batches).
    if (candidates.length > settings.prefilter_k) {
      const query = prefilterQuery({ message: request.message, history: request.history, terms: request.terms ?? [] });
      const ranking = await this.rankingOf(candidates, query, { ...callContext, purpose: 'embed' }, request.budget?.scopes);
      if (ranking.usage) calls.push(ranking.usage);
      const filtered = prefilterCandidates({
        candidates,
        similarity: ranking.similarity,
        k: settings.prefilter_k,
        previouslyApplied: applied,
        relationships,
        ...(request.active_journey ? { activeJourneyId: request.active_journey.journey_id } : {}),
        alwaysKeepCap: this.alwaysKeepCap ?? budgetCap(candidates, settings, (g) => guidelineTokens(g, toolText)),
      });
      kept = filtered.kept;
      const reasons: Record<string, number> = {};
      for (const reason of filtered.reasons.values()) reasons[reason] = (reasons[reason] ?? 0) + 1;
      const droppedReasons: Record<string, number> = {};
      for (const d of filtered.cap.dropped) droppedReasons[d.reason] = (droppedReasons[d.reason] ?? 0) + 1;
      Object.assign(prefilter, {
        kept: kept.length,
        used: true,
        reasons,
        ranking: ranking.ranking,
        ...(ranking.lexicalIndex ? { lexical_index: ranking.lexicalIndex } : {}),
        embedded_now: ranking.embeddedNow,
        ...(ranking.embedded ? { embedding_model: this.embeddings.model } : {}),
        query: {
          parts: Object.fromEntries(query.parts.map((p) => [p.source, p.weight])),
          topic_free: query.topicFree,
          glossary: query.glossary,
        },
        // `limit` is null when the cap is off (JSON has no Infinity).
        always_keep_cap: {
          limit: Number.isFinite(filtered.cap.limit) ? filtered.cap.limit : null,
          wanted: filtered.cap.wanted,
          dropped: filtered.cap.dropped.length,
          ...(filtered.cap.dropped.length > 0 ? { dropped_reasons: droppedReasons } : {}),
        },
        ...(ranking.degraded ? { degraded: ranking.degraded } : {}),
      });
    }

    const terms = glossaryTermsUsed(request.terms ?? [], [
      request.message,
      ...request.history.map((t) => t.content),
      ...kept.map((g) => g.condition),
    ]);
    const instructions = agentInstructions(request.agent.system_prompt, request.agent.soul);
    const planned = planBatches(kept, {
      maxBatchTokens: settings.max_batch_tokens,
      maxBatches: settings.max_batches,
      estimateTokens: (g) => guidelineTokens(g, toolText),
    });
    // Intents ride in the first batch's call (ADR 0031: no call of their own), the prefilter's few most similar.
    const intents = request.intents?.length ? intentsForCall(request.intents, request, this.lexicalIndexes) : undefined;
    const batches = intents && planned.length === 0 ? [[]] : planned;
    if (intents) prefilter['intents'] = { offered: request.intents?.length ?? 0, kept: intents.length, limit: INTENT_PREFILTER_K };
    const settled = await Promise.allSettled(
      batches.map((batch, batchIndex) => {
        const input: MatchGuidelinesInput = {
          message: request.message,
          history: request.history,
          guidelines: batch.map((g) => ({
            id: g.id,
            condition: g.condition,
            ...(g.action ? { action: g.action } : {}),
            ...(g.previously_applied ? { previously_applied: true } : {}),
            ...(g.tools.length > 0 ? { tools: g.tools.flatMap((name) => toolsByName.get(name) ?? []) } : {}),
          })),
          ...(terms.length > 0 ? { terms } : {}),
          ...(request.tool_results?.length ? { tool_results: request.tool_results } : {}),
          ...(intents && batchIndex === 0 ? { intents } : {}),
        };
        const call = {
          ...matchGuidelinesRequest(input, callContext, instructions ? { systemPrompt: instructions } : {}),
          temperature: settings.temperatures[0] ?? 0,
          ...(options.signal ? { signal: options.signal } : {}),
        };
        return generateWithRecovery<MatchGuidelinesInput, MatchGuidelinesOutput>(provider, call, settings.temperatures[1]);
      }),
    );
    // Every billed call is returned — with the reply, or with the error when a batch failed.
    const outcomes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    for (const outcome of outcomes) calls.push(...usagesOf('match_guidelines', outcome.response));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed)
      throw failedWithCalls(failed.reason, 'match_guidelines', [
        ...calls,
        ...settled.flatMap((s) =>
          s.status === 'rejected' && s !== failed ? billedCallsOf(s.reason).map((b) => billedUsage('match_guidelines', b)) : [],
        ),
      ]);

    const byId = new Map(kept.map((g) => [g.id, g]));
    const toolIssues: ToolParameterIssue[] = [];
    const scores: RelevanceScore[] = outcomes.flatMap((o) =>
      o.response.value.matches.flatMap((m) => {
        const guideline = byId.get(m.guideline_id);
        if (!guideline) return [];
        const checked = this.validator.validate(guideline.id, tools, m.tool_arguments, guideline.tools);
        toolIssues.push(...checked.issues);
        return [
          {
            guideline_id: m.guideline_id,
            relevance: m.relevance,
            confidence: m.confidence,
            reasoning: m.reasoning,
            tool_parameters: checked.parameters,
          },
        ];
      }),
    );
    const aboveThreshold = scoredMatches(kept, scores, context, settings.threshold);
    const resolution = resolveRelationships(aboveThreshold, candidates, relationships, context);
    const ranked = rankMatches(resolution.active, settings.top_n);
    // Tools with arguments that failed their schema are not executed with them.
    const result = {
      ...ranked,
      tools_to_execute: ranked.tools_to_execute.filter(
        (t) => !toolIssues.some((i) => i.guideline_id === t.guideline_id && i.tool_name === t.tool_name),
      ),
    };

    const llmCall = calls.find((c) => c.purpose === 'match_guidelines');
    const answered = outcomes.find((o) => o.response.value.intent !== undefined)?.response.value.intent;
    const intent = intents && answered ? classifiedIntent(answered, intents, parseIntentParameters(answered)) : undefined;
    return {
      result: {
        ...result,
        ...(intent ? { intent } : {}),
        evaluation_time_ms: Math.max(1, Math.round(performance.now() - started)),
        ...(resolution.disambiguation ? { disambiguation: resolution.disambiguation } : {}),
      },
      ...(llmCall ? { usage: llmCall } : {}),
      calls,
      provenance: {
        prefilter,
        batches: batches.map((b) => ({
          guidelines: b.length,
          estimated_tokens: b.reduce((sum, g) => sum + guidelineTokens(g, toolText), 0),
        })),
        attempts: outcomes.map((o) => ({
          repaired: o.repaired,
          ...(o.response.fallbackFrom ? { fallback_from: o.response.fallbackFrom } : {}),
        })),
        relationships: { iterations: resolution.iterations, capped: resolution.capped, steps: resolution.steps },
        glossary: terms.map((t) => t.name),
        ...(toolIssues.length > 0 ? { tool_parameter_issues: toolIssues } : {}),
        settings,
      },
      served_by: replica,
    };
  }

  /**
   * Each candidate's similarity to the conversation, by the configured ranking:
   * - `hybrid`: the cosine between the guideline's embedding and the weighted query parts' embeddings, fused by
   *   reciprocal rank with BM25 over the same texts and the same weighted query (`hybridSimilarity`);
   * - `embedding`: the cosine alone; `lexical`: BM25 alone, nothing embedded.
   * BM25 uses the candidate set's cached index (`LexicalIndexCache`): only the query is tokenised per turn.
   * When the embeddings fail for any reason — the provider errs or times out, answers the wrong number or length
   * of vectors, or the cached vectors come from another model — the turn is not failed: the candidates are ranked
   * by BM25 alone, and the degradation is returned for the provenance and logged (configuration errors as such,
   * so they are not mistaken for an outage).
   */
  private async rankingOf(
    candidates: readonly MatchableGuideline[],
    query: PrefilterQuery,
    context: { purpose: string; sessionId: string; agentId: string },
    budget?: readonly BudgetScopeV1[],
  ): Promise<CandidateRanking> {
    const documents = candidates.map((g) => ({ id: g.id, text: guidelineText(g) }));
    const lexical = (): { scores: Map<string, number>; lexicalIndex: 'cached' | 'built' } => {
      const { index, cached } = this.lexicalIndexes.indexFor(documents);
      return { scores: index.score(query.parts), lexicalIndex: cached ? 'cached' : 'built' };
    };
    if (this.ranking === 'lexical') {
      const { scores, lexicalIndex } = lexical();
      return { similarity: scores, ranking: 'lexical', embeddedNow: 0, embedded: false, lexicalIndex };
    }
    // The embedding request goes out first; a hybrid turn computes BM25 while it is in flight.
    // Within the step's budgets like every LLM call (a spent budget ranks lexically; the matching call is then refused).
    const texts = { guidelines: documents.map((d) => d.text), queries: query.parts.map((p) => p.text) };
    const slash = this.embeddings.model.indexOf('/');
    const [embedProvider, embedModel] = [this.embeddings.model.slice(0, slash), this.embeddings.model.slice(slash + 1)];
    const pending = this.budgets.run(
      budget,
      {
        provider: embedProvider,
        model: embedModel,
        input: Math.ceil([...texts.guidelines, ...texts.queries].reduce((sum, t) => sum + t.length, 0) / 3),
        output: 0,
      },
      () => this.embeddings.embed(texts, context),
      (embedded) =>
        embedded.usage
          ? [
              {
                provider: embedded.usage.provider,
                model: embedded.usage.model,
                usage: { inputTokens: embedded.usage.input_tokens, outputTokens: embedded.usage.output_tokens },
              },
            ]
          : [],
    );
    pending.catch(() => undefined);
    const bm25 = this.ranking === 'hybrid' ? lexical() : undefined;
    let cosine: Map<string, number>;
    let embedded: Awaited<typeof pending>;
    try {
      embedded = await pending;
      const queryVector = combineQueryVectors(query.parts.map((p, i) => ({ weight: p.weight, vector: embedded.queries[i] ?? [] })));
      cosine = new Map(candidates.map((g, i) => [g.id, cosineSimilarity(queryVector, embedded.guidelines[i] ?? [])]));
    } catch (error) {
      const degraded = degradationOf(error);
      this.warnDegraded(degraded, context.agentId);
      const { scores, lexicalIndex } = bm25 ?? lexical();
      return { similarity: scores, ranking: 'lexical', embeddedNow: 0, embedded: true, lexicalIndex, degraded };
    }
    const spent = { ...(embedded.usage ? { usage: embedded.usage } : {}), embeddedNow: embedded.computed, embedded: true };
    if (!bm25) return { similarity: cosine, ranking: 'embedding', ...spent };
    return { similarity: hybridSimilarity(cosine, bm25.scores), ranking: 'hybrid', lexicalIndex: bm25.lexicalIndex, ...spent };
  }

  private warnDegraded(degraded: PrefilterDegradation, agentId: string): void {
    const now = this.now();
    const last = this.warned.get(degraded.reason);
    if (last && now - last.at < WARNING_INTERVAL_MS) {
      last.since += 1;
      return;
    }
    this.warned.set(degraded.reason, { at: now, since: 0 });
    const repeats = last && last.since > 0 ? ` (${last.since} more turns since the last warning)` : '';
    const advice = degraded.configuration ? 'the embedding configuration is wrong (check the key, model and base URL); ' : '';
    this.logger.warn(
      `prefilter degraded to lexical ranking: ${advice}embeddings failed with ${degraded.reason}: ${redactSecrets(degraded.message)} (agent ${agentId})${repeats}`,
    );
  }

  /**
   * The capabilities most relevant to the conversation: BM25 of the prefilter's query (the message, the agent's
   * last message, the customer's previous one, glossary-expanded) against each capability's title, description
   * and signals — no LLM call, however many capabilities the agent has. Those sharing no word are left out.
   */
  private relevantCapabilities(request: ComposeReplyRequestV1): NonNullable<ComposeReplyRequestV1['capabilities']> {
    const all = request.capabilities ?? [];
    if (all.length === 0) return [];
    const query = prefilterQuery({ message: request.message, history: request.history, terms: request.terms ?? [] });
    const { index } = this.lexicalIndexes.indexFor(
      all.map((c) => ({ id: `capability:${c.id}`, text: [c.title, c.description, ...c.signals].join('\n') })),
    );
    const scores = index.score(query.parts);
    const scoreOf = (id: string): number => scores.get(`capability:${id}`) ?? 0;
    return all
      .filter((c) => scoreOf(c.id) > 0)
      .sort((a, b) => scoreOf(b.id) - scoreOf(a.id) || a.id.localeCompare(b.id))
      .slice(0, MAX_CAPABILITIES);
  }

  async compose(request: ComposeReplyRequestV1, options: StepOptions = {}): Promise<ComposeReplyReplyV1> {
    // The message is none of the agent's intents and nothing applies: the agent's fallback, no model asked (ADR 0031).
    if (request.fallback_reply !== undefined) {
      return {
        message: request.fallback_reply,
        cited_guideline_ids: [],
        usage: { purpose: 'compose_reply', provider: 'none', model: 'intent-fallback', input_tokens: 0, output_tokens: 0, latency_ms: 0 },
        calls: [],
        served_by: replica,
      };
    }
    const provider = this.budgets.provider(this.providers.for(request.llm), request.budget?.scopes);
    const mode = request.composition_mode ?? 'fluid';
    const fields = request.field_values ?? {};
    // Only templates whose fields all have values can be said; the most relevant ones are offered. Each template's
    // overlap with the message and matched actions is counted once (not in every comparison of the sort).
    const sayable = (request.canned_responses ?? []).filter((c) => renderTemplate(c.value, fields) !== undefined);
    const actionWords = sayable.length > 0 ? wordSet([request.message, ...request.matched.map((m) => m.action)].join(' ')) : new Set();
    const overlap = new Map(sayable.map((c) => [c, [...wordSet(c.value)].filter((w) => actionWords.has(w)).length]));
    const usable = sayable
      .sort((a, b) => (overlap.get(b) ?? 0) - (overlap.get(a) ?? 0) || a.id.localeCompare(b.id))
      .slice(0, MAX_TEMPLATES);
    const capabilities = this.relevantCapabilities(request);
    const input: ComposeReplyInput = {
      agentName: request.agent.name,
      message: request.message,
      matched: request.clarification ? [] : request.matched,
      history: request.history,
      composition_mode: mode,
      ...(mode !== 'fluid' ? { canned_responses: usable, field_values: fields } : {}),
      ...(request.terms?.length ? { terms: request.terms } : {}),
      ...(request.disambiguation ? { disambiguation: request.disambiguation } : {}),
      // An unclear intent is asked about like a disambiguation: which of these (customer words) is meant.
      ...(request.clarification
        ? {
            disambiguation: {
              candidates: request.clarification.alternatives.map((words, i) => ({
                guideline_id: `intent-choice-${i + 1}`,
                condition: words,
              })),
            },
          }
        : {}),
      ...(capabilities.length > 0 ? { capabilities: capabilities.map(({ title, description }) => ({ title, description })) } : {}),
      ...(request.tool_results?.length ? { tool_results: request.tool_results } : {}),
      ...(request.facts?.length ? { facts: request.facts.map(({ subject, predicate, object }) => ({ subject, predicate, object })) } : {}),
      ...(request.knowledge?.length
        ? { knowledge: request.knowledge.map((k) => ({ chunk_id: k.chunk_id, title: k.title, heading: k.heading, text: k.chunk_text })) }
        : {}),
    };
    const { agent } = request;
    const composeOptions = {
      ...(agent.description ? { agentDescription: agent.description } : {}),
      ...(agentInstructions(agent.system_prompt, agent.soul) ? { systemPrompt: agentInstructions(agent.system_prompt, agent.soul) } : {}),
      ...(agent.max_tokens !== undefined ? { maxTokens: agent.max_tokens } : {}),
    };
    const [temperature, repairTemperature] = composeTemperatures(agent.temperature);
    const call = composeReplyRequest(input, { purpose: 'compose_reply', sessionId: request.session_id, agentId: agent.id }, composeOptions);
    const { response } = await generateWithRecovery<ComposeReplyInput, ComposeReplyOutput>(
      provider,
      { ...call, temperature: temperature ?? 0.3, ...(options.signal ? { signal: options.signal } : {}) },
      repairTemperature,
    ).catch((error: unknown) => {
      throw failedWithCalls(error, 'compose_reply', []);
    });
    const chosen = usable.find((c) => c.id === response.value.canned_response_id);
    let message = response.value.message;
    if (mode === 'strict_canned') {
      // Strict: the customer hears a template (fields filled in) or the no-match message — never free text.
      message = chosen ? (renderTemplate(chosen.value, fields) ?? '') : (request.no_match_message ?? DEFAULT_NO_MATCH_MESSAGE);
    } else if (chosen && mode === 'canned_fluid') {
      message = renderTemplate(chosen.value, fields) ?? message;
    }
    const matchedIds = new Set(request.matched.map((m) => m.guideline_id));
    // Only passages the reply was given can be cited (a model may echo an id from elsewhere); strict mode's
    // templates say nothing from the passages.
    const chunkIds = new Set((request.knowledge ?? []).map((k) => k.chunk_id));
    const citedChunks = mode === 'strict_canned' ? [] : [...new Set(response.value.cited_chunk_ids ?? [])].filter((id) => chunkIds.has(id));
    return {
      message,
      cited_guideline_ids: mode === 'strict_canned' && !chosen ? [] : response.value.cited_guideline_ids.filter((id) => matchedIds.has(id)),
      ...(chosen ? { canned_response_id: chosen.id } : {}),
      ...(capabilities.length > 0 ? { capability_ids: capabilities.map((c) => c.id) } : {}),
      ...(citedChunks.length > 0 ? { cited_chunk_ids: citedChunks } : {}),
      usage: usageOf('compose_reply', response),
      ...(response.billedBefore?.length ? { calls: usagesOf('compose_reply', response) } : {}),
      served_by: replica,
    };
  }
}
