/**
 * Retrieval benchmark (docs/data-model.md#retrieval): recall@5 and p50/p99 search latency at 1k, 10k and 100k knowledge chunks, and
 * ingestion throughput, of the service's own search path, against brute-force exact search in the same run.
 *
 *   npm run bench:retrieval        (BENCH_SIZES=1000,10000 to run fewer; BENCH_QUERIES=100; BENCH_JSON=<file>;
 *                                   BENCH_EF=<a fixed HNSW expansion at search> instead of the default's growing with the graph;
 *                                   BENCH_HNSW='{"quantization":"f32","rerank":0}' overrides other graph parameters;
 *                                   BENCH_GRAPH_THREADS=<workers, 0: inline>, BENCH_GRAPH_THREADS_FROM=<vector rows> for the
 *                                   graphs on worker threads — ADR 0034, "Graphs in worker threads")
 *
 * Corpus: synthetic Markdown sources (seeded PRNG, 4,000-word vocabulary with a Zipf-like draw), 100 sections
 * per source, one chunk per section, embedded with the offline vectorizer (512 dimensions) — the embedding
 * provider `npm start` uses. Every tenth source is tagged to one of 10 agents, the rest serve every agent; queries
 * run as agent `agent-0`. Queries: 6 words drawn from a random chunk. Ground truth ("exact"): brute-force cosine
 * in this process over every chunk that agent may read. Measured:
 *   - search: `KnowledgeService.search` (what a turn's recall runs): query embedding, the index's `nearest`
 *     (HNSW graphs, usearch, one per model/workspace/agent partition — ADR 0034) and `lexical` (BM25 in memory,
 *     one inverted index per workspace/agent-tags partition, MaxScore top k — ADR 0034 "Lexical side") top
 *     candidates, fused;
 *   - nearest / lexical: each side of the index alone, k = 20 (the candidates search asks for at max_results 5);
 *   - recall@5: the index's nearest top 5 against the exact top 5;
 *   - ingest: `KnowledgeService.ingest` per source (chunking, embedding, one SQLite transaction over chunks,
 *     vectors and text); the graphs insert the vectors in the background, and "until all in graphs" adds the time
 *     to finish that (`drainGraphs`) before the queries run;
 *   - RSS: the bench process after the queries (corpus texts, the floor's vectors, the index's graphs and postings);
 *   - close: closing the index after the queries (the BM25 snapshot written — its size and write time are printed
 *     too — and changed graphs saved);
 *   - reopen: opening the index again after that close (graphs and the BM25 snapshot loaded from their files) until
 *     its first lexical answer; "reopen, no snapshot": the same with the BM25 snapshot deleted first (the index
 *     rebuilt from the text rows, as every open did before the snapshot, and as one does after losing it); each
 *     with the longest the event loop was held meanwhile (a 1 ms interval timer's largest gap: the lexical side
 *     opens in the background in slices, ADR 0034 amendment "Lexical side opened in the background");
 *   - exact: the brute-force floor's own latency (float32 arrays in memory, one pass, top 5);
 *   - the longest event-loop gap from the first ingest until every vector is in a graph (a 1 ms timer's), the graph
 *     workers (0: inline), and reopen until the first nearest answer (the graphs loaded, by the workers when threaded).
 *
 * BENCH_LEXICAL_ONLY=1 measures the lexical side's in-memory BM25 index alone on the same corpus and queries (no
 * embedding, SQLite or graphs — what makes 1M chunks affordable on a shared machine): build time from the texts
 * (what a start-up rebuild costs beyond reading the rows), heap growth, and search p50/p99 for agent-0 at k = 20; then
 * the BM25 snapshot of it: the capture (the part of a save on the event loop before the chunked write), the whole
 * save, its size, and loading it back (read, check, restore) with the heap and RSS growth of the loaded index alone
 * (the built one dropped first).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OfflineVectorizer } from '@tenet/llm';
import { KnowledgeService, SqliteKnowledgeIndex } from '@tenet/memory-service';
import { Bm25Index } from '../libs/memory/service/src/bm25-partitions.js';
import { readBm25Snapshot, writeBm25Snapshot } from '../libs/memory/service/src/bm25-snapshot.js';
import type { HnswParameters } from '../libs/memory/service/src/hnsw-partitions.js';
import { BM25_SNAPSHOT_SUFFIX, SQLITE_KNOWLEDGE_FILE } from '../libs/memory/service/src/sqlite-knowledge-index.js';
import { ms, percentile, queriesFrom, sentence } from './retrieval-corpus.js';

const SIZES = (process.env['BENCH_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const QUERIES = Number(process.env['BENCH_QUERIES'] ?? 100);
const AGENTS = 10;
const AGENT = 'agent-0';
const PER_SOURCE = 100;
const K = 5;
const LEXICAL_ONLY = process.env['BENCH_LEXICAL_ONLY'] === '1';
/** BENCH_GRAPH_THREADS / BENCH_GRAPH_THREADS_FROM: the index's graph workers and the vector rows from which they start. */
const graphOptions = {
  ...(process.env['BENCH_GRAPH_THREADS'] ? { graphThreads: Number(process.env['BENCH_GRAPH_THREADS']) } : {}),
  ...(process.env['BENCH_GRAPH_THREADS_FROM'] ? { graphThreadsFrom: Number(process.env['BENCH_GRAPH_THREADS_FROM']) } : {}),
};

