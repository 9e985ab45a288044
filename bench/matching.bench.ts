/**
 * `npm run bench:matching`: how the guideline matcher's cost grows with the agent, and how much the embedding
 * prefilter loses. No services needed; about 45 seconds.
 *
 * 1. Cost per turn at 10, 100 and 1000 guidelines (bench/matching-fixtures.ts `agentOfSize`): the engine the
 *    matcher service runs (`GuidelineMatcher`, built as `GuidelineMatcherModule` builds it) with a counting
 *    provider around the deterministic offline provider — matching calls and their prompt tokens as the
 *    provider reports them — and the offline embeddings of `createEmbeddingProvider({})`. One cold turn
 *    per size (it embeds the agent's guidelines), then BENCH_TURNS (default 30) warm turns with different
 *    customer messages, short histories and previously applied guidelines. Also at 1000: the same turns with
 *    the prefilter off (`prefilter_k` 1000), to show what `max_batches` does with everything, with an
 *    embedding provider that always fails (the prefilter ranks lexically and the turns go on), and with each
 *    single-signal ranking (`TENET_PREFILTER_RANKING=embedding`, `lexical`; the default is `hybrid`). The BM25
 *    index's own cost: building it for 1000 guidelines, hashing the candidate set for the cache key, scoring a
 *    query against the cached index, and its heap.
 *    Then the always-keep cap: a 1000-guideline agent with 400 high-criticality guidelines, cap on (default)
 *    and off. Then intents (ADR 0031): 100 guidelines with 0, 10 and 100 intents (bench/matching-fixtures.ts
 *    `generatedIntents`) classified in the same call — calls per turn and prompt tokens against the row without.
 *    Writes docs/benchmarks/matching.json (the cost rows) and docs/benchmarks/matching-details.json (the cap, the
 *    recall rows below and the engine check).
 * 2. The prefilter's recall on the labelled set (bench/matching-fixtures.ts `labelledMessages`, in the 100- and
 *    1000-guideline agents): `prefilterCandidates` with the engine's query, cosines, BM25 scores and their fusion
 *    (`hybridSimilarity`), k = 10, 20, 40, 80, the always-keep rules off, on (capped, as the engine does) and on
 *    without the cap; for the engine's hybrid ranking, embedding alone and BM25 alone; the embedding ranking with
 *    the earlier query (the last two turns and the message as one text) and the message alone; the query
 *    expanded with a glossary; and the fusion variants the hybrid was chosen from (reciprocal rank fusion with
 *    c = 1 to 60, ties at their mean or first position; weighted sums of max- or min-max-normalised scores with
 *    the embedding at 0.25, 0.5, 0.75). The
 *    misses at the default k with their rank under each signal and the topic terms the message shares with the
 *    guideline. Checked against the engine: at k = 40 the guidelines the engine sends to the LLM are exactly the
 *    ones `prefilterCandidates` keeps here, for each ranking (hybrid, embedding, lexical) and with failing
 *    embeddings (lexical). And the three rankings again with every id renamed to a hash of itself, because ties
 *    are broken by id and the support guidelines' ids sort before the generated ones'. BENCH_RECALL_JSON=<file> writes the recall details to a file.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ComposeReplyRequestV1, ExtractContextRequestV1, MatchGuidelinesReplyV1, MatchGuidelinesRequestV1 } from '@tenet/contracts';
import { InMemoryEventStore } from '@tenet/event-store';
import { CustomerMemoryStore, KnowledgeService, recall, SqliteKnowledgeIndex } from '@tenet/memory-service';
import {
  createEmbeddingProvider,
  EXTRACT_CONTEXT,
  MATCH_GUIDELINES,
  OfflineProvider,
  type EmbeddingProvider,
  type GlossaryTerm,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
  type MatchGuidelinesInput,
} from '@tenet/llm';
import {
  cosineSimilarity,
  prefilterCandidates,
  type GuidelineRelationship,
  type KeptBecause,
  type MatchableGuideline,
} from '@tenet/matching-domain';
import { terms } from '../libs/platform/llm/src/offline/lexicon.js';
import { ContextExtractor } from '../libs/matching/service/src/context-extractor.js';
import { EmbeddingCache } from '../libs/matching/service/src/embedding-cache.js';
import {
  budgetCap,
  DEFAULT_MATCHING_SETTINGS,
  GuidelineMatcher,
  guidelineTokens,
  toolTextLengths,
} from '../libs/matching/service/src/guideline-matcher.js';
import { hybridSimilarity, reciprocalRankFusion, weightedScoreFusion } from '../libs/matching/service/src/hybrid-ranking.js';
import { LexicalIndexCache } from '../libs/matching/service/src/lexical-index-cache.js';
import { LexicalIndex } from '../libs/matching/domain/src/lexical-ranking.js';
import type { GuidelineMatcherOptions } from '../libs/matching/service/src/matcher-options.js';
import { combineQueryVectors, prefilterQuery } from '../libs/matching/service/src/prefilter-query.js';
import { ProviderRegistry } from '../libs/matching/service/src/provider-registry.js';
import type { StoredEvent } from '@tenet/event-store';
import type { JourneyRecord } from '@tenet/catalog-data-access';
import { JourneyTurn } from '@tenet/journeys-client';
import {
  agentOfSize,
  agentWithManyCritical,
  generatedGuideline,
  generatedIntents,
  guidelineOf,
  FailingEmbeddings,
  labelledMessages,
  supportGlossary,
  type BenchAgent,
  type LabelledMessage,
} from './matching-fixtures.js';

/** Counts the matching calls and their prompt tokens, and remembers which guidelines each call was sent. */
class CountingProvider implements LlmProvider {
  readonly name: string;
  readonly model: string;
  calls = 0;
  promptTokens = 0;
  sent: string[] = [];
  constructor(private readonly inner: LlmProvider) {
    this.name = inner.name;
    this.model = inner.model;
  }
  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const response = await this.inner.generate<I, O>(request);
    if (request.task.kind === MATCH_GUIDELINES) {
      this.calls += 1;
      this.promptTokens += response.usage.inputTokens;
      this.sent.push(...(request.task.input as MatchGuidelinesInput).guidelines.map((g) => g.id));
    }
    return response;
  }
  reset(): void {
    this.calls = 0;
    this.promptTokens = 0;
    this.sent = [];
  }
}

