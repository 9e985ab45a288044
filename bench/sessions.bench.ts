/**
 * Idle sessions benchmark: what an idle session (created, no message yet) costs the all-in-one host in memory,
 * and how fast sessions are created, next to the floor measured in the same run.
 *
 *   npm run bench:sessions
 *   BENCH_SESSIONS=10000 npm run bench:sessions          one size (default 10000,100000: cumulative, one host)
 *   BENCH_CONCURRENCY=32                                 creation requests in flight at once (default 16)
 *   BENCH_WARMUP=1000                                    sessions created before the floor (default 1000)
 *   BENCH_HEAP_SNAPSHOTS=<dir>                           also write a heap snapshot of each host before and after
 *   BENCH_JSON=<file>                                    also write the raw numbers
 *
 * The host is the all-in-one as `npm start` runs it (bench/sessions-process.ts: TENET_MODE=embedded, SQLite log in
 * a fresh data directory, offline provider, no demo) in its own process with --expose-gc. One agent is created
 * through the REST API, then BENCH_WARMUP sessions as the measured ones will be (they are not counted: a first burst
 * of requests raises the allocator's and the JIT's high-water marks once, by ±20-50 MB from run to run, which would
 * swamp 10k sessions' cost). The floor is that same process after a settle and V8's last-resort garbage collection, before
 * the measured sessions. Then sessions are created with POST /sessions (BENCH_CONCURRENCY at a time) up to each size in
 * turn (the sizes are cumulative: one host), and at each the process settles (BENCH_SETTLE_MS, default 3000) and
 * collects garbage again: RSS and V8 heap growth over the floor, divided by the sessions, is the cost of an idle
 * session (target: <= 2 KB RSS); the marginal cost is the RSS growth between two sizes per session created between
 * them. The oldest and the newest session are then read back (GET /sessions/{id} and its events) to check the host
 * still answers for them. Prints a Markdown table and the load average.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { http } from './turn-support.js';

const SIZES = (process.env['BENCH_SESSIONS'] ?? '10000,100000').split(',').map(Number);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const WARMUP = Number(process.env['BENCH_WARMUP'] ?? 1000);
const SETTLE_MS = Number(process.env['BENCH_SETTLE_MS'] ?? 3000);
const SNAPSHOTS = process.env['BENCH_HEAP_SNAPSHOTS'];
const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** process.memoryUsage() of the host after GC, and its RSS split (/proc/self/status). */
interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  rssAnon: number;
  rssFile: number;
  rssShmem: number;
}

/** The host process and a line-oriented conversation with it (bench/sessions-process.ts). */
class Host {
  private buffered = '';
  private readonly waiting: { prefix: string; resolve: (line: string) => void }[] = [];
  private readonly child: ChildProcess;

  constructor(dataDir: string) {
    this.child = spawn(process.execPath, ['--expose-gc', '--import', '@swc-node/register/esm-register', 'bench/sessions-process.ts'], {
      cwd: root,
      env: { ...process.env, TENET_DATA_DIR: dataDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        const at = this.waiting.findIndex((w) => line.startsWith(w.prefix));
        if (at >= 0) this.waiting.splice(at, 1)[0]!.resolve(line);
      }
    });
    let errors = '';
    this.child.stderr!.on('data', (chunk: Buffer) => void (errors = (errors + chunk.toString('utf8')).slice(-4_000)));
    this.child.once('exit', (code) => {
      for (const w of this.waiting.splice(0)) w.resolve(`exit ${code} ${errors}`);
    });
  }

  private next(prefix: string): Promise<string> {
    return new Promise<string>((resolve) => this.waiting.push({ prefix, resolve })).then((line) => {
      if (line.startsWith('exit')) throw new Error(`sessions host ${line}`);
      return line;
    });
  }

  async ready(): Promise<string> {
    return (await this.next('ready')).split(' ')[1]!;
  }

  async memory(): Promise<Memory> {
    const answer = this.next('memory');
    this.child.stdin!.write('memory\n');
    return JSON.parse((await answer).slice('memory '.length)) as Memory;
  }

  async snapshot(file: string): Promise<void> {
    const answer = this.next('snapshot');
    this.child.stdin!.write(`snapshot ${file}\n`);
    await answer;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

const dirBytes = (dir: string): number =>
  readdirSync(dir, { recursive: true }).reduce<number>((sum, name) => {
    const stat = statSync(join(dir, String(name)));
    return sum + (stat.isFile() ? stat.size : 0);
  }, 0);

interface Row {
  sessions: number;
  after: Memory;
  /** RSS and V8 heap growth over the floor, per session created so far. */
  rss_per_session_bytes: number;
  heap_per_session_bytes: number;
  /** RSS growth since the previous size, per session created since: what one more idle session costs. */
  rss_marginal_bytes: number | undefined;
  created_per_s: number;
  data_dir_per_session_bytes: number;
}

/** Creates `count` sessions of the agent, BENCH_CONCURRENCY at a time; the first and the last created. */
async function createSessions(url: string, agentId: string, count: number): Promise<{ first: string; last: string }> {
  let started = 0;
  let first = '';
  let last = '';
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (started < count) {
        started++;
        last = (await http<{ id: string }>('POST', `${url}/sessions`, { agent_id: agentId })).body.id;
        first ||= last;
      }
    }),
  );
  return { first, last };
}

