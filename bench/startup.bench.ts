/**
 * `npm run bench:startup`: start-up time, CPU spent starting, and idle RSS of every Tenet process, run from
 * TypeScript source (@swc-node, as `npm start` does) and from the compiled build (`node dist/apps/<app>/main.js`,
 * after `npm run build`). Each process is started alone, timed until `GET /healthz` answers, then left idle
 * for TENET_BENCH_IDLE_MS (default 5000) before its RSS is read from /proc. Distributed services use NATS_URL
 * and REDIS_URL (default the local ones) under the bench's own TENET_NAMESPACE and TENET_REDIS_PREFIX, whose
 * streams and keys are deleted at the end (the NATS and Redis may be shared). Runs TENET_BENCH_RUNS (default 3)
 * times and reports medians.
 *
 * The floor, measured first in the same run: bench/startup-floor.mjs, a NestJS app with one HTTP controller and a
 * NATS connection; each row gives its idle RSS as a multiple of it. TENET_BENCH_APPS and TENET_BENCH_VARIANTS
 * (source,compiled, and `cache`: the build with Node's compile cache, cold and warm) narrow the rows;
 * TENET_BENCH_BASELINE_DIST=<another build's dist/> adds it as a `baseline` row (before/after in one run). Each
 * variant runs with the V8 heap flags of its start script (see `startFlags`), as it is run in production.
 *
 * Second section (bench/startup-log-size.ts): first `GET /agents` and first turn after a restart on an event log
 * of TENET_BENCH_LOG_SIZES (default 0,10000,100000) events. TENET_BENCH_SECTIONS=processes,log-size (default
 * both) picks the sections.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import { deleteRedisKeys, deleteStreams } from '@tenet/testing';
import { logSizeBench } from './startup-log-size.js';

const root = resolve(import.meta.dirname, '..');
const runs = Number(process.env['TENET_BENCH_RUNS'] ?? 3);
const idleMs = Number(process.env['TENET_BENCH_IDLE_MS'] ?? 5000);
const ticks = 100; // USER_HZ on Linux
/** TENET_BENCH_APPS=journey-engine,metering measures those rows only (and the floor). */
const only = process.env['TENET_BENCH_APPS']?.split(',').map((name) => name.trim());
const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
// This run's own streams and BullMQ keys on the (possibly shared) NATS and Redis, removed when it ends.
const id = randomUUID().slice(0, 8);
const shared = {
  NATS_URL: natsUrl,
  REDIS_URL: redisUrl,
  TENET_NAMESPACE: `bench-startup-${id}`,
  TENET_REDIS_PREFIX: `bench-startup-${id}`,
};
const allApps: { name: string; app: string; env: Record<string, string> }[] = [
  { name: 'tenet', app: 'tenet', env: { TENET_DEMO: 'off' } },
  // What `npm start` runs: the demo agent seeded (with its order-status tool service), no language model.
  { name: 'tenet (demo)', app: 'tenet', env: { TENET_LLM_PROVIDER: 'offline' } },
  { name: 'session-gateway', app: 'session-gateway', env: { TENET_MODE: 'distributed', TENET_AUTH: 'off' } },
  { name: 'guideline-matcher', app: 'guideline-matcher', env: { TENET_MODE: 'distributed' } },
  { name: 'metering', app: 'metering', env: { TENET_MODE: 'distributed' } },
  { name: 'journey-engine', app: 'journey-engine', env: { TENET_MODE: 'distributed' } },
  { name: 'tool-executor', app: 'tool-executor', env: { TENET_MODE: 'distributed' } },
  { name: 'memory-store', app: 'memory-store', env: { TENET_MODE: 'distributed', TENET_AUTH: 'off' } },
  { name: 'channel-gateway', app: 'channel-gateway', env: { TENET_MODE: 'distributed', TENET_AUTH: 'off' } },
];
const apps = allApps.filter(({ name }) => only === undefined || only.includes(name));
/**
 * `compiled+cache cold` / `compiled+cache warm`: the build with Node's on-disk compile cache (NODE_COMPILE_CACHE), on a
 * fresh cache directory (the first start after a deploy) and on one a previous, unmeasured start filled (every later
 * start). Added by TENET_BENCH_VARIANTS=…,cache.
 */
type Variant = 'source' | 'compiled' | 'baseline' | 'plain' | 'compiled+cache cold' | 'compiled+cache warm';
/** TENET_BENCH_BASELINE_DIST: another build's dist/ (e.g. main's) measured in the same run as the `baseline` variant. */
const baselineDist = process.env['TENET_BENCH_BASELINE_DIST'];
/**
 * The node flags a build runs with: those of its repository's `start:prod` (`node <flags> dist/apps/tenet/main.js`; the
 * image sets the same through NODE_OPTIONS), so each build is measured as it is started. The baseline's come from the
 * package.json next to its dist/ (none if there is none); `npm start`'s for the source variant.
 */
const startFlags = (manifest: string, script: string): string[] => {
  if (!existsSync(manifest)) return [];
  const command = (JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: Record<string, string> }).scripts?.[script] ?? '';
  return command.split(/\s+/).filter((word) => /^--max-(semi|old)-space-size=/.test(word));
};
const flags = {
  compiled: startFlags(join(root, 'package.json'), 'start:prod'),
  source: startFlags(join(root, 'package.json'), 'start'),
  baseline: baselineDist === undefined ? [] : startFlags(join(resolve(baselineDist), '..', 'package.json'), 'start:prod'),
};
const args = (app: string, variant: Variant): string[] =>
  variant === 'plain'
    ? [join(root, 'bench', app)]
    : variant === 'source'
      ? [...flags.source, '--import', '@swc-node/register/esm-register', `apps/${app}/src/main.ts`]
      : variant === 'baseline'
        ? [...flags.baseline, join(resolve(baselineDist!), 'apps', app, 'main.js')]
        : [...flags.compiled, join(root, 'dist', 'apps', app, 'main.js')];

