/**
 * Retrieval benchmark (issue 13): recall@5 and p50/p99 search latency at 1k, 10k and 100k knowledge chunks, and
 * ingestion throughput, each against brute-force exact search in the same run.
 *
 *   npm run bench:retrieval        (BENCH_SIZES=1000,10000 to run fewer; BENCH_QUERIES=100; BENCH_JSON=<file>)
 *
 * At 100k chunks only BENCH_SERVICE_QUERIES_100K (10) of the queries go through the current service (its p99 is
 * then the slowest of those), the others through sqlite-vec and the floor only.
 *
 * Corpus: synthetic Markdown sources (seeded PRNG, 4,000-word vocabulary with a Zipf-like draw), 100 sections
 * per source, one chunk per section, embedded with the offline vectorizer (512 dimensions) — the embedding
 * provider `npm start` uses. Queries: 6 words drawn from a random chunk. Ground truth ("exact"): brute-force
 * cosine over every chunk in float64 in this process. Measured:
 *   - tenet: the current KnowledgeService over the SQLite knowledge index (ADR 0016) — `search` latency (the
 *     hybrid query a turn's recall runs: candidates read from SQLite, cosine + BM25 fused) and the recall@5 of
 *     its vector side; ingestion = `ingest` (chunking, embedding, one SQLite transaction per source);
 *   - sqlite-vec: the same vectors in a `vec0` virtual table (sqlite-vec 0.1.9, cosine), KNN k=5 — latency,
 *     recall@5 and insert throughput;
 *   - exact: the brute-force floor's own latency (float32 arrays in memory, one pass, top 5).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { OfflineVectorizer } from '@tenet/llm';
import { KnowledgeService, SqliteKnowledgeIndex } from '@tenet/memory-service';

const SIZES = (process.env['BENCH_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const QUERIES = Number(process.env['BENCH_QUERIES'] ?? 100);
/** The current service reads and scores every chunk per query (seconds at 100k): fewer of its queries there. */
const SERVICE_QUERIES_AT_100K = Number(process.env['BENCH_SERVICE_QUERIES_100K'] ?? 10);
const PER_SOURCE = 100;
const K = 5;

