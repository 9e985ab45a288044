/**
 * HNSW settings sweep for the knowledge vectors (ADR 0034): the graph alone, on the retrieval bench's corpus, without
 * the service (no SQLite, no BM25) — so several graph shapes can be built and compared in one run on a shared machine.
 *
 *   BENCH_SIZES=10000 BENCH_CONFIGS=cos:f32:32:256,ip:i8:32:256 BENCH_EFS=64,128,256 BENCH_RERANK=0,40 \
 *     node --expose-gc --import @swc-node/register/esm-register bench/retrieval-ann.bench.ts
 *
 * Corpus and queries: bench/retrieval.bench.ts's generator (seeded PRNG, Zipf-like 4,000-word vocabulary, 100 sections
 * of 40 words per source, queries of 6 consecutive words of a random chunk), embedded with the offline vectorizer
 * (512 dimensions, L2-normalised).
 * Scalars: f32, f16, i8 (usearch's own cast: normalised, ×127, truncated), i8x (each vector scaled so its largest
 * component is ±127, rounded — what `HnswPartition` stores, with cosine), i8r / i8g (normalised, one gain for all, for
 * inner product: 127, or 127 × √d / 8). The graph holds the chunks agent-0 may read there (untagged sources and
 * agent-0's: 91% of them from 10k up, all of them at 1k) in one graph; the service splits them into the untagged graph
 * and agent-0's (1%).
 *
 * The graphs are built one after another (insertion times compare across loads: see the load column and stderr), then
 * every graph, expansion and re-rank width answers each query in turn, so search times compare within one window.
 * A config is metric:scalar:connectivity:insertExpansion (metric cos or ip — the offline vectors are unit length, so
 * inner product ranks like cosine; scalar f32, f16 or i8). For each config: graph build time (one `add` of every
 * vector on all cores, as `drainGraphs` does), the saved file's size (≈ the graph's memory), and per search expansion
 * (BENCH_EFS) and re-rank width (BENCH_RERANK: 0 = the graph's own top 5; R = the graph's top R re-scored with the
 * exact f32 vectors, then the top 5): p50 / p99 latency of one query (search plus re-rank, one thread) and recall@5
 * against the exact scan, by two definitions:
 *   - ids: |found top 5 ∩ exact top 5| / 5 (a chunk tied with the exact 5th but not picked by the scan counts as wrong);
 *   - distance (ANN-benchmarks' definition): a returned chunk is correct when its exact distance is within the exact
 *     5th neighbour's distance + 1e-6 (no chunk counted twice; at most 5).
 * Also printed: how many queries have a tie at the 5th place (another chunk within 1e-6 of the 5th's distance).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { OfflineVectorizer } from '@tenet/llm';
import { ms, percentile, queriesFrom, sentence } from './retrieval-corpus.js';

const SIZES = (process.env['BENCH_SIZES'] ?? '10000').split(',').map(Number);
const QUERIES = Number(process.env['BENCH_QUERIES'] ?? 100);
const CONFIGS = (process.env['BENCH_CONFIGS'] ?? 'cos:f32:32:256,ip:f32:32:256,ip:f16:32:256,ip:i8:32:256').split(',');
const EFS = (process.env['BENCH_EFS'] ?? '64,128,256,512').split(',').map(Number);
const RERANK = (process.env['BENCH_RERANK'] ?? '0,20,40').split(',').map(Number);
const AGENTS = 10;
const PER_SOURCE = 100;
const K = 5;
const EPSILON = 1e-6;
const BATCH = 8192;

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/**
 * Own int8 quantization ("i8x"): each vector scaled so its largest component is ±127, rounded. usearch's own cast
 * scales a unit vector to ±127 per unit of length and truncates: the offline vectors' components (~0.04) become ~5
 * levels. The scale is per vector, which cosine ignores.
 */
function quantize(v: Float32Array): Int8Array {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? 127 / max : 0;
  return Int8Array.from(v, (x) => Math.round(x * scale));
}

/**
 * Own int8 quantization for an inner-product graph: the vector normalised to unit length, then one gain for every
 * vector (so inner products keep their order), rounded and clamped to ±127. "i8r": gain 127 (usearch's own cast, but
 * rounded instead of truncated). "i8g": gain 127 × √d / 8 — a unit vector's components have an RMS of 1/√d, so
 * components up to 8 RMS keep their value and larger ones clamp.
 */