const TURNS = Number(process.env['BENCH_TURNS'] ?? 30);
const SIZES = [10, 100, 1000];
/** The figures for Parlant: about one call per guideline up to 10, 20 at 100, about 200 at 1000. */
const PARLANT_CALLS: Record<number, number> = { 10: 10, 100: 20, 1000: 200 };
const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

const quiet = { warn: () => undefined };

interface MatcherSetup {
  embeddings?: EmbeddingProvider;
  options?: GuidelineMatcherOptions;
}

function newMatcher(setup: MatcherSetup = {}): { matcher: GuidelineMatcher; counting: CountingProvider } {
  const counting = new CountingProvider(new OfflineProvider());
  // As GuidelineMatcherModule.forRoot builds it, with the offline embeddings an empty environment selects, the
  // default cache and matcher options (not read from this shell's environment), and a quiet log.
  const embeddings = new EmbeddingCache(setup.embeddings ?? createEmbeddingProvider({}), {});
  return { matcher: new GuidelineMatcher(new ProviderRegistry(counting), embeddings, { logger: quiet, ...setup.options }), counting };
}

function requestFor(
  agent: BenchAgent,
  turn: LabelledMessage,
  sessionId: string,
  settings?: MatchGuidelinesRequestV1['settings'],
  glossary?: GlossaryTerm[],
  intents?: MatchGuidelinesRequestV1['intents'],
): MatchGuidelinesRequestV1 {
  const ids = new Set(agent.guidelines.map((g) => g.id));
  const applied = (turn.applied ?? []).filter((id) => ids.has(id));
  return {
    session_id: sessionId,
    agent: { id: 'bench-agent', name: 'Ada' },
    message: turn.message,
    history: turn.history,
    guidelines: agent.guidelines,
    ...(applied.length > 0 ? { previously_applied: applied } : {}),
    ...(agent.relationships.length > 0 ? { relationships: agent.relationships } : {}),
    ...(agent.tools.length > 0 ? { tools: agent.tools } : {}),
    ...(settings ? { settings } : {}),
    ...(glossary ? { terms: glossary } : {}),
    ...(intents?.length ? { intents } : {}),
  };
}

/** Turn i of a size's run: a different labelled message each time while i < the set's size (3 is coprime to 80). */
const turnMessage = (i: number): LabelledMessage => labelledMessages[(i * 3) % labelledMessages.length]!;

interface TurnStats {
  calls: number;
  tokens: number;
  ms: number;
  embedCalls: number;
  kept: number;
  alwaysKept: number;
  droppedByCap: number;
  degraded: boolean;
}

async function timedTurn(
  matcher: GuidelineMatcher,
  counting: CountingProvider,
  request: MatchGuidelinesRequestV1,
): Promise<TurnStats & { reply: MatchGuidelinesReplyV1 }> {
  counting.reset();
  const started = performance.now();
  const reply = await matcher.match(request);
  const ms = performance.now() - started;
  const prefilter = (reply.provenance?.['prefilter'] ?? {}) as {
    kept?: number;
    reasons?: Record<string, number>;
    always_keep_cap?: { dropped: number };
    degraded?: unknown;
  };
  const reasons = prefilter.reasons ?? {};
  return {
    reply,
    calls: counting.calls,
    tokens: counting.promptTokens,
    ms,
    embedCalls: (reply.calls ?? []).filter((call) => call.purpose === 'embed').length,
    kept: prefilter.kept ?? request.guidelines.length,
    alwaysKept: Object.entries(reasons).reduce((sum, [reason, count]) => sum + (reason === 'similarity' ? 0 : count), 0),
    droppedByCap: prefilter.always_keep_cap?.dropped ?? 0,
    degraded: prefilter.degraded !== undefined,
  };
}

async function measure(
  n: number,
  settings?: MatchGuidelinesRequestV1['settings'],
  setup: MatcherSetup = {},
  agent: BenchAgent = agentOfSize(n),
  intents?: MatchGuidelinesRequestV1['intents'],
): Promise<Record<string, unknown>> {
  const { matcher, counting } = newMatcher(setup);
  const cold = await timedTurn(matcher, counting, requestFor(agent, turnMessage(TURNS), `bench-${n}-cold`, settings, undefined, intents));
  const embeddedCold = Number((cold.reply.provenance?.['prefilter'] as { embedded_now?: number } | undefined)?.embedded_now ?? 0);
  const turns: TurnStats[] = [];
  for (let i = 0; i < TURNS; i++)
    turns.push(await timedTurn(matcher, counting, requestFor(agent, turnMessage(i), `bench-${n}-${i}`, settings, undefined, intents)));
  const batches = turns.map((t) => t.calls);
  return {
    guidelines: n,
    llm_calls_per_turn: round(mean(batches)),
    llm_calls_max: Math.max(...batches),
    prompt_tokens_per_turn: Math.round(mean(turns.map((t) => t.tokens))),
    prompt_tokens_max: Math.max(...turns.map((t) => t.tokens)),
    p50_ms: round(
      percentile(
        turns.map((t) => t.ms),
        50,
      ),
    ),
    p99_ms: round(
      percentile(
        turns.map((t) => t.ms),
        99,
      ),
    ),
    embedding_calls_per_turn: round(mean(turns.map((t) => t.embedCalls))),
    guidelines_sent_per_turn: round(mean(turns.map((t) => t.kept)), 1),
    always_kept_per_turn: round(mean(turns.map((t) => t.alwaysKept)), 1),
    dropped_by_cap_per_turn: round(mean(turns.map((t) => t.droppedByCap)), 1),
    degraded_turns: turns.filter((t) => t.degraded).length,
    cold_first_turn_ms: round(cold.ms),
    cold_first_turn_embedded_texts: embeddedCold,
    turns: TURNS,
  };
}

// JIT warm-up on a throwaway matcher, so the first size's cold turn measures embedding, not compilation.
{
  const { matcher } = newMatcher();
  const agent = agentOfSize(200);
  for (let i = 0; i < 20; i++) await matcher.match(requestFor(agent, turnMessage(i), `warmup-${i}`));
}

const brief = (r: Record<string, unknown>) => ({
  llm_calls_per_turn: r['llm_calls_per_turn'],
  llm_calls_max: r['llm_calls_max'],
  prompt_tokens_per_turn: r['prompt_tokens_per_turn'],
  prompt_tokens_max: r['prompt_tokens_max'],
  guidelines_sent_per_turn: r['guidelines_sent_per_turn'],
  always_kept_per_turn: r['always_kept_per_turn'],
  dropped_by_cap_per_turn: r['dropped_by_cap_per_turn'],
  degraded_turns: r['degraded_turns'],
  p50_ms: r['p50_ms'],
  p99_ms: r['p99_ms'],
});