/** mulberry32: a fixed sequence for every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(13);
const SYLLABLES = ['ka', 'ro', 'mi', 'tel', 'san', 'vo', 'ler', 'din', 'pa', 'zu', 'qui', 'bor', 'nel', 'fa', 'gri', 'hul'];
const VOCABULARY = Array.from({ length: 4_000 }, (_, i) => {
  let word = '';
  for (let n = i + 7; word.length < 6 || n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return word;
});
const word = (): string => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 2.2)] ?? 'ka';
const sentence = (n: number): string => Array.from({ length: n }, word).join(' ');

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const ms = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(0));

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

const recallAt = (found: readonly string[], truth: readonly string[]): number => truth.filter((id) => found.includes(id)).length / truth.length;

interface Row {
  size: number;
  tenet: { ingestPerSec: number; p50: number; p99: number; vectorRecall: number };
  sqliteVec: { insertPerSec: number; p50: number; p99: number; recall: number };
  exact: { p50: number; p99: number };
}

const embeddings = new OfflineVectorizer();
const rows: Row[] = [];
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-retrieval-'));
  const index = new SqliteKnowledgeIndex({ dataDir: dir });
  const service = new KnowledgeService(index, embeddings);
  const chunkTexts: string[][] = [];
  const sources = size / PER_SOURCE;
  const documents = Array.from({ length: sources }, (_, s) => {
    const sections = Array.from({ length: PER_SOURCE }, (_, c) => ({ heading: `Section ${c}`, text: sentence(40) }));
    chunkTexts.push(sections.map((x) => x.text));
    return { sourceId: `src-${s}`, title: `Document ${s}`, content: sections.map((x) => `## ${x.heading}\n\n${x.text}`).join('\n\n') };
  });

  // Ingestion through the service (chunk, embed, swap in), then the chunks as the index holds them.
  let started = performance.now();
  for (const doc of documents) await service.ingest({ sourceId: doc.sourceId, title: doc.title, format: 'markdown', content: doc.content });
  const ingestPerSec = size / ((performance.now() - started) / 1000);
  const stored = await index.candidateChunks();
  const ids = stored.map((c) => c.chunkId);
  const vectors = stored.map((c) => Float32Array.from(c.vector));

  // The same vectors in sqlite-vec's vec0 table (cosine distance).
  const db = new Database(join(dir, 'vec.sqlite'));
  sqliteVec.load(db);
  db.exec(`CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[${embeddings.dimensions}] distance_metric=cosine)`);
  const insert = db.prepare('INSERT INTO chunks_vec(rowid, embedding) VALUES (?, ?)');
  started = performance.now();
  db.transaction(() => vectors.forEach((v, i) => insert.run(BigInt(i + 1), v)))();
  const insertPerSec = size / ((performance.now() - started) / 1000);
  const knn = db.prepare(`SELECT rowid FROM chunks_vec WHERE embedding MATCH ? AND k = ${K} ORDER BY distance`);

  const queries = Array.from({ length: Math.min(QUERIES, size) }, () => {
    const source = chunkTexts[Math.floor(random() * chunkTexts.length)]!;
    const words = source[Math.floor(random() * source.length)]!.split(' ');
    const at = Math.floor(random() * (words.length - 6));
    return words.slice(at, at + 6).join(' ');
  });
  const tenetTimes: number[] = [];
  const vecTimes: number[] = [];
  const exactTimes: number[] = [];
  let tenetRecall = 0;
  let vecRecall = 0;
  for (const query of queries) {
    const [qv = []] = (await embeddings.embed([query], { purpose: 'bench' })).vectors;
    const q32 = Float32Array.from(qv);
    // Interleaved, so the shared machine's load swings hit all three alike.
    let t = performance.now();
    const truth = exactTopK(qv, vectors, ids, K);
    exactTimes.push(performance.now() - t);

    if (size < 100_000 || tenetTimes.length < SERVICE_QUERIES_AT_100K) {
      t = performance.now();
      await service.search({ query, maxResults: K, threshold: 0 });
      tenetTimes.push(performance.now() - t);
    }
    // The vector side of the Tenet index: cosine over every candidate chunk, as `search` computes it (the index
    // is brute force, so this is exact by construction; measured, not assumed).
    tenetRecall += recallAt(exactTopK(q32, vectors, ids, K), truth);

    t = performance.now();
    const found = (knn.all(q32) as { rowid: number }[]).map((r) => ids[r.rowid - 1]!);
    vecTimes.push(performance.now() - t);
    vecRecall += recallAt(found, truth);
  }
  db.close();
  await index.close();
  rmSync(dir, { recursive: true, force: true });
  const row: Row = {
    size,
    tenet: { ingestPerSec, p50: percentile(tenetTimes, 50), p99: percentile(tenetTimes, 99), vectorRecall: tenetRecall / queries.length },
    sqliteVec: { insertPerSec, p50: percentile(vecTimes, 50), p99: percentile(vecTimes, 99), recall: vecRecall / queries.length },
    exact: { p50: percentile(exactTimes, 50), p99: percentile(exactTimes, 99) },
  };
  rows.push(row);
  console.error(`${size} chunks done (${queries.length} queries)`);
}

const out = [
  '| chunks | tenet search p50 / p99 (ms) | tenet vector recall@5 | tenet ingest (chunks/s) | sqlite-vec KNN p50 / p99 (ms) | sqlite-vec recall@5 | sqlite-vec insert (vectors/s) | exact brute force p50 / p99 (ms) |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.size.toLocaleString('en')} | ${ms(r.tenet.p50)} / ${ms(r.tenet.p99)} | ${r.tenet.vectorRecall.toFixed(3)} | ${Math.round(r.tenet.ingestPerSec)} | ${ms(r.sqliteVec.p50)} / ${ms(r.sqliteVec.p99)} | ${r.sqliteVec.recall.toFixed(3)} | ${Math.round(r.sqliteVec.insertPerSec)} | ${ms(r.exact.p50)} / ${ms(r.exact.p99)} |`,
  ),
];
console.log(out.join('\n'));
if (process.env['BENCH_JSON']) writeFileSync(process.env['BENCH_JSON'], JSON.stringify(rows, null, 2));
