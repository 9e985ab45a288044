/**
 * `npm run bench:matching`: LLM calls and prompt tokens per turn as an agent grows (10, 100, 1000 guidelines),
 * measured with a counting provider around the deterministic offline provider, and the embedding prefilter's
 * recall on a hand-labelled set. Writes docs/benchmarks/matching.json.
 */
import { writeFileSync } from 'node:fs';
import type { MatchGuidelinesRequestV1 } from '@tenet/contracts';
import { OfflineProvider, OfflineVectorizer, type LlmProvider, type LlmRequest, type LlmResponse } from '@tenet/llm';
import { cosineSimilarity, prefilterCandidates, type MatchableGuideline } from '@tenet/matching-domain';
import { EmbeddingCache } from '../libs/matching/service/src/embedding-cache.js';
import { GuidelineMatcher } from '../libs/matching/service/src/guideline-matcher.js';
import { ProviderRegistry } from '../libs/matching/service/src/provider-registry.js';
import { agentOfSize, labelledGuidelines, labelledMessages, distractor, type FixtureGuideline } from './matching-fixtures.js';

class CountingProvider implements LlmProvider {
  readonly name: string;
  readonly model: string;
  calls = 0;
  promptTokens = 0;
  constructor(private readonly inner: LlmProvider) {
    this.name = inner.name;
    this.model = inner.model;
  }
  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const response = await this.inner.generate<I, O>(request);
    if (request.task.kind === 'match_guidelines') {
      this.calls += 1;
      this.promptTokens += response.usage.inputTokens;
    }
    return response;
  }
}

const asMatchable = (g: FixtureGuideline): MatchGuidelinesRequestV1['guidelines'][number] => ({
  id: g.id,
  condition: g.condition,
  action: g.action,
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...(g.criticality ? { criticality: g.criticality } : {}),
});

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const TURNS = Number(process.env['BENCH_TURNS'] ?? 30);
const results: Record<string, unknown>[] = [];
const parlant: Record<number, string> = { 10: 'about 10', 100: 'about 20', 1000: 'about 200' };

for (const n of [10, 100, 1000]) {
  const counting = new CountingProvider(new OfflineProvider());
  const vectorizer = new OfflineVectorizer();
  const matcher = new GuidelineMatcher(new ProviderRegistry(counting), new EmbeddingCache(vectorizer));
  const guidelines = agentOfSize(n).map(asMatchable);
  const request = (i: number): MatchGuidelinesRequestV1 => {
    const { message } = labelledMessages[i % labelledMessages.length]!;
    const previous = labelledMessages[(i + 7) % labelledMessages.length]!.message;
    return { session_id: `bench-${n}-${i}`, agent: { id: 'bench', name: 'Ada' }, message, history: [{ role: 'customer', content: previous }, { role: 'agent', content: 'Sure, let me help with that.' }], guidelines };
  };
  const coldStarted = performance.now();
  await matcher.match(request(TURNS)); // cold: embeds the agent's guidelines once
  const coldMs = performance.now() - coldStarted;
  counting.calls = 0;
  counting.promptTokens = 0;
  const times: number[] = [];
  let embeddingCalls = 0;
  for (let i = 0; i < TURNS; i++) {
    const started = performance.now();
    const reply = await matcher.match(request(i));
    times.push(performance.now() - started);
    embeddingCalls += (reply.calls ?? []).filter((c) => c.purpose === 'embed').length;
  }
  results.push({
    guidelines: n,
    llm_calls_per_turn: counting.calls / TURNS,
    prompt_tokens_per_turn: Math.round(counting.promptTokens / TURNS),
    p50_ms: Math.round(percentile(times, 50) * 100) / 100,
    p99_ms: Math.round(percentile(times, 99) * 100) / 100,
    embedding_calls_per_turn: embeddingCalls / TURNS,
    cold_first_turn_ms: Math.round(coldMs * 100) / 100,
    parlant_matching_calls_reference: parlant[n],
  });
  console.log(JSON.stringify(results.at(-1)));
}

// Recall of the prefilter on the labelled set, among 1000 guidelines.
const vectorizer = new OfflineVectorizer();
const pool: MatchableGuideline[] = [...labelledGuidelines, ...Array.from({ length: 1000 - labelledGuidelines.length }, (_, i) => distractor(i))].map((g) => ({
  id: g.id,
  condition: g.condition,
  action: g.action,
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...(g.criticality ? { criticality: g.criticality } : {}),
}));
const guidelineVectors = (await vectorizer.embed(pool.map((g) => `${g.condition}\n${g.action ?? ''}`), { purpose: 'bench' })).vectors;
const vectors = new Map(pool.map((g, i) => [g.id, guidelineVectors[i]!]));
const recall: Record<string, unknown>[] = [];
const missesAt40: string[] = [];
for (const k of [10, 20, 40, 80]) {
  let found = 0;
  let foundWithKeep = 0;
  let total = 0;
  for (const { message, relevant } of labelledMessages) {
    const [query] = (await vectorizer.embed([message], { purpose: 'bench' })).vectors;
    const plain = prefilterCandidates({ candidates: pool.map((g) => ({ ...g, criticality: undefined })), vectors, query: query!, k }).kept.map((g) => g.id);
    const safe = prefilterCandidates({ candidates: pool, vectors, query: query!, k }).kept.map((g) => g.id);
    for (const id of relevant) {
      total += 1;
      if (plain.includes(id)) found += 1;
      if (safe.includes(id)) foundWithKeep += 1;
      else if (k === 40) {
        const rank = [...pool].sort((a, b) => cosineSimilarity(query!, vectors.get(b.id)!) - cosineSimilarity(query!, vectors.get(a.id)!)).findIndex((g) => g.id === id) + 1;
        missesAt40.push(`"${message}" → ${id} (similarity rank ${rank})`);
      }
    }
  }
  recall.push({ k, recall: Math.round((found / total) * 1000) / 1000, recall_with_always_keep: Math.round((foundWithKeep / total) * 1000) / 1000, relevant: total });
  console.log(JSON.stringify(recall.at(-1)));
}
console.log(`misses at k=40 (with always-keep): ${missesAt40.length}\n${missesAt40.join('\n')}`);

writeFileSync(new URL('../docs/benchmarks/matching.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(new URL('../docs/benchmarks/prefilter-recall.json', import.meta.url), `${JSON.stringify({ set: { guidelines: 1000, labelled_guidelines: labelledGuidelines.length, messages: labelledMessages.length }, recall, misses_at_k40: missesAt40 }, null, 2)}\n`);
