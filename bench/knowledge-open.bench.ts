/**
 * Opening the embedded knowledge index (ADR 0034, amendment "Lexical side opened in the background"): how long the
 * constructor holds the event loop, the longest stretch the event loop is held from the constructor until the lexical
 * side answers, and how long until then — with the BM25 snapshot, and with it deleted (the rebuild from the text rows).
 *
 *   npm run bench:knowledge-open
 *   (BENCH_SIZES=10000,100000; BENCH_DIR=<folder> keeps the built databases there between runs)
 *
 * Corpus: the retrieval bench's sources (100 sections of 40 seeded words each, every tenth tagged to one of 10 agents),
 * written with zero vectors, so the database holds no vector rows and no graph is loaded or built: what is measured is
 * the lexical side and the SQLite open. Event-loop blocking: a 1 ms interval timer's largest gap between two ticks
 * (`longest gap`), from just before the constructor until
 * the first lexical answer; `/healthz` cannot answer for longer than that. Each gap's CPU time (the process's, every
 * thread) is measured too: on a shared machine a long gap with little CPU is another process's load, not a block.
 * (`perf_hooks.monitorEventLoopDelay` was tried and dropped: on Node 24 its maximum missed the constructor's
 * synchronous 270 ms–1.3 s blocks of the earlier code, reporting 5–240 ms.)
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SqliteKnowledgeIndex } from '@tenet/memory-service';
import { BM25_SNAPSHOT_SUFFIX, SQLITE_KNOWLEDGE_FILE } from '../libs/memory/service/src/sqlite-knowledge-index.js';
import { sentence } from './retrieval-corpus.js';

const SIZES = (process.env['BENCH_SIZES'] ?? '10000,100000').split(',').map(Number);
const ROOT = process.env['BENCH_DIR'] ?? join(tmpdir(), `tenet-bench-open-${process.pid}`);
const PER_SOURCE = 100;

async function build(dir: string, size: number): Promise<void> {
  const index = new SqliteKnowledgeIndex({ dataDir: dir });
  for (let s = 0; s < size / PER_SOURCE; s++) {
    const sourceId = `src-${s}`;
    const agentIds = s % 10 === 9 ? [`agent-${Math.floor(s / 10) % 10}`] : [];
    await index.replaceSource(
      {
        sourceId,
        title: `Document ${s}`,
        format: 'markdown',
        agentIds,
        contentHash: sourceId,
        chunkCount: PER_SOURCE,
        embeddingModel: 'none/none/0',
        ingestedAt: new Date(0).toISOString(),
      },
      Array.from({ length: PER_SOURCE }, (_, c) => ({
        chunkId: `${sourceId}-${c}`,
        sourceId,
        ordinal: c,
        heading: `Section ${c}`,
        text: sentence(40),
        vector: [],
      })),
    );
  }
  await index.close();
}

interface Opened {
  constructorMs: number;
  readyMs: number;
  longestBlockMs: number;
  /** The process's CPU time (every thread) in the gap of most CPU: a long gap with little CPU was the machine's other load. */
  mostCpuInGapMs: number;
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function open(dir: string): Promise<Opened> {
  let last = performance.now();
  let lastCpu = cpuMs();
  let longest = 0;
  let mostCpu = 0;
  let started = Infinity;
  const tick = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    if (process.env['BENCH_DEBUG'] && now - last > 20)
      console.error(`gap ${(now - last).toFixed(0)} ms (cpu ${(cpu - lastCpu).toFixed(0)} ms) ending ${(now - started).toFixed(0)}`);
    longest = Math.max(longest, now - last);
    mostCpu = Math.max(mostCpu, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  }, 1);
  // The ticks run before the constructor: the first gap measured includes it.
  await new Promise((resolve) => setTimeout(resolve, 20));
  longest = 0;
  mostCpu = 0;
  started = performance.now();
  const index = new SqliteKnowledgeIndex({ dataDir: dir });
  const constructorMs = performance.now() - started;
  const warming = index as unknown as { whenLexicalReady?: () => Promise<void> };
  if (warming.whenLexicalReady) await warming.whenLexicalReady();
  await index.lexical({ text: 'kasan romi', agentId: 'agent-0', k: 20 });
  const readyMs = performance.now() - started;
  // The tick after the answer closes the last gap.
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(tick);
  await index.close();
  return { constructorMs, readyMs, longestBlockMs: longest, mostCpuInGapMs: mostCpu };
}

const f = (n: number): string => Math.round(n).toLocaleString('en');
console.log(
  '| chunks | open | constructor (ms) | longest gap between 1 ms ticks (ms) | most CPU in one gap (ms) | until lexical answers (ms) |',
);
console.log('|---|---|---|---|---|---|');
for (const size of SIZES) {
  const dir = join(ROOT, `open-${size}`);
  if (!existsSync(join(dir, SQLITE_KNOWLEDGE_FILE))) {
    mkdirSync(dir, { recursive: true });
    const t = performance.now();
    await build(dir, size);
    console.error(`${size}: built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  // A first open writes the snapshot if the build did not leave one; then measured with it, then without it.
  await open(dir);
  const row = (what: string, r: Opened): void =>
    console.log(`| ${f(size)} | ${what} | ${f(r.constructorMs)} | ${f(r.longestBlockMs)} | ${f(r.mostCpuInGapMs)} | ${f(r.readyMs)} |`);
  row('BM25 snapshot', await open(dir));
  rmSync(join(dir, `${SQLITE_KNOWLEDGE_FILE}${BM25_SNAPSHOT_SUFFIX}`), { force: true });
  row('no snapshot (rebuild)', await open(dir));
  if (!process.env['BENCH_DIR']) rmSync(dir, { recursive: true, force: true });
}
if (!process.env['BENCH_DIR']) rmSync(ROOT, { recursive: true, force: true });