const rows: Record<string, unknown>[] = [];
for (const n of SIZES) {
  const row = { ...(await measure(n)), parlant_calls_reference: PARLANT_CALLS[n] };
  if (n === 1000) {
    const all = await measure(n, { prefilter_k: 1000 });
    const failing = await measure(n, undefined, { embeddings: new FailingEmbeddings() });
    const embeddingOnly = await measure(n, undefined, { options: { ranking: 'embedding' } });
    const lexicalOnly = await measure(n, undefined, { options: { ranking: 'lexical' } });
    Object.assign(row, {
      without_prefilter: brief(all),
      embeddings_failing: brief(failing),
      embedding_ranking: brief(embeddingOnly),
      lexical_ranking: brief(lexicalOnly),
    });
  }
  rows.push(row);
  console.log(JSON.stringify(row));
}

// Intents ride in the matching call (ADR 0031): 100 guidelines with 0, 10 and 100 intents — the calls per turn
// must not change and the prompt tokens stay within 1.3× of the row without intents (the intent prefilter keeps 8).
const intentRows: Record<string, unknown>[] = [];
for (const count of [0, 10, 100]) {
  const row = await measure(100, undefined, {}, agentOfSize(100), generatedIntents(count));
  intentRows.push({ guidelines: 100, intents: count, ...brief(row) });
}
const intentBase = intentRows[0]!;
for (const row of intentRows)
  row['prompt_tokens_vs_no_intents'] = round(Number(row['prompt_tokens_per_turn']) / Number(intentBase['prompt_tokens_per_turn']));
console.log(JSON.stringify({ intent_rows: intentRows }));
const intentCallsSame = intentRows.every(
  (r) => r['llm_calls_per_turn'] === intentBase['llm_calls_per_turn'] && r['llm_calls_max'] === intentBase['llm_calls_max'],
);
const intentTokens = Math.max(...intentRows.map((r) => Number(r['prompt_tokens_vs_no_intents'])));
console.log(`target: LLM calls per turn unchanged with 10 and 100 intents: ${intentCallsSame ? 'met' : 'NOT met'}`);
console.log(`target: prompt tokens with intents ≤ 1.3× the row without: ${intentTokens <= 1.3 ? 'met' : 'NOT met'} (${intentTokens}×)`);

// The always-keep cap: 400 of 1000 guidelines high-criticality — the default (the call budget), a cap of 40
// (TENET_PREFILTER_ALWAYS_KEEP_CAP=40, the floor the default never goes below), and off.
const critical = agentWithManyCritical(1000, 400);
const capRows = {
  guidelines: 1000,
  high_criticality: critical.guidelines.filter((g) => g.criticality === 'high').length,
  cap_default: brief(await measure(1000, undefined, {}, critical)),
  cap_40: brief(await measure(1000, undefined, { options: { alwaysKeepCap: 40 } }, critical)),
  cap_off: brief(await measure(1000, undefined, { options: { alwaysKeepCap: Infinity } }, critical)),
};
console.log(JSON.stringify(capRows));
const tokensAt = (n: number): number => Number(rows.find((r) => r['guidelines'] === n)?.['prompt_tokens_per_turn'] ?? NaN);
const maxCalls = Math.max(...rows.map((r) => Number(r['llm_calls_max'])));
const growth = tokensAt(1000) / tokensAt(100);
console.log(
  `target: at most ${DEFAULT_MATCHING_SETTINGS.max_batches} matching calls per turn at every size: ${maxCalls <= DEFAULT_MATCHING_SETTINGS.max_batches ? 'met' : 'NOT met'} (max ${maxCalls})`,
);
console.log(`target: prompt tokens at 1000 ≤ 3× those at 100: ${growth <= 3 ? 'met' : 'NOT met'} (${round(growth)}×)`);

// The BM25 index's own cost at 1000 guidelines: what a turn paid before the cache (build + score), what it pays
// now (hash the candidate set for the key + score the query against the cached index).
const lexicalIndexCost = (() => {
  const documents = agentOfSize(1000).guidelines.map((g) => ({ id: g.id, text: `${g.condition}\n${g.action ?? ''}` }));
  const queries = labelledMessages.map((m) => prefilterQuery({ message: m.message, history: m.history }).parts);
  const timed = (work: (i: number) => unknown): number[] =>
    Array.from({ length: 200 }, (_, i) => {
      const started = performance.now();
      work(i);
      return performance.now() - started;
    });
  const index = new LexicalIndex(documents);
  const build = timed(() => new LexicalIndex(documents));
  const key = timed(() => LexicalIndexCache.keyOf(documents));
  const score = timed((i) => index.score(queries[i % queries.length]!));
  const summary = (ms: number[]) => ({ p50_ms: round(percentile(ms, 50), 3), p99_ms: round(percentile(ms, 99), 3) });
  // Heap per index, 20 indexes held: these guidelines, and the same with 8 words of their own each (a richer vocabulary).
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heapKb = (docs: typeof documents): { vocabulary: number; postings: number; heap_kb: number } => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const held = Array.from({ length: 20 }, () => new LexicalIndex(docs));
    gc();
    const kb = (process.memoryUsage().heapUsed - before) / held.length / 1024;
    return { vocabulary: held[0]!.vocabulary, postings: held[0]!.postings, heap_kb: Math.round(kb) };
  };
  const richer = documents.map((d, i) => ({ id: d.id, text: `${d.text} ${Array.from({ length: 8 }, (_, j) => `w${i}x${j}`).join(' ')}` }));
  return {
    guidelines: documents.length,
    vocabulary: index.vocabulary,
    postings: index.postings,
    build: summary(build),
    cache_key: summary(key),
    score_query: summary(score),
    repeats: build.length,
    memory: { these_guidelines: heapKb(documents), with_8_own_words_each: heapKb(richer) },
  };
})();
console.log(JSON.stringify({ lexical_index: lexicalIndexCost }));

// ---- 2. Prefilter recall on the labelled set ------------------------------------------------------------