function norm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] ?? 0) * (v[i] ?? 0);
  return Math.sqrt(s) || 1;
}

/** Top-k ids by cosine, one pass over all vectors (exact). */
function exactTopK(query: ArrayLike<number>, vectors: readonly Float32Array[], ids: readonly string[], k: number): string[] {
  const qn = norm(query);
  const best: { id: string; score: number }[] = [];
  for (let j = 0; j < vectors.length; j++) {
    const v = vectors[j]!;
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += (query[i] ?? 0) * v[i]!;
    const score = dot / (qn * norm(v));
    if (best.length < k || score > best[best.length - 1]!.score) {
      best.push({ id: ids[j]!, score });
      best.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
      if (best.length > k) best.pop();
    }
  }
  return best.map((b) => b.id);
}

const recallAt = (found: readonly string[], truth: readonly string[]): number =>
  truth.filter((id) => found.includes(id)).length / truth.length;

interface Row {
  size: number;
  ingestPerSec: number;
  /** Chunks per second from the first ingest until every vector is in its HNSW graph. */
  graphPerSec: number;
  rssMb: number;
  closeMs: number;
  /** The BM25 snapshot close wrote: its size and write time. */
  snapshot: { mb: number; saveMs: number };
  reopenMs: number;
  /** The longest the event loop was held during ingest plus graph insertion (drainGraphs). */
  ingestBlockMs: number;
  /** Graph workers (0: inline). */
  graphWorkers: number;
  /** Reopen until the first nearest answer (graph files loaded: inline in the constructor, or by the workers). */
  reopenNearestMs: number;
  /** The longest the event loop was held during the reopen, and during the reopen without a snapshot. */
  reopenBlockMs: number;
  reopenRebuildBlockMs: number;
  /** Reopen with the BM25 snapshot deleted first: the rebuild from the text rows. */
  reopenRebuildMs: number;
  search: { p50: number; p99: number };
  nearest: { p50: number; p99: number; recall: number };
  lexical: { p50: number; p99: number };
  exact: { p50: number; p99: number };
}