/**
 * One host for every size, ascending: the floor before any session, then sessions created up to each size in turn
 * and the host measured there — the 100k row includes the 10k row's sessions, and the marginal cost between two
 * rows is free of whatever the first burst of work costs once (allocator and JIT high-water marks).
 */
async function measure(sizes: number[]): Promise<{ floor: Memory; rows: Row[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tenet-bench-sessions-'));
  const host = new Host(dataDir);
  try {
    const url = await host.ready();
    const agentId = (await http<{ id: string }>('POST', `${url}/agents`, { name: 'Support', description: 'Idle sessions' })).body.id;
    // Warm-up sessions and a read-back warm the code paths (JIT, lazily created services, the allocator) before the floor.
    const warm = await createSessions(url, agentId, Math.max(1, WARMUP));
    await http('GET', `${url}/sessions/${warm.last}/events`);
    await http('GET', `${url}/sessions?agent_id=${agentId}&limit=10`);
    await sleep(SETTLE_MS);
    const floor = await host.memory();
    const dataBefore = dirBytes(dataDir);
    if (SNAPSHOTS) await host.snapshot(join(SNAPSHOTS, 'sessions-0.heapsnapshot'));
    log(`floor: RSS ${mb(floor.rss)} MB, heap ${mb(floor.heapUsed)} MB`);
    const rows: Row[] = [];
    let created = 0;
    let first = '';
    let last = '';
    for (const sessions of sizes) {
      const from = created;
      const started = performance.now();
      const batch = await createSessions(url, agentId, sessions - created);
      created = sessions;
      first ||= batch.first;
      last = batch.last;
      const seconds = (performance.now() - started) / 1000;
      await sleep(SETTLE_MS);
      const after = await host.memory();
      if (SNAPSHOTS) await host.snapshot(join(SNAPSHOTS, `sessions-${sessions}.heapsnapshot`));
      // The host still answers for the newest and the oldest session (whatever it keeps in memory of them).
      for (const id of [last, first]) {
        const session = await http<{ id: string }>('GET', `${url}/sessions/${id}`);
        if (session.body.id !== id) throw new Error(`GET /sessions/${id} answered ${JSON.stringify(session.body)}`);
        await http('GET', `${url}/sessions/${id}/events`);
      }
      const previous = rows.at(-1);
      const row: Row = {
        sessions,
        after,
        rss_per_session_bytes: (after.rss - floor.rss) / sessions,
        heap_per_session_bytes: (after.heapUsed - floor.heapUsed) / sessions,
        rss_marginal_bytes: previous && (after.rss - previous.after.rss) / (sessions - previous.sessions),
        created_per_s: (sessions - from) / seconds,
        data_dir_per_session_bytes: (dirBytes(dataDir) - dataBefore) / sessions,
      };
      rows.push(row);
      log(
        `  ${sessions}: ${JSON.stringify(Object.fromEntries(Object.entries(after).map(([k, v]) => [k, `${mb(v - floor[k as keyof Memory])} MB`])))} more than the floor`,
      );
      log(
        `${sessions} sessions: ${sessions - from} created in ${seconds.toFixed(1)} s (${Math.round(row.created_per_s)}/s); RSS ${mb(after.rss)} MB ` +
          `(+${kb(row.rss_per_session_bytes)} KB/session), heap +${kb(row.heap_per_session_bytes)} KB/session`,
      );
    }
    return { floor, rows };
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
const kb = (bytes: number): string => (bytes / 1024).toFixed(2);
const loadStart = loadavg()[0]!;
const { floor, rows } = await measure([...SIZES].sort((a, b) => a - b));
const loadEnd = loadavg()[0]!;
process.stdout.write(
  [
    '| idle sessions | RSS (MB) | RSS per session (KB) | marginal RSS per session (KB) | V8 heap used (MB) | heap per session (KB) | created/s | data dir per session (KB) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| 0 (floor) | ${mb(floor.rss)} | | | ${mb(floor.heapUsed)} | | | |`,
    ...rows.map(
      (r) =>
        `| ${r.sessions} | ${mb(r.after.rss)} | ${kb(r.rss_per_session_bytes)} | ${r.rss_marginal_bytes === undefined ? '' : kb(r.rss_marginal_bytes)} | ${mb(r.after.heapUsed)} | ` +
        `${kb(r.heap_per_session_bytes)} | ${Math.round(r.created_per_s)} | ${kb(r.data_dir_per_session_bytes)} |`,
    ),
  ].join('\n') + '\n\n',
);
process.stdout.write(
  `Floor: the same host process before the measured sessions (after ${WARMUP} warm-up sessions), after V8's last-resort GC. ${CONCURRENCY} creation requests in flight. Node ${process.version}, ` +
    `${availableParallelism()} cores, load average ${loadStart.toFixed(2)} at the start, ${loadEnd.toFixed(2)} at the end.\n`,
);
const out = process.env['BENCH_JSON'];
if (out)
  writeFileSync(
    out,
    `${JSON.stringify({ node: process.version, concurrency: CONCURRENCY, loadavg: [loadStart, loadEnd], floor, rows }, null, 2)}\n`,
  );