const embedder = createEmbeddingProvider({});
const context = { purpose: 'bench' };
/** As the engine's cache stores them: Float32. */
const float32 = (vectors: number[][]): Float32Array[] => vectors.map((v) => Float32Array.from(v));
// The engine's texts: each guideline's condition and action; the query is the weighted parts of `prefilterQuery`.
const guidelineText = (g: MatchableGuideline): string => `${g.condition}\n${g.action ?? ''}`;
const queryOf = (m: LabelledMessage, glossary?: GlossaryTerm[]) =>
  prefilterQuery({ message: m.message, history: m.history, ...(glossary ? { terms: glossary } : {}) });
async function engineQueryVectors(glossary?: GlossaryTerm[]): Promise<number[][]> {
  const out: number[][] = [];
  for (const m of labelledMessages) {
    const q = queryOf(m, glossary);
    const vectors = float32(
      (
        await embedder.embed(
          q.parts.map((p) => p.text),
          context,
        )
      ).vectors,
    );
    out.push(combineQueryVectors(q.parts.map((p, i) => ({ weight: p.weight, vector: vectors[i]! }))));
  }
  return out;
}
/** The earlier engine's query (before the weighted parts): the last two turns and the message as one text. */
const joinedText = (m: LabelledMessage, withHistory = true): string =>
  [...(withHistory ? m.history.slice(-2).map((t) => t.content) : []), m.message].join('\n');
const queryVectors = await engineQueryVectors();
const glossaryVectors = await engineQueryVectors(supportGlossary);
const joinedVectors = float32(
  (
    await embedder.embed(
      labelledMessages.map((m) => joinedText(m)),
      context,
    )
  ).vectors,
);
const messageOnlyVectors = float32(
  (
    await embedder.embed(
      labelledMessages.map((m) => joinedText(m, false)),
      context,
    )
  ).vectors,
);
const relevantPairs = labelledMessages.reduce((sum, m) => sum + m.relevant.length, 0);
const KS = [10, 20, 40, 80];
const DEFAULT_K = DEFAULT_MATCHING_SETTINGS.prefilter_k;

type Scores = Map<string, number>;

interface Pool {
  agent: BenchAgent;
  /** The id a guideline has in this pool: itself, or a hash of it (`neutralIds`). */
  rename: (id: string) => string;
  candidates: MatchableGuideline[];
  /** The always-keep rules off: no criticality or continuity (and no relationships, nothing previously applied). */
  bare: MatchableGuideline[];
  relationships: GuidelineRelationship[];
  /** Per message, as the engine computes them: embedding cosines, BM25 scores, and their fusion (the default). */
  cosine: Scores[];
  lexical: Scores[];
  hybrid: Scores[];
  /** The same with the query expanded by the glossary. */
  glossaryCosine: Scores[];
  glossaryHybrid: Scores[];
  /** Embedding cosines with the earlier single-text query, and with the message alone. */
  joinedCosine: Scores[];
  messageOnlyCosine: Scores[];
}

/**
 * The engine breaks similarity ties by id, and the support guidelines' ids ("damaged", "discount", "frustrated")
 * sort before the generated ones ("gen-…"): a ranking that scores many candidates 0 — BM25, when the message
 * shares no word with most guidelines — fills its k with the support guidelines first, for free. A real agent's
 * ids (UUIDs) say nothing about relevance; renamed to a hash of themselves, they say nothing here either.
 */
