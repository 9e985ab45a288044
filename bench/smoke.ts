/**
 * `npm run bench:smoke`: every `bench:*` script of package.json in its shortest form (a round, a few turns or
 * calls, the smallest sizes), one after another, so a bench that no longer runs cannot land: CI runs this. It
 * measures nothing and checks no threshold; a bench fails when it exits non-zero, prints nothing, or runs past
 * its time limit. A new bench is included by being a `bench:*` script; SHORTEST gives its knobs.
 *
 *   npm run bench:smoke                             all of them
 *   BENCH_SMOKE_ONLY=bench:turn,bench:tools npm run bench:smoke
 *   BENCH_SMOKE_PACKAGE=<dir>/package.json          another package's benches (the smoke test uses this)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shortest form of each bench: its own knobs (see each bench's header). */
const SHORTEST: Record<string, Record<string, string>> = {
  'bench:foundation': { BENCH_ROUNDS: '1', BENCH_SQLITE_EVENTS: '200', BENCH_NATS_EVENTS: '200' },
  'bench:startup': {
    TENET_BENCH_RUNS: '1',
    TENET_BENCH_IDLE_MS: '200',
    TENET_BENCH_LOG_SIZES: '0,100',
    TENET_BENCH_APPS: 'tenet (demo),journey-engine',
  },
  'bench:turn': {
    BENCH_ROUNDS: '1',
    BENCH_SESSIONS: '2',
    BENCH_SEQUENTIAL_SESSIONS: '1',
    BENCH_TURNS_PER_SESSION: '2',
    BENCH_LONG_SESSION: '4',
    BENCH_IDLE_PROBES: '5',
    BENCH_IDLE_TURNS: '2',
  },
  'bench:tools': { BENCH_ROUNDS: '1', BENCH_CALLS: '10', BENCH_THROUGHPUT_CALLS: '20', BENCH_CONCURRENCY: '4' },
  'bench:retrieval': { BENCH_SIZES: '200', BENCH_QUERIES: '5' },
  'bench:budgets': { BENCH_ROUNDS: '1', BENCH_CALLS: '50' },
  'bench:relay-workspaces': { BENCH_ROUNDS: '1', BENCH_SESSIONS: '5', BENCH_EVENTS_PER_SESSION: '2' },
  'bench:matching': { BENCH_TURNS: '2' },
  'bench:intents': { BENCH_INTENTS_LIMIT: '2' },
  'bench:channels': { BENCH_MESSAGES: '10' },
  'bench:knowledge-disk': { BENCH_AGENTS: '3' },
  'bench:knowledge-open': { BENCH_SIZES: '1000' },
  'bench:sessions': { BENCH_SESSIONS: '20,40', BENCH_WARMUP: '5', BENCH_SETTLE_MS: '100' },
};

/** Benches that cannot run here, and why (printed: never skipped silently). */
const NOT_HERE: Record<string, string> = {
  'bench:matching:compare': "runs Parlant's own Python server side by side, which this machine's registries do not provide",
};

const TIME_LIMIT_MS = Number(process.env['BENCH_SMOKE_TIMEOUT_MS'] ?? 300_000);

const packageFile = resolve(process.env['BENCH_SMOKE_PACKAGE'] ?? fileURLToPath(new URL('../package.json', import.meta.url)));
const { scripts = {} } = JSON.parse(readFileSync(packageFile, 'utf8')) as { scripts?: Record<string, string> };
const only = process.env['BENCH_SMOKE_ONLY']
  ?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const benches = Object.keys(scripts).filter(
  (name) => name.startsWith('bench:') && name !== 'bench:smoke' && (only === undefined || only.includes(name)),
);

interface Outcome {
  name: string;
  ok: boolean;
  seconds: number;
  why?: string;
  tail?: string;
}

function run(name: string): Promise<Outcome> {
  const started = performance.now();
  const child = spawn('npm', ['run', '--silent', name], {
    cwd: dirname(packageFile),
    env: { ...process.env, ...SHORTEST[name] },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let timedOut = false;
  // The bench and everything it started are one process group: a hung one is ended whole.
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, TIME_LIMIT_MS);
  return new Promise((resolvePromise) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const tail = output.trim().split('\n').slice(-30).join('\n');
      const why = timedOut
        ? `ran past ${TIME_LIMIT_MS / 1000} s`
        : code !== 0
          ? `exited with ${code ?? signal}`
          : output.trim() === ''
            ? 'printed nothing'
            : undefined;
      resolvePromise({ name, ok: why === undefined, seconds, ...(why ? { why, tail } : {}) });
    });
  });
}

for (const [name, reason] of Object.entries(NOT_HERE))
  if (benches.includes(name)) console.log(`bench:smoke: not run here: ${name} — ${reason}`);
const outcomes: Outcome[] = [];
for (const name of benches.filter((name) => !(name in NOT_HERE))) {
  const outcome = await run(name);
  outcomes.push(outcome);
  console.log(
    outcome.ok
      ? `bench:smoke: ran ${name} (${outcome.seconds.toFixed(1)} s)`
      : `bench:smoke: BROKEN ${name}: ${outcome.why} (${outcome.seconds.toFixed(1)} s)\n${outcome.tail ?? ''}`,
  );
}
const broken = outcomes.filter((o) => !o.ok);
console.log(
  broken.length === 0
    ? `bench:smoke: every bench ran (${outcomes.length})`
    : `bench:smoke: ${broken.length} of ${outcomes.length} benches broken: ${broken.map((o) => o.name).join(', ')}`,
);
process.exitCode = broken.length === 0 ? 0 : 1;