const cpuSeconds = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks; // utime + stime
};
const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function measure(
  app: string,
  env: Record<string, string>,
  variant: Variant,
  port: number,
  compileCache?: string,
): Promise<{ startMs: number; cpuS: number; rssMb: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tenet-bench-startup-'));
  const started = performance.now();
  const child = spawn(process.execPath, args(app, variant), {
    cwd: root,
    env: {
      ...process.env,
      ...shared,
      ...env,
      PORT: String(port),
      TENET_DATA_DIR: dataDir,
      ...(compileCache === undefined ? {} : { NODE_COMPILE_CACHE: compileCache }),
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${app} (${variant}) exited with ${child.exitCode}`);
      if (
        await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (performance.now() - started > 120_000) throw new Error(`${app} (${variant}) not healthy after 120 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const startMs = performance.now() - started;
    const cpuS = cpuSeconds(child.pid!);
    await new Promise((r) => setTimeout(r, idleMs));
    return { startMs, cpuS, rssMb: rssMb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const built = existsSync(join(root, 'dist/apps/tenet/main.js'));
if (!built) console.warn('dist/ not built — measuring the source variant only (run `npm run build` first)');
/** TENET_BENCH_VARIANTS=compiled measures the build only. */
const requested = process.env['TENET_BENCH_VARIANTS']?.split(',') ?? ['source', 'compiled'];
const variants: Variant[] = [
  ...requested.filter((v): v is Variant => v === 'source' || (v === 'compiled' && built)),
  ...(requested.includes('cache') && built ? (['compiled+cache cold', 'compiled+cache warm'] as const) : []),
  ...(baselineDist === undefined ? [] : (['baseline'] as const)),
];

const sections = (process.env['TENET_BENCH_SECTIONS'] ?? 'processes,log-size').split(',');
let port = 18_700 + Math.floor(Math.random() * 500);
if (sections.includes('processes')) {
  // The floor (bench/startup-floor.mjs: NestJS, one HTTP controller, a NATS connection), in the same run: the
  // ratio column is each process's idle RSS over it.
  const row = async (name: string, app: string, env: Record<string, string>, variant: Variant, floorRss?: number): Promise<number> => {
    const samples = [];
    // A warm cache is filled by one start that is not measured; a cold one is a fresh directory for every start.
    const cacheDir = (): string => mkdtempSync(join(tmpdir(), 'tenet-bench-compile-cache-'));
    const warm = variant === 'compiled+cache warm' ? cacheDir() : undefined;
    if (warm !== undefined) await measure(app, env, variant, port++, warm);
    for (let i = 0; i < runs; i++) {
      const cache = variant === 'compiled+cache cold' ? cacheDir() : warm;
      samples.push(await measure(app, env, variant, port++, cache));
      if (cache !== undefined && cache !== warm) rmSync(cache, { recursive: true, force: true });
    }
    if (warm !== undefined) rmSync(warm, { recursive: true, force: true });
    const rss = median(samples.map((s) => s.rssMb));
    const ratio = floorRss === undefined ? '1.00' : (rss / floorRss).toFixed(2);
    console.log(
      `| ${name} | ${variant} | ${median(samples.map((s) => s.startMs)).toFixed(0)} | ${median(samples.map((s) => s.cpuS)).toFixed(2)} | ${rss.toFixed(0)} | ${ratio} |`,
    );
    return rss;
  };
  const shown = (list: string[]): string => (list.length === 0 ? 'none' : list.join(' '));
  console.log(
    `node flags (from the start scripts): source ${shown(flags.source)}, compiled ${shown(flags.compiled)}` +
      (baselineDist === undefined ? '' : `, baseline ${shown(flags.baseline)}`) +
      '; the floor none',
  );
  console.log(`| process | variant | start-up (ms) | CPU to ready (s) | idle RSS (MB) | × floor RSS |\n|---|---|---|---|---|---|`);
  try {
    const floorRss = await row('floor (NestJS + HTTP controller + NATS connection)', 'startup-floor.mjs', {}, 'plain');
    for (const { name, app, env } of apps) {
      for (const variant of variants) await row(name, app, env, variant, floorRss);
    }
  } finally {
    await deleteStreams(
      natsUrl,
      tenetStreamsFor({ namespace: shared.TENET_NAMESPACE, streamLimits: {} }).map((stream) => stream.name),
    );
    await deleteRedisKeys(redisUrl, shared.TENET_REDIS_PREFIX);
  }
}
if (sections.includes('log-size')) {
  const sizes = (process.env['TENET_BENCH_LOG_SIZES'] ?? '0,10000,100000').split(',').map(Number);
  const rows = await logSizeBench(sizes, runs, (line) => console.error(line));
  console.log(
    `\n| events in the log | start-up to /healthz (ms) | first GET /agents (ms) | first turn (ms) | second turn (ms) |\n|---:|---:|---:|---:|---:|`,
  );
  for (const r of rows)
    console.log(
      `| ${r.events} | ${r.ready_ms.toFixed(0)} | ${r.first_agents_ms.toFixed(1)} | ${r.first_turn_ms.toFixed(1)} | ${r.second_turn_ms.toFixed(1)} |`,
    );
}