const neutralId = (id: string): string => `g-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
function neutralIds(agent: BenchAgent): BenchAgent {
  const endpoint = <E extends { type: string; id: string }>(e: E): E => (e.type === 'guideline' ? { ...e, id: neutralId(e.id) } : e);
  return {
    ...agent,
    guidelines: agent.guidelines.map((g) => ({ ...g, id: neutralId(g.id) })),
    relationships: agent.relationships.map((r) => ({ ...r, source: endpoint(r.source), target: endpoint(r.target) })),
  };
}

async function poolOf(agent: BenchAgent, rename: (id: string) => string = (id) => id): Promise<Pool> {
  const candidates = agent.guidelines.map((g): MatchableGuideline => ({ ...g }));
  const embedded = float32((await embedder.embed(candidates.map(guidelineText), context)).vectors);
  const index = new LexicalIndex(candidates.map((g) => ({ id: g.id, text: guidelineText(g) })));
  const cosinesTo = (queries: readonly (readonly number[] | Float32Array)[]): Scores[] =>
    queries.map((q) => new Map(candidates.map((g, i) => [g.id, cosineSimilarity(q, embedded[i]!)])));
  const cosine = cosinesTo(queryVectors);
  const lexical = labelledMessages.map((m) => index.score(queryOf(m).parts));
  const glossaryCosine = cosinesTo(glossaryVectors);
  return {
    agent,
    rename,
    candidates,
    bare: candidates.map((g): MatchableGuideline => ({ ...g, criticality: undefined, continuous: undefined })),
    relationships: agent.relationships as GuidelineRelationship[],
    cosine,
    lexical,
    hybrid: cosine.map((c, i) => hybridSimilarity(c, lexical[i]!)),
    glossaryCosine,
    glossaryHybrid: glossaryCosine.map((c, i) => hybridSimilarity(c, index.score(queryOf(labelledMessages[i]!, supportGlossary).parts))),
    joinedCosine: cosinesTo(joinedVectors),
    messageOnlyCosine: cosinesTo(messageOnlyVectors),
  };
}

/** The engine's default cap for this pool at `k` (the call budget of the default settings). */
const engineCap = (pool: Pool, k: number): number => {
  const toolText = toolTextLengths(pool.agent.tools);
  return budgetCap(pool.candidates, { ...DEFAULT_MATCHING_SETTINGS, prefilter_k: k }, (g) => guidelineTokens(g, toolText));
};
const keptWithRules = (pool: Pool, i: number, k: number, similarity: Scores, alwaysKeepCap?: number) =>
  prefilterCandidates({
    candidates: pool.candidates,
    similarity,
    k,
    alwaysKeep: { previouslyApplied: (labelledMessages[i]!.applied ?? []).map(pool.rename), relationships: pool.relationships },
    alwaysKeepCap: alwaysKeepCap ?? engineCap(pool, k),
  });
const keptBare = (pool: Pool, k: number, similarity: Scores) => prefilterCandidates({ candidates: pool.bare, similarity, k });
const rankIn = (scores: Scores, id: string): number => {
  const own = scores.get(id) ?? 0;
  let above = 0;
  for (const [other, s] of scores) if (s > own || (s === own && other.localeCompare(id) < 0)) above += 1;
  return above + 1;
};

/**
 * Recall of one ranking (one score map per message) at `k`: similarity only and with the always-keep rules (as
 * the engine); `halves` counts the pairs kept with the rules in the even- and odd-numbered messages (44 pairs
 * each), to see whether a variant's lead holds in both halves of the set or comes from a few messages.
 */
function recallPair(pool: Pool, k: number, ranking: (i: number) => Scores): { off: number; on: number; halves: [number, number] } {
  let off = 0;
  let on = 0;
  const halves: [number, number] = [0, 0];
  labelledMessages.forEach((m, i) => {
    const bare = keptBare(pool, k, ranking(i));
    const withRules = keptWithRules(pool, i, k, ranking(i));
    for (const id of m.relevant.map(pool.rename)) {
      if (bare.reasons.has(id)) off += 1;
      if (withRules.reasons.has(id)) {
        on += 1;
        halves[i % 2 === 0 ? 0 : 1] += 1;
      }
    }
  });
  return { off: round(off / relevantPairs, 3), on: round(on / relevantPairs, 3), halves };
}

/**
 * The fusion variants the hybrid was chosen from (docs/benchmarks.md): reciprocal rank with c from 1 to 60 (3 is
 * the matcher's `HYBRID_RRF_C`, 60 the literature's), ties at their mean position (the matcher's) or their first;
 * weighted sums, max- or min-max-normalised, with the embedding at 0.25, 0.5 and 0.75; and each signal alone.
 */
const FUSIONS: Record<string, (embedding: Scores, lexical: Scores) => Scores> = {
  ...Object.fromEntries(
    [1, 3, 6, 10, 30, 60].map((c) => [`rrf_c${c}`, (e: Scores, l: Scores) => reciprocalRankFusion([{ scores: e }, { scores: l }], c)]),
  ),
  ...Object.fromEntries(
    [3, 60].map((c) => [
      `rrf_c${c}_competition_ties`,
      (e: Scores, l: Scores) => reciprocalRankFusion([{ scores: e }, { scores: l }], c, 'min'),
    ]),
  ),
  ...Object.fromEntries(
    (['max', 'min-max'] as const).flatMap((normalisation) =>
      [0.25, 0.5, 0.75].map((w) => [
        `${normalisation === 'max' ? 'weighted' : 'minmax'}_embedding_${w}`,
        (e: Scores, l: Scores) =>
          weightedScoreFusion(
            [
              { scores: e, weight: w },
              { scores: l, weight: 1 - w },
            ],
            normalisation,
          ),
      ]),
    ),
  ),
  embedding_alone: (e) => e,
  lexical_alone: (_e, l) => l,
};

function recallOf(pool: Pool, k: number, misses?: Record<string, unknown>[]): Record<string, unknown> {
  const count = { off: 0, on: 0, uncapped: 0, capped40: 0 };
  let sent = 0;
  let sentUncapped = 0;
  let dropped = 0;
  const savedBy: Partial<Record<KeptBecause, number>> = {};
  labelledMessages.forEach((m, i) => {
    const off = keptBare(pool, k, pool.hybrid[i]!);
    const on = keptWithRules(pool, i, k, pool.hybrid[i]!);
    const uncapped = keptWithRules(pool, i, k, pool.hybrid[i]!, Infinity);
    const capped40 = keptWithRules(pool, i, k, pool.hybrid[i]!, 40);
    sent += on.kept.length;
    sentUncapped += uncapped.kept.length;
    dropped += on.cap.dropped.length;
    for (const id of m.relevant) {
      if (off.reasons.has(id)) count.off += 1;
      if (uncapped.reasons.has(id)) count.uncapped += 1;
      if (capped40.reasons.has(id)) count.capped40 += 1;
      const reason = on.reasons.get(id);
      if (reason) {
        count.on += 1;
        if (reason !== 'similarity') savedBy[reason] = (savedBy[reason] ?? 0) + 1;
      } else if (misses) {
        const guidelineTerms = new Set(terms(guidelineText(pool.candidates.find((g) => g.id === id)!)));
        misses.push({
          message: m.message,
          ...(m.history.length > 0 ? { history: m.history.map((t) => `${t.role}: ${t.content}`) } : {}),
          guideline: id,
          rank: rankIn(pool.hybrid[i]!, id),
          embedding_rank: rankIn(pool.cosine[i]!, id),
          lexical_rank: (pool.lexical[i]!.get(id) ?? 0) > 0 ? rankIn(pool.lexical[i]!, id) : null,
          shared_terms: [...new Set(queryOf(m).parts.flatMap((p) => terms(p.text)))].filter((t) => guidelineTerms.has(t)),
        });
      }
    }
  });
  const recall = (n: number): number => round(n / relevantPairs, 3);
  const pair = (ranking: (i: number) => Scores) => recallPair(pool, k, ranking);
  const embedding = pair((i) => pool.cosine[i]!);
  const lexical = pair((i) => pool.lexical[i]!);
  const glossary = pair((i) => pool.glossaryHybrid[i]!);
  const glossaryEmbedding = pair((i) => pool.glossaryCosine[i]!);
  return {
    guidelines: pool.candidates.length,
    high_criticality: pool.candidates.filter((g) => g.criticality === 'high').length,
    k,
    ranking: 'hybrid',
    recall_similarity_only: recall(count.off),
    recall_with_always_keep: recall(count.on),
    recall_always_keep_uncapped: recall(count.uncapped),
    recall_always_keep_cap_40: recall(count.capped40),
    always_keep_cap_default: engineCap(pool, k),
    recall_embedding_similarity_only: embedding.off,
    recall_embedding_with_always_keep: embedding.on,
    recall_lexical_similarity_only: lexical.off,
    recall_lexical_with_always_keep: lexical.on,
    recall_previous_query_similarity_only: pair((i) => pool.joinedCosine[i]!).off,
    recall_message_only_query: pair((i) => pool.messageOnlyCosine[i]!).off,
    recall_glossary_similarity_only: glossary.off,
    recall_glossary_with_always_keep: glossary.on,
    recall_glossary_embedding_similarity_only: glossaryEmbedding.off,
    recall_glossary_embedding_with_always_keep: glossaryEmbedding.on,
    saved_only_by_always_keep: Object.values(savedBy).reduce((x, y) => x + y, 0),
    saved_by: savedBy,
    guidelines_sent_per_turn: round(sent / labelledMessages.length, 1),
    guidelines_sent_per_turn_uncapped: round(sentUncapped / labelledMessages.length, 1),
    dropped_by_cap_per_turn: round(dropped / labelledMessages.length, 1),
  };
}

const pools = [await poolOf(agentOfSize(100)), await poolOf(agentOfSize(1000)), await poolOf(critical)];
const recallRows: Record<string, unknown>[] = [];
const misses: Record<string, unknown>[] = [];
for (const [p, pool] of pools.entries()) {
  for (const k of p === 2 ? [DEFAULT_K] : KS) {
    recallRows.push(recallOf(pool, k, p === 1 && k === DEFAULT_K ? misses : undefined));
    console.log(JSON.stringify(recallRows.at(-1)));
  }
}
// The fusion variants, in the 100- and 1000-guideline agents at every k (similarity only / with always-keep).
const fusionRows: Record<string, unknown>[] = [];
for (const pool of pools.slice(0, 2)) {
  for (const k of KS) {
    const row: Record<string, unknown> = { guidelines: pool.candidates.length, k };
    for (const [name, fuse] of Object.entries(FUSIONS)) {
      const fused = labelledMessages.map((_, i) => fuse(pool.cosine[i]!, pool.lexical[i]!));
      const { off, on, halves } = recallPair(pool, k, (i) => fused[i]!);
      row[name] = { off, on, on_halves: halves };
    }
    fusionRows.push(row);
    console.log(JSON.stringify(row));
  }
}
// The same recall with ids that say nothing (see `neutralIds`), for each ranking, in the 100- and 1000-guideline agents.
const neutralRows: Record<string, unknown>[] = [];
for (const size of [100, 1000]) {
  const neutral = await poolOf(neutralIds(agentOfSize(size)), neutralId);
  for (const k of KS) {
    const row: Record<string, unknown> = { guidelines: size, k };
    for (const [name, ranking] of [
      ['hybrid', (i: number) => neutral.hybrid[i]!],
      ['embedding', (i: number) => neutral.cosine[i]!],
      ['lexical', (i: number) => neutral.lexical[i]!],
    ] as const) {
      const { off, on } = recallPair(neutral, k, ranking);
      row[name] = { off, on };
    }
    neutralRows.push(row);
    console.log(JSON.stringify(row));
  }
}
const pool = pools[1]!;
console.log(`labelled set: ${labelledMessages.length} messages, ${relevantPairs} (message, relevant guideline) pairs`);
console.log(`misses at k = ${DEFAULT_K} in 1000 guidelines with the always-keep rules on: ${misses.length}`);
for (const miss of misses) console.log(`  ${JSON.stringify(miss)}`);

// The recall above replays the engine's prefilter; check that it is the engine's: same guidelines sent to the LLM,
// for each ranking, and with failing embeddings (the lexical fallback of the default hybrid ranking).
const engineCheck: Record<string, string> = {};
const CHECKS: { mode: string; setup: MatcherSetup; replay: (i: number) => Scores }[] = [
  { mode: 'hybrid', setup: {}, replay: (i) => pool.hybrid[i]! },
  { mode: 'embedding', setup: { options: { ranking: 'embedding' } }, replay: (i) => pool.cosine[i]! },
  { mode: 'lexical', setup: { options: { ranking: 'lexical' } }, replay: (i) => pool.lexical[i]! },
  { mode: 'hybrid, embeddings failing', setup: { embeddings: new FailingEmbeddings() }, replay: (i) => pool.lexical[i]! },
];
for (const { mode, setup, replay } of CHECKS) {
  const { matcher, counting } = newMatcher(setup);
  let agree = 0;
  for (const [i, m] of labelledMessages.entries()) {
    counting.reset();
    await matcher.match(requestFor(pool.agent, m, `recall-${mode}-${i}`));
    const on = keptWithRules(pool, i, DEFAULT_K, replay(i));
    const engine = [...counting.sent].sort().join(',');
    if (
      engine ===
      on.kept
        .map((g) => g.id)
        .sort()
        .join(',')
    )
      agree += 1;
    else console.log(`  ${mode}: engine differs for "${m.message}"`);
  }
  engineCheck[mode] = `${agree}/${labelledMessages.length}`;
  console.log(
    `engine check (${mode}): the engine sent exactly the replayed prefilter's guidelines for ${agree}/${labelledMessages.length} messages`,
  );
}