/** The BM25 index alone (BENCH_LEXICAL_ONLY): the same sources, tags and queries as the full run, straight into memory. */
async function lexicalOnly(size: number): Promise<void> {
  const chunkTexts: string[][] = [];
  const index = new Bm25Index();
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let doc = 0;
  let buildMs = 0;
  for (let s = 0; s < size / PER_SOURCE; s++) {
    const texts = Array.from({ length: PER_SOURCE }, () => sentence(40));
    chunkTexts.push(texts);
    // The index's partition key: workspace, then the source's agent tags (none: every agent).
    const scope = JSON.stringify(s % 10 === 9 ? ['default', `agent-${Math.floor(s / 10) % AGENTS}`] : ['default']);
    const started = performance.now();
    texts.forEach((text, c) => index.add(++doc, scope, `Section ${c}\n${text}`));
    buildMs += performance.now() - started;
  }
  global.gc?.();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 ** 2;
  const readable = new Set([JSON.stringify(['default']), JSON.stringify(['default', AGENT])]);
  const times: number[] = [];
  for (const query of queriesFrom(chunkTexts, Math.min(QUERIES, size))) {
    const t = performance.now();
    index.search(query, 4 * K, (scope) => readable.has(scope));
    times.push(performance.now() - t);
  }
  console.log(
    `| ${size.toLocaleString('en')} | ${ms(percentile(times, 50))} / ${ms(percentile(times, 99))} | ${Math.round(buildMs / 1000)} s (${Math.round(size / (buildMs / 1000))} chunks/s) | ${Math.round(heapMb)} MB (corpus texts included) | ${index.postings.toLocaleString('en')} |`,
  );

  // The snapshot of this index: save (the capture alone is what holds the event loop), size, load, memory.
  const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-bm25-'));
  const file = join(dir, 'index.bm25');
  const saveStarted = performance.now();
  const state = index.capture();
  const captureMs = performance.now() - saveStarted;
  const bytes = await writeBm25Snapshot(file, state, { epoch: 'bench', watermark: { adds: size, removes: 0 } });
  const saveMs = performance.now() - saveStarted;
  const checked = queriesFrom(chunkTexts, 5);
  const expected = checked.map((query) => index.search(query, 4 * K, (scope) => readable.has(scope)));
  global.gc?.();
  const memoryBefore = process.memoryUsage();
  const loadStarted = performance.now();
  const loaded = Bm25Index.restore(readBm25Snapshot(readFileSync(file)).state);
  const loadMs = performance.now() - loadStarted;
  // The file buffer is garbage now; its memory goes back once the GC has swept it (a turn of the event loop later).
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  global.gc?.();
  const memoryAfter = process.memoryUsage();
  const same = checked.every(
    (query, i) => JSON.stringify(loaded.search(query, 4 * K, (scope) => readable.has(scope))) === JSON.stringify(expected[i]),
  );
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `snapshot | ${size.toLocaleString('en')} | capture ${ms(captureMs)} ms, save ${ms(saveMs)} ms | ${(bytes / 1024 ** 2).toFixed(1)} MB | load ${ms(loadMs)} ms | heap +${Math.round((memoryAfter.heapUsed - memoryBefore.heapUsed) / 1024 ** 2)} MB, array buffers +${Math.round((memoryAfter.arrayBuffers - memoryBefore.arrayBuffers) / 1024 ** 2)} MB, RSS +${Math.round((memoryAfter.rss - memoryBefore.rss) / 1024 ** 2)} MB (the built index still held) | same answers: ${same} |`,
  );
}