function quantizeGain(v: Float32Array, gain: number): Int8Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const scale = sum > 0 ? gain / Math.sqrt(sum) : 0;
  return Int8Array.from(v, (x) => Math.max(-127, Math.min(127, Math.round(x * scale))));
}

/** Whether agent-0 may read source `s`: untagged (every tenth source is tagged to one of the agents, in turn) or its own. */
const readableBy0 = (s: number): boolean => s % 10 !== 9 || Math.floor(s / 10) % AGENTS === 0;

const vectorizer = new OfflineVectorizer();
const DIMS = vectorizer.dimensions;

/** 1 − dot of a query and the matrix row `at`: the cosine distance of unit vectors. */
function distanceAt(query: Float32Array, matrix: Float32Array, at: number): number {
  let dot = 0;
  const offset = at * DIMS;
  for (let i = 0; i < DIMS; i++) dot += query[i]! * matrix[offset + i]!;
  return 1 - dot;
}

for (const size of SIZES) {
  // The vectors agent-0 may read, in one flat matrix (1M × 512 f32 is 2 GB: no per-vector objects): the untagged
  // sources and the tagged ones of agent-0, counted as the loop below picks them (91% of the chunks from 10k up; all
  // 1,000 at 1k, where the one tagged source is agent-0's).
  const sources = size / PER_SOURCE;
  const readable = Array.from({ length: sources }, (_, s) => s).filter(readableBy0).length * PER_SOURCE;
  const matrix = new Float32Array(readable * DIMS);
  const matrixI8 = new Int8Array(readable * DIMS);
  const matrixI8r = new Int8Array(readable * DIMS);
  const matrixI8g = new Int8Array(readable * DIMS);
  const GAIN = (127 * Math.sqrt(DIMS)) / 8;
  const queryTexts: string[] = [];
  let count = 0;
  // Queries are drawn after the corpus, from random chunks, as the retrieval bench draws them.
  const sourceTexts: string[][] = [];
  for (let s = 0; s < sources; s++) {
    const texts = Array.from({ length: PER_SOURCE }, () => sentence(40));
    sourceTexts.push(texts);
    if (!readableBy0(s)) continue;
    texts.forEach((text, c) => {
      const v = Float32Array.from(vectorizer.vectorize(`Section ${c}\n${text}`));
      matrix.set(v, count * DIMS);
      matrixI8.set(quantize(v), count * DIMS);
      matrixI8r.set(quantizeGain(v, 127), count * DIMS);
      matrixI8g.set(quantizeGain(v, GAIN), count * DIMS);
      count++;
    });
  }
  queryTexts.push(...queriesFrom(sourceTexts, Math.min(QUERIES, size)));
  sourceTexts.length = 0;
  const queries = queryTexts.map((text) => Float32Array.from(vectorizer.vectorize(text)));
  // Exact: the top 6 by a bounded insertion (5 ids, the 5th's distance, and whether the 6th ties it).
  let ties = 0;
  const truth = queries.map((q) => {
    const best: { key: number; d: number }[] = [];
    for (let key = 0; key < count; key++) {
      const d = distanceAt(q, matrix, key);
      if (best.length === K + 1 && d >= best[K]!.d) continue;
      best.push({ key, d });
      best.sort((a, b) => a.d - b.d || a.key - b.key);
      if (best.length > K + 1) best.pop();
    }
    const kth = best[K - 1]!.d;
    if (Math.abs(best[K]!.d - kth) <= EPSILON) ties++;
    return { ids: best.slice(0, K).map((x) => x.key), kth };
  });
  console.log(
    `\n${size.toLocaleString('en')} chunks, ${count.toLocaleString('en')} vectors in the graph, ${queries.length} queries; ${ties} with a tie at the 5th place; load ${load()}`,
  );
  console.log(
    '| config | build (s) | build (vectors/s) | file (MB) | RSS growth (MB) | search expansion | re-rank | p50 / p99 (ms) | recall@5 ids | recall@5 distance | load |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const keys = BigUint64Array.from({ length: count }, (_, i) => BigInt(i));
  const queriesOf: Record<string, Int8Array[]> = {
    i8x: queries.map(quantize),
    i8r: queries.map((q) => quantizeGain(q, 127)),
    i8g: queries.map((q) => quantizeGain(q, GAIN)),
  };
  const matrixOf: Record<string, Int8Array> = { i8x: matrixI8, i8r: matrixI8r, i8g: matrixI8g };
  const built: { config: string; scalar: string; index: Index; buildSeconds: number; rssMb: number; fileMb: number }[] = [];
  for (const [n, config] of CONFIGS.entries()) {
    // A configuration listed twice is built twice (threaded insertion builds a different graph each time): "#2" marks the second.
    const label = CONFIGS.slice(0, n).includes(config)
      ? `${config} #${CONFIGS.slice(0, n).filter((c) => c === config).length + 1}`
      : config;
    const [metric = 'cos', scalar = 'f32', connectivity = '32', expansionAdd = '256'] = config.split(':');
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const index = new Index({
      dimensions: DIMS,
      metric: metric === 'ip' ? MetricKind.IP : MetricKind.Cos,
      quantization: scalar.startsWith('i8') ? ScalarKind.I8 : scalar === 'f16' ? ScalarKind.F16 : ScalarKind.F32,
      connectivity: Number(connectivity),
      expansion_add: Number(expansionAdd),
      expansion_search: 64,
      multi: false,
    });
    const started = performance.now();
    // In batches, as `drainGraphs` inserts (a progress line per twentieth at large sizes).
    for (let at = 0; at < count; at += BATCH) {
      const end = Math.min(count, at + BATCH);
      index.add(keys.subarray(at, end), (matrixOf[scalar] ?? matrix).subarray(at * DIMS, end * DIMS), 0);
      if (count >= 200_000 && Math.floor(end / (count / 20)) > Math.floor(at / (count / 20)))
        console.error(
          `${config}: ${end} inserted in ${((performance.now() - started) / 1000).toFixed(0)} s; RSS ${Math.round(process.memoryUsage().rss / 1024 ** 2)} MB (${Math.round(rssBefore / 1024 ** 2)} before the graph); load ${load()}`,
        );
    }
    const buildSeconds = (performance.now() - started) / 1000;
    const rssMb = (process.memoryUsage().rss - rssBefore) / 1024 ** 2;
    const dir = mkdtempSync(join(tmpdir(), 'tenet-ann-'));
    index.save(join(dir, 'g.usearch'));
    const fileMb = statSync(join(dir, 'g.usearch')).size / 1024 ** 2;
    rmSync(dir, { recursive: true, force: true });
    console.error(`${label}: built in ${buildSeconds.toFixed(0)} s; load ${load()}`);
    built.push({ config: label, scalar, index, buildSeconds, rssMb, fileMb });
  }
  // Every graph, expansion and re-rank width on each query in turn: load swings hit all alike.
  console.error(`queries start; load ${load()}`);
  const settings = built.flatMap((graph) =>
    EFS.flatMap((ef) => RERANK.map((rerank) => ({ graph, ef, rerank, times: [] as number[], ids: 0, dist: 0 }))),
  );
  queries.forEach((q, n) => {
    const exact = truth[n]!;
    for (const setting of settings) {
      const t = performance.now();
      const matches = setting.graph.index.search(queriesOf[setting.graph.scalar]?.[n] ?? q, Math.max(setting.ef, setting.rerank, K), 1);
      let found: number[];
      if (setting.rerank > 0) {
        const scored: { key: number; d: number }[] = [];
        for (let i = 0; i < Math.min(setting.rerank, matches.keys.length); i++) {
          const key = Number(matches.keys[i]);
          scored.push({ key, d: distanceAt(q, matrix, key) });
        }
        found = scored
          .sort((a, b) => a.d - b.d)
          .slice(0, K)
          .map((x) => x.key);
      } else found = Array.from(matches.keys.slice(0, K), Number);
      setting.times.push(performance.now() - t);
      setting.ids += found.filter((id) => exact.ids.includes(id)).length / K;
      setting.dist += Math.min(K, found.filter((id) => distanceAt(q, matrix, id) <= exact.kth + EPSILON).length) / K;
    }
  });
  for (const s of settings) {
    const { config, buildSeconds, fileMb, rssMb } = s.graph;
    console.log(
      `| ${config} | ${buildSeconds.toFixed(1)} | ${Math.round(count / buildSeconds)} | ${fileMb.toFixed(0)} | ${Math.round(rssMb)} | ${s.ef} | ${s.rerank || '—'} | ${ms(percentile(s.times, 50))} / ${ms(percentile(s.times, 99))} | ${(s.ids / queries.length).toFixed(3)} | ${(s.dist / queries.length).toFixed(3)} | ${load()} |`,
    );
  }
}