// Journeys (ADR 0011): 0, 10 and 100 journeys on the 100-guideline agent. Each journey adds its condition guideline
// (tagged `journey:<id>`, as the gateway sends it) and, for the one journey the session is in, the pending transition
// conditions of its current step and the branches not taken — built by the gateway's own JourneyTurn from recorded
// `journey_transition` records, with `active_journey` set. Journeys must not add matching calls, and tokens must
// grow sub-linearly: condition guidelines go through the same prefilter as any guideline.
const journeyRecord = (i: number): JourneyRecord => {
  const topic = generatedGuideline((i * 7) % 900);
  return {
    id: `journey-${i}`,
    title: `Journey ${i}`,
    description: `Walk the customer through ${topic.condition.toLowerCase()}`,
    conditions: [`journey-${i}-condition`],
    tags: [],
    labels: [],
    priority: 0,
    steps: [
      {
        id: 'ask',
        name: 'ask',
        kind: 'chat',
        instruction: `Ask for the reference of the ${i}th request`,
        required_context: [],
        guidelines: [],
      },
      {
        id: 'fork',
        name: 'fork',
        kind: 'fork',
        instruction: 'Ask whether they want to continue or cancel',
        required_context: [],
        guidelines: [],
      },
      { id: 'go', name: 'go', kind: 'chat', instruction: 'Confirm the request', required_context: [], guidelines: [] },
      { id: 'stop', name: 'stop', kind: 'chat', instruction: 'Cancel the request', required_context: [], guidelines: [] },
      { id: 'done', name: 'done', kind: 'final', required_context: [], guidelines: [] },
    ],
    transitions: [
      { from: 'ask', to: 'fork', condition: `The customer gave the reference of request ${i}`, priority: 0 },
      { from: 'fork', to: 'go', condition: 'The customer wants to continue', priority: 0 },
      { from: 'fork', to: 'stop', condition: 'The customer wants to cancel', priority: 0 },
      { from: 'go', to: 'done', priority: 0 },
      { from: 'stop', to: 'done', priority: 0 },
    ],
    initial_step: 'ask',
    timeouts: { abandon_after_secs: 1800, expire_after_secs: 86400 },
    creation_utc: '2026-11-26T00:00:00.000Z',
    modified_utc: '2026-11-26T00:00:00.000Z',
  };
};
/** The session is in journey 0, past its fork (so it has a pending condition-less step and a branch not taken). */
const inJourney = (journeyId: string): StoredEvent[] =>
  [
    { event: 'journey_activated', journeyId, sessionId: 's', step: 'ask', resumed: false, at: 1 },
    { event: 'journey_transitioned', journeyId, from: 'ask', to: 'fork', cause: 'condition', context: {}, at: 2 },
  ].map(({ event, ...data }, offset) => ({
    id: `e${offset}`,
    streamId: 'session-s',
    offset,
    position: offset + 1,
    type: 'journey_transition',
    data: { session_id: 's', source: 'system', correlation_id: 'c', data: { ...data, event, journey_id: journeyId } },
    metadata: {},
    recordedAt: '2026-11-26T00:00:00.000Z',
  })) as StoredEvent[];