const embeddings = new OfflineVectorizer();
const model = `${embeddings.name}/${embeddings.model}/${embeddings.dimensions}`;
const rows: Row[] = [];
for (const size of SIZES) {
  if (LEXICAL_ONLY) {
    await lexicalOnly(size);
    continue;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-retrieval-'));
  const hnsw: Partial<HnswParameters> = {
    ...(process.env['BENCH_HNSW'] ? (JSON.parse(process.env['BENCH_HNSW']) as Partial<HnswParameters>) : {}),
    ...(process.env['BENCH_EF'] ? { expansionSearch: Number(process.env['BENCH_EF']), expansionSearchPerThousand: 0 } : {}),
  };
  const index = new SqliteKnowledgeIndex({ dataDir: dir, hnsw, ...graphOptions });
  const service = new KnowledgeService(index, embeddings);
  const chunkTexts: string[][] = [];
  const sources = size / PER_SOURCE;
  const documents = Array.from({ length: sources }, (_, s) => {
    const sections = Array.from({ length: PER_SOURCE }, (_, c) => ({ heading: `Section ${c}`, text: sentence(40) }));
    chunkTexts.push(sections.map((x) => x.text));
    const agentIds = s % 10 === 9 ? [`agent-${Math.floor(s / 10) % AGENTS}`] : [];
    return {
      sourceId: `src-${s}`,
      title: `Document ${s}`,
      agentIds,
      content: sections.map((x) => `## ${x.heading}\n\n${x.text}`).join('\n\n'),
    };
  });

  // Ingestion through the service (chunk, embed, swap in), then the chunks the agent may read, as stored.
  const ingestGaps = gapTimer();
  const started = performance.now();
  for (const doc of documents) {
    await service.ingest({ sourceId: doc.sourceId, title: doc.title, format: 'markdown', content: doc.content, agentIds: doc.agentIds });
    // A turn of the event loop between sources, as between two requests: the gap timer measures the index, not this loop.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const ingestPerSec = size / ((performance.now() - started) / 1000);
  const ingestOnlyBlockMs = ingestGaps.stop();
  const insertionGaps = gapTimer();
  // The HNSW graphs insert staged vectors in the background (searches scan the staged ones exactly meanwhile):
  // finish that now, timed, so the queries below measure the graphs.
  const drainStarted = performance.now();
  await index.drainGraphs();
  const graphSeconds = (performance.now() - drainStarted) / 1000;
  const insertionBlockMs = insertionGaps.stop();
  const ingestBlockMs = Math.max(ingestOnlyBlockMs, insertionBlockMs);
  const graphPerSec = size / (size / ingestPerSec + graphSeconds);
  const mode = graphModeOf(index);
  console.error(
    `${size}: ingest ${Math.round(ingestPerSec)} chunks/s; graph insertion left after ingest ${graphSeconds.toFixed(1)} s; longest event-loop gap during ingest ${Math.round(ingestOnlyBlockMs)} ms, during graph insertion ${Math.round(insertionBlockMs)} ms; graphs ${mode}`,
  );
  const ids: string[] = [];
  const vectors: Float32Array[] = [];
  for (const doc of documents) {
    if (doc.agentIds.length > 0 && !doc.agentIds.includes(AGENT)) continue;
    for (const chunk of await index.sourceChunks(doc.sourceId)) {
      ids.push(chunk.chunkId);
      vectors.push(Float32Array.from(chunk.vector));
    }
  }

  const queries = queriesFrom(chunkTexts, Math.min(QUERIES, size));
  const times = { search: [] as number[], nearest: [] as number[], lexical: [] as number[], exact: [] as number[] };
  let recall = 0;
  for (const [q, query] of queries.entries()) {
    const [qv = []] = (await embeddings.embed([query], { purpose: 'bench' })).vectors;
    let truth: string[] = [];
    let nearest: string[] = [];
    const timed = async (into: number[], run: () => unknown): Promise<void> => {
      const t = performance.now();
      await run();
      into.push(performance.now() - t);
    };
    // Interleaved, so the shared machine's load swings hit all alike; in an order that turns with each query, so each
    // measurement follows the exact scan (~100 ms of one core at 100k, which leaves the next one's caches cold and a
    // worker thread descheduled) as often as the others — always right after it, the service search read ~2.5 ms slower.
    const steps = [
      () =>
        timed(times.exact, () => {
          truth = exactTopK(qv, vectors, ids, K);
        }),
      () => timed(times.search, () => service.search({ query, agentId: AGENT, maxResults: K, threshold: 0 })),
      () =>
        timed(times.nearest, async () => {
          const found = await index.nearest({ vector: qv, embeddingModel: model, agentId: AGENT, k: 4 * K });
          nearest = found.slice(0, K).map((h) => h.chunk.chunkId);
        }),
      () => timed(times.lexical, () => index.lexical({ text: query, agentId: AGENT, k: 4 * K })),
    ];
    for (let i = 0; i < steps.length; i++) await steps[(q + i) % steps.length]?.();
    recall += recallAt(nearest, truth);
  }
  const rssMb = process.memoryUsage().rss / 1024 ** 2;
  // Printed before the close and the two reopens, which take minutes at 1M chunks: a run stopped there keeps these.
  console.error(
    `${size}: service search p50 / p99 ${ms(percentile(times.search, 50))} / ${ms(percentile(times.search, 99))} ms; nearest ${ms(percentile(times.nearest, 50))} / ${ms(percentile(times.nearest, 99))} ms, recall@5 ${(recall / queries.length).toFixed(3)}; lexical ${ms(percentile(times.lexical, 50))} / ${ms(percentile(times.lexical, 99))} ms; exact ${ms(percentile(times.exact, 50))} ms; RSS ${Math.round(rssMb)} MB`,
  );
  // On graph workers: each worker's own search time (the nearest p50 above adds the messages and the wait for a core).
  const shards = (await (index as { graphWorkerStats?: () => Promise<{ searchMs: number[] }[]> }).graphWorkerStats?.()) ?? [];
  for (const [s, shard] of shards.entries())
    console.error(
      `${size}: graph worker ${s}: search in the worker p50 / p99 ${ms(percentile(shard.searchMs, 50))} / ${ms(percentile(shard.searchMs, 99))} ms (${shard.searchMs.length} searches)`,
    );
  const closeStarted = performance.now();
  await index.close();
  const closeMs = performance.now() - closeStarted;
  const snapshot = { mb: (index.lexicalSnapshot.bytes ?? 0) / 1024 ** 2, saveMs: index.lexicalSnapshot.saveMs ?? NaN };
  /** Until the first lexical answer, and the longest the event loop was held meanwhile (a 1 ms timer's largest gap). */
  const [firstQuery = []] = (await embeddings.embed([queries[0] ?? 'ka'], { purpose: 'bench' })).vectors;
  const reopen = async (): Promise<{ ms: number; blockMs: number; nearestMs: number }> => {
    const gaps = gapTimer();
    const reopenStarted = performance.now();
    const reopened = new SqliteKnowledgeIndex({ dataDir: dir, hnsw, ...graphOptions });
    const constructorMs = performance.now() - reopenStarted;
    // The lexical side opens in the background; a search waits for it only so long (ADR 0034).
    await reopened.whenLexicalReady();
    await reopened.lexical({ text: queries[0] ?? 'ka', agentId: AGENT, k: 4 * K });
    const ms = performance.now() - reopenStarted;
    await reopened.nearest({ vector: firstQuery, embeddingModel: model, agentId: AGENT, k: 4 * K });
    const nearestMs = performance.now() - reopenStarted;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const blockMs = gaps.stop();
    await reopened.close();
    console.error(
      `${size}: reopen ${Math.round(ms)} ms, of which the constructor ${Math.round(constructorMs)} ms (graphs loaded, vector rows staged)`,
    );
    return { ms, blockMs, nearestMs };
  };
  const { ms: reopenMs, blockMs: reopenBlockMs, nearestMs: reopenNearestMs } = await reopen();
  rmSync(join(dir, `${SQLITE_KNOWLEDGE_FILE}${BM25_SNAPSHOT_SUFFIX}`), { force: true });
  const { ms: reopenRebuildMs, blockMs: reopenRebuildBlockMs } = await reopen();
  rmSync(dir, { recursive: true, force: true });
  const p = (values: number[]): { p50: number; p99: number } => ({ p50: percentile(values, 50), p99: percentile(values, 99) });
  rows.push({
    size,
    ingestPerSec,
    graphPerSec,
    rssMb,
    closeMs,
    snapshot,
    reopenMs,
    reopenRebuildMs,
    reopenBlockMs,
    reopenRebuildBlockMs,
    ingestBlockMs,
    graphWorkers: workersOf(index),
    reopenNearestMs,
    search: p(times.search),
    nearest: { ...p(times.nearest), recall: recall / queries.length },
    lexical: p(times.lexical),
    exact: p(times.exact),
  });
  // Each size's row as soon as it is measured: a long run stopped early keeps the sizes it finished.
  console.error(
    `${size} chunks done (${queries.length} queries, ${ids.length} chunks readable by ${AGENT}): ${rowText(rows[rows.length - 1]!)}`,
  );
}

if (LEXICAL_ONLY) process.exit(0);

/** A 1 ms interval timer's largest gap between start and stop: the longest the event loop was held meanwhile. */
function gapTimer(): { stop: () => number } {
  let last = performance.now();
  let gap = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  return {
    stop: () => {
      clearInterval(tick);
      return Math.max(gap, performance.now() - last);
    },
  };
}
/** Graph workers of the index (none on main's code, which has no graphMode). */
function workersOf(index: SqliteKnowledgeIndex): number {
  return (index as { graphMode?: { workers: number } }).graphMode?.workers ?? 0;
}
function graphModeOf(index: SqliteKnowledgeIndex): string {
  const workers = workersOf(index);
  return workers > 0 ? `on ${workers} worker threads` : 'inline (main thread)';
}
function rowText(r: Row): string {
  return `| ${r.size.toLocaleString('en')} | ${ms(r.search.p50)} / ${ms(r.search.p99)} | ${ms(r.nearest.p50)} / ${ms(r.nearest.p99)} | ${r.nearest.recall.toFixed(3)} | ${ms(r.lexical.p50)} / ${ms(r.lexical.p99)} | ${Math.round(r.ingestPerSec)} | ${Math.round(r.graphPerSec)} | ${ms(r.exact.p50)} / ${ms(r.exact.p99)} | ${Math.round(r.rssMb)} | ${Math.round(r.reopenMs)} / ${Math.round(r.reopenBlockMs)} | ${Math.round(r.reopenRebuildMs)} / ${Math.round(r.reopenRebuildBlockMs)} | ${Math.round(r.closeMs)} | ${r.snapshot.mb.toFixed(1)} MB, ${Math.round(r.snapshot.saveMs)} ms | ${Math.round(r.ingestBlockMs)} | ${r.graphWorkers} | ${Math.round(r.reopenNearestMs)} |`;
}
const out = [
  '| chunks | service search p50 / p99 (ms) | nearest (HNSW) p50 / p99 (ms) | nearest recall@5 vs exact | lexical (BM25) p50 / p99 (ms) | ingest (chunks/s) | ingest until all in graphs (chunks/s) | exact brute force p50 / p99 (ms) | RSS after queries (MB) | reopen: until lexical answers / longest event-loop block (ms) | reopen, no BM25 snapshot: same (ms) | close (ms) | BM25 snapshot: size, write | longest event-loop gap, ingest + graph insertion (ms) | graph workers | reopen: until nearest answers (ms) |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(rowText),
];
console.log(out.join('\n'));
if (process.env['BENCH_JSON']) writeFileSync(process.env['BENCH_JSON'], JSON.stringify(rows, null, 2));
