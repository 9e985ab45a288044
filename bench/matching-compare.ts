/**
 * The prefilter's warm-turn cost at 1000 guidelines, engine against engine, interleaved turn by turn so the load of
 * a shared machine falls on all of them alike (a sequential run of `npm run bench:matching` measures each
 * configuration minutes apart). Engines: this tree's matcher with each ranking (`hybrid`, the default;
 * `embedding`; `lexical`) and with failing embeddings (BM25 from the cached index); and, when BENCH_BASELINE names
 * another checkout of the repository (e.g. the commit before the hybrid ranking, unpacked with
 * `git archive <commit> | tar -x -C <dir>` and `ln -s $PWD/node_modules <dir>/`), that checkout's matcher with
 * working and failing embeddings. Prints p50/p99 ms per engine; writes nothing.
 *
 *   BENCH_BASELINE=/tmp/baseline BENCH_ROUNDS=6 node --import @swc-node/register/esm-register bench/matching-compare.ts
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MatchGuidelinesRequestV1 } from '@tenet/contracts';
import { createEmbeddingProvider, OfflineProvider, type EmbeddingProvider } from '@tenet/llm';
import { EmbeddingCache } from '../libs/matching/service/src/embedding-cache.js';
import { GuidelineMatcher } from '../libs/matching/service/src/guideline-matcher.js';
import { ProviderRegistry } from '../libs/matching/service/src/provider-registry.js';
import { agentOfSize, FailingEmbeddings, labelledMessages } from './matching-fixtures.js';

interface Engine {
  match(request: MatchGuidelinesRequestV1): Promise<unknown>;
}
type EngineFactory = (embeddings: EmbeddingProvider, options: Record<string, unknown>) => Engine;

const quiet = { warn: () => undefined };
const current: EngineFactory = (embeddings, options) =>
  new GuidelineMatcher(new ProviderRegistry(new OfflineProvider()), new EmbeddingCache(embeddings, {}), { logger: quiet, ...options });

async function baseline(dir: string): Promise<EngineFactory> {
  const load = async (path: string): Promise<Record<string, new (...args: unknown[]) => unknown>> =>
    (await import(pathToFileURL(resolve(dir, path)).href)) as Record<string, new (...args: unknown[]) => unknown>;
  const { GuidelineMatcher: Matcher } = await load('libs/matching/service/src/guideline-matcher.ts');
  const { EmbeddingCache: Cache } = await load('libs/matching/service/src/embedding-cache.ts');
  const { ProviderRegistry: Registry } = await load('libs/matching/service/src/provider-registry.ts');
  return (embeddings, options) =>
    new Matcher!(new Registry!(new OfflineProvider()), new Cache!(embeddings, {}), { logger: quiet, ...options }) as Engine;
}

const agent = agentOfSize(1000);
const ids = new Set(agent.guidelines.map((g) => g.id));
const request = (i: number): MatchGuidelinesRequestV1 => {
  const m = labelledMessages[(i * 3) % labelledMessages.length]!;
  const applied = (m.applied ?? []).filter((id) => ids.has(id));
  return {
    session_id: `compare-${i}`,
    agent: { id: 'bench-agent', name: 'Ada' },
    message: m.message,
    history: m.history,
    guidelines: agent.guidelines,
    ...(applied.length > 0 ? { previously_applied: applied } : {}),
    relationships: agent.relationships,
    tools: agent.tools,
  };
};

const engines: Record<string, Engine> = {};
const baselineDir = process.env['BENCH_BASELINE'];
if (baselineDir) {
  const before = await baseline(baselineDir);
  engines['baseline: default'] = before(createEmbeddingProvider({}), {});
  engines['baseline: embeddings failing'] = before(new FailingEmbeddings(), {});
}
engines['this tree: hybrid (default)'] = current(createEmbeddingProvider({}), {});
engines['this tree: embedding'] = current(createEmbeddingProvider({}), { ranking: 'embedding' });
engines['this tree: lexical'] = current(createEmbeddingProvider({}), { ranking: 'lexical' });
engines['this tree: hybrid, embeddings failing'] = current(new FailingEmbeddings(), {});

const names = Object.keys(engines);
// Cold turn and JIT warm-up for each engine.
for (const name of names) for (let i = 0; i < 10; i++) await engines[name]!.match(request(100 + i));
const ms: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 6);
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < 30; i++) {
    // Each turn, every engine once, starting from a different one.
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j + round) % names.length]!;
      const started = performance.now();
      await engines[name]!.match(request(i));
      ms[name]!.push(performance.now() - started);
    }
  }
}
const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};
for (const name of names)
  console.log(
    `${name.padEnd(40)} p50 ${percentile(ms[name]!, 50).toFixed(2)} ms  p99 ${percentile(ms[name]!, 99).toFixed(2)} ms  (${ms[name]!.length} turns)`,
  );