const journeyRows: Record<string, unknown>[] = [];
for (const count of [0, 10, 100]) {
  const base = agentOfSize(100);
  const records = Array.from({ length: count }, (_, i) => journeyRecord(i));
  const turn = count > 0 ? new JourneyTurn('s', records, inJourney('journey-0'), undefined as never, undefined as never) : undefined;
  const conditionGuidelines = records.map((r, i) => ({
    ...guidelineOf(
      `journey-${i}-condition`,
      `The customer wants help with request ${i}: ${generatedGuideline((i * 7) % 900).condition.toLowerCase()}`,
    ),
    tags: [`journey:${r.id}`],
  }));
  const agent: BenchAgent = {
    ...base,
    guidelines: [...base.guidelines, ...conditionGuidelines, ...((turn?.guidelines() ?? []) as BenchAgent['guidelines'])],
  };
  const { matcher, counting } = newMatcher();
  const stats: TurnStats[] = [];
  for (let i = 0; i <= TURNS; i++) {
    const request = {
      ...requestFor(agent, turnMessage(i), `journeys-${count}-${i}`),
      ...(turn?.activeJourney ? { active_journey: turn.activeJourney } : {}),
    };
    const t = await timedTurn(matcher, counting, request);
    if (i > 0) stats.push(t); // the first turn embeds the agent (cold)
  }
  const row = {
    dimension: 'journeys',
    guidelines: 100,
    journeys: count,
    journey_guidelines_added: agent.guidelines.length - base.guidelines.length,
    llm_calls_per_turn: round(mean(stats.map((t) => t.calls))),
    llm_calls_max: Math.max(...stats.map((t) => t.calls)),
    prompt_tokens_per_turn: Math.round(mean(stats.map((t) => t.tokens))),
    guidelines_sent_per_turn: round(mean(stats.map((t) => t.kept)), 1),
    p50_ms: round(
      percentile(
        stats.map((t) => t.ms),
        50,
      ),
    ),
    turns: TURNS,
  };
  journeyRows.push(row);
  console.log(JSON.stringify(row));
}
{
  const at = (n: number): number => Number(journeyRows.find((r) => r['journeys'] === n)?.['prompt_tokens_per_turn'] ?? NaN);
  const maxJourneyCalls = Math.max(...journeyRows.map((r) => Number(r['llm_calls_max'])));
  console.log(
    `target: matching calls per turn with 0/10/100 journeys ≤ 3: ${maxJourneyCalls <= 3 ? 'met' : 'NOT met'} (max ${maxJourneyCalls}); prompt tokens 100 vs 10 journeys: ${round(at(100) / at(10))}× for 10× the journeys (${at(0)} with none)`,
  );
}
rows.push(...journeyRows);

// Memory (ADR 0017): a whole turn's LLM calls with extraction, memory and retrieval on — match (the engine above),
// one extract_context call for every extractable variable and the facts (the matcher's ContextExtractor), the
// memory store's recall (the customer's current facts from the event log and the agent's best knowledge chunks
// within the recall token budget; no LLM call) and compose with those facts and chunks — at 5 and 50 variables,
// 10 and 1000 stored facts, 10 and 1000 knowledge chunks, on the 100-guideline agent. Every call of every kind is
// counted with its prompt tokens. Target: ≤ 4 calls per turn, at most one of them extraction, at any size.
class AllCallsCounter implements LlmProvider {
  readonly name: string;
  readonly model: string;
  calls = new Map<string, { calls: number; tokens: number }>();
  constructor(private readonly inner: LlmProvider) {
    this.name = inner.name;
    this.model = inner.model;
  }
  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const response = await this.inner.generate<I, O>(request);
    const seen = this.calls.get(request.task.kind) ?? { calls: 0, tokens: 0 };
    this.calls.set(request.task.kind, { calls: seen.calls + 1, tokens: seen.tokens + response.usage.inputTokens });
    return response;
  }
  total(kind?: string): { calls: number; tokens: number } {
    const entries = kind ? [this.calls.get(kind) ?? { calls: 0, tokens: 0 }] : [...this.calls.values()];
    return entries.reduce((sum, e) => ({ calls: sum.calls + e.calls, tokens: sum.tokens + e.tokens }), { calls: 0, tokens: 0 });
  }
}
const memoryVariable = (i: number): ExtractContextRequestV1['variables'][number] => {
  const kinds = [
    ['order_number', 'The order number the customer mentions (digits)', 'String'],
    ['email', 'The customer email address', 'String'],
    ['full_name', 'The customer full name', 'String'],
    ['delivery_date', 'The date the customer wants delivery', 'Date'],
    ['quantity', 'How many items the customer wants', 'Number'],
  ] as const;
  const [name, prompt, type] = kinds[i % kinds.length]!;
  return { name: i < kinds.length ? name : `${name}_${i}`, extraction_prompt: prompt, data_type: type };
};
const memoryRows: Record<string, unknown>[] = [];
const MEMORY_TURNS = Math.min(TURNS, 20);
for (const [variables, facts, chunks] of [
  [5, 10, 10],
  [50, 10, 10],
  [5, 1000, 10],
  [5, 10, 1000],
  [50, 1000, 1000],
] as const) {
  const counter = new AllCallsCounter(new OfflineProvider());
  const embeddings = new EmbeddingCache(createEmbeddingProvider({}), {});
  const registry = new ProviderRegistry(counter);
  const matcher = new GuidelineMatcher(registry, embeddings, { logger: quiet });
  const extractor = new ContextExtractor(registry);
  const memory = new CustomerMemoryStore(new InMemoryEventStore());
  for (let i = 0; i < facts; i++)
    await memory.record('bench-customer', {
      subject: 'customer',
      predicate: `preference_${i}`,
      object: generatedGuideline(i % 900).condition,
      confidence: 0.9,
      source: { kind: 'import' },
    });
  const index = new SqliteKnowledgeIndex();
  const knowledge = new KnowledgeService(index, createEmbeddingProvider({}));
  for (let s = 0; s * 10 < chunks; s++) {
    const sections = Array.from({ length: Math.min(10, chunks - s * 10) }, (_, c) => generatedGuideline((s * 10 + c) % 900));
    await knowledge.ingest({
      sourceId: `doc-${s}`,
      title: `Handbook ${s}`,
      format: 'markdown',
      content: sections.map((g, c) => `## Topic ${s}.${c}\n\nWhen ${g.condition.toLowerCase()}: ${g.action ?? g.condition}.`).join('\n\n'),
    });
  }
  const agent = agentOfSize(100);
  const stats: {
    calls: number;
    extract: number;
    tokens: number;
    extractTokens: number;
    composeTokens: number;
    recalledFacts: number;
    recalledChunks: number;
  }[] = [];
  for (let i = 0; i <= MEMORY_TURNS; i++) {
    const turn = turnMessage(i);
    const sessionId = `memory-${variables}-${facts}-${chunks}-${i}`;
    counter.calls.clear();
    // As a turn runs them: match, extraction and recall side by side, then compose with what came back.
    const [matchReply, extracted, recalled] = await Promise.all([
      matcher.match(requestFor(agent, turn, sessionId)),
      extractor.extract({
        session_id: sessionId,
        agent: { id: 'bench-agent', name: 'Ada' },
        message: turn.message,
        history: turn.history,
        variables: Array.from({ length: variables }, (_, v) => memoryVariable(v)),
        facts: true,
      }),
      recall({ message: turn.message, customer_id: 'bench-customer', agent_id: 'bench-agent', session_id: sessionId }, memory, knowledge),
    ]);
    await matcher.compose({
      session_id: sessionId,
      agent: { id: 'bench-agent', name: 'Ada' },
      message: turn.message,
      history: turn.history,
      matched: matchReply.result.matches.filter((m) => m.action).map((m) => ({ guideline_id: m.guideline_id, action: m.action! })),
      facts: [...extracted.facts, ...recalled.facts]
        .slice(0, 200)
        .map(({ subject, predicate, object, confidence }) => ({ subject, predicate, object, confidence })),
      knowledge: recalled.sources,
    } as ComposeReplyRequestV1);
    if (i === 0) continue; // the first turn embeds the agent (cold)
    stats.push({
      calls: counter.total().calls,
      extract: counter.total(EXTRACT_CONTEXT).calls,
      tokens: counter.total().tokens,
      extractTokens: counter.total(EXTRACT_CONTEXT).tokens,
      composeTokens: counter.total('compose_reply').tokens,
      recalledFacts: recalled.facts.length,
      recalledChunks: recalled.sources.length,
    });
  }
  await index.close();
  const row = {
    dimension: 'memory',
    guidelines: 100,
    variables,
    facts,
    chunks,
    llm_calls_per_turn: round(mean(stats.map((t) => t.calls))),
    llm_calls_max: Math.max(...stats.map((t) => t.calls)),
    extraction_calls_max: Math.max(...stats.map((t) => t.extract)),
    prompt_tokens_per_turn: Math.round(mean(stats.map((t) => t.tokens))),
    extraction_prompt_tokens_per_turn: Math.round(mean(stats.map((t) => t.extractTokens))),
    compose_prompt_tokens_per_turn: Math.round(mean(stats.map((t) => t.composeTokens))),
    recalled_facts_per_turn: round(mean(stats.map((t) => t.recalledFacts)), 1),
    recalled_chunks_per_turn: round(mean(stats.map((t) => t.recalledChunks)), 1),
    turns: MEMORY_TURNS,
  };
  memoryRows.push(row);
  console.log(JSON.stringify(row));
}
{
  const maxCalls = Math.max(...memoryRows.map((r) => Number(r['llm_calls_max'])));
  const maxExtract = Math.max(...memoryRows.map((r) => Number(r['extraction_calls_max'])));
  console.log(
    `target: LLM calls per turn with extraction, memory and retrieval on ≤ 4, one extraction call at most: ${maxCalls <= 4 && maxExtract <= 1 ? 'met' : 'NOT met'} (max ${maxCalls} calls, ${maxExtract} extraction)`,
  );
}
rows.push(...memoryRows);

// The format: a list of { guidelines, llm_calls_per_turn, prompt_tokens_per_turn, p50_ms } (plus detail
// columns), one row per agent size. Everything else the run measured goes next to it.
writeFileSync(new URL('../docs/benchmarks/matching.json', import.meta.url), `${JSON.stringify(rows, null, 2)}\n`);
writeFileSync(
  new URL('../docs/benchmarks/matching-details.json', import.meta.url),
  `${JSON.stringify(
    {
      always_keep_cap: capRows,
      intents: { note: 'issue 24: 100 guidelines with 0, 10 and 100 intents classified in the same matching call', rows: intentRows },
      lexical_index: lexicalIndexCost,
      recall: recallRows,
      neutral_ids: {
        note: 'recall (similarity only / with always-keep) with every guideline id renamed to a hash of itself, so that ties broken by id favour no guideline',
        rows: neutralRows,
      },
      fusion_variants: {
        note: 'recall similarity only (off) and with the always-keep rules (on) per fusion of the embedding cosine and BM25; on_halves: pairs kept (on) in the even- and odd-numbered messages, 44 pairs each',
        rows: fusionRows,
      },
      labelled: { messages: labelledMessages.length, relevant_pairs: relevantPairs },
      engine_check: engineCheck,
    },
    null,
    2,
  )}\n`,
);
const recallFile = process.env['BENCH_RECALL_JSON'];
if (recallFile)
  writeFileSync(
    recallFile,
    `${JSON.stringify({ messages: labelledMessages.length, relevant_pairs: relevantPairs, recall: recallRows, neutral_ids: neutralRows, fusion_variants: fusionRows, misses_at_default_k: misses }, null, 2)}\n`,
  );
