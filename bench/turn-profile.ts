/**
 * Where an all-in-one turn's CPU goes: sequential turns against an embedded host (zero-latency provider, the client in
 * the process, as bench:turn's all-in-one half), timed with the main thread's own CPU clock.
 *
 *   node --import @swc-node/register/esm-register bench/turn-profile.ts
 *   TURNS=200 SESSION_TURNS=60 PROFILE=/tmp/turn.cpuprofile node --import @swc-node/register/esm-register bench/turn-profile.ts
 *
 * Each of TURNS / 10 sessions first runs SESSION_TURNS - 10 unmeasured turns (a long session: SESSION_TURNS=60), then 10
 * measured ones. Prints per measured turn: main-thread CPU (`process.threadCpuUsage`, so the WAL checkpointer's worker
 * is left out), process CPU, the CPU spent inside the event store's commits and tail-cache lookups, SQLite write
 * transactions and appends, and the p50 latency. PROFILE writes a CPU profile of the measured turns only
 * (`node:inspector`, 200 µs sampling; open it in Chrome DevTools).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore, type EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { CUSTOMER_MESSAGE, GUIDELINES, http, median, ZeroLatencyProvider } from './turn-support.js';

const TURNS = Number(process.env['TURNS'] ?? 200);
const SESSION_TURNS = Math.max(10, Number(process.env['SESSION_TURNS'] ?? 10));
const PROFILE = process.env['PROFILE'];

/** The store's private parts this probe times (bench only: they are not part of any contract). */
interface StoreInternals {
  commits: { transactions: number; appends: number };
  commitPending(): void;
  tailCovering(streamId: string, fromOffset: number): unknown;
}

const threadCpuMs = (since?: NodeJS.CpuUsage): number => {
  const used = process.threadCpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** Wraps a method so that the main-thread CPU spent inside it is added to `total.ms`. */
function timeInside<T extends object>(target: T, name: keyof T & string, total: { ms: number; calls: number }): void {
  const original = (target[name] as (...args: unknown[]) => unknown).bind(target);
  (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
    const started = process.threadCpuUsage();
    try {
      return original(...args);
    } finally {
      total.ms += threadCpuMs(started);
      total.calls++;
    }
  };
}

const dir = mkdtempSync(join(tmpdir(), 'tenet-turn-profile-'));
const host = await startAllInOne({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir }, { provider: new ZeroLatencyProvider() });
try {
  const url = host.url;
  const agent = (await http<{ id: string }>('POST', `${url}/agents`, { name: 'Support', description: 'Helps customers' })).body.id;
  for (const guideline of GUIDELINES) await http('POST', `${url}/guidelines`, { ...guideline, tags: [`agent:${agent}`] });
  const newSession = async (): Promise<string> => (await http<{ id: string }>('POST', `${url}/sessions`, { agent_id: agent })).body.id;
  const turn = async (sessionId: string): Promise<void> => {
    const posted = await http<{ offset: number }>('POST', `${url}/sessions/${sessionId}/events`, {
      kind: 'message',
      source: 'customer',
      message: CUSTOMER_MESSAGE,
    });
    for (let cursor = posted.body.offset + 1; ;) {
      const { body } = await http<{ offset: number; data: { status?: string } }[]>(
        'GET',
        `${url}/sessions/${sessionId}/events?min_offset=${cursor}&kinds=status&wait_for_data=30`,
      );
      if (body.some((event) => event.data.status === 'ready')) return;
      cursor = (body.at(-1)?.offset ?? cursor - 1) + 1;
    }
  };

  const outer = host.app.get<EventStore>(EVENT_STORE);
  const inner = (outer as unknown as { store?: EventStore }).store ?? outer;
  if (!(inner instanceof SqliteEventStore)) throw new Error('the embedded host is expected to run on SqliteEventStore');
  const internals = inner as unknown as StoreInternals;
  const commits = { ms: 0, calls: 0 };
  const lookups = { ms: 0, calls: 0 };

  for (let i = 0; i < 3; i++) {
    const warm = await newSession();
    for (let t = 0; t < 10; t++) await turn(warm);
  }
  const sessions: string[] = [];
  for (let s = 0; s < TURNS / 10; s++) {
    const sessionId = await newSession();
    sessions.push(sessionId);
    for (let t = 0; t < SESSION_TURNS - 10; t++) await turn(sessionId);
  }
  timeInside(internals, 'commitPending', commits);
  timeInside(internals, 'tailCovering', lookups);
  const written = { ...internals.commits };
  const profiler = PROFILE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
    await profiler.post('Profiler.start');
  }
  const processStart = process.cpuUsage();
  const threadStart = process.threadCpuUsage();
  const latencies: number[] = [];
  for (const sessionId of sessions)
    for (let t = 0; t < 10; t++) {
      const started = performance.now();
      await turn(sessionId);
      latencies.push(performance.now() - started);
    }
  const mainMs = threadCpuMs(threadStart);
  const processUsed = process.cpuUsage(processStart);
  if (profiler && PROFILE) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(PROFILE, JSON.stringify(profile));
    profiler.disconnect();
  }
  const n = latencies.length;
  const perTurn = (value: number): string => (value / n).toFixed(2);
  console.log(
    [
      `${n} turns (turns ${SESSION_TURNS - 9}-${SESSION_TURNS} of ${sessions.length} sessions), per turn:`,
      `  main-thread CPU ${perTurn(mainMs)} ms, process CPU ${perTurn((processUsed.user + processUsed.system) / 1000)} ms, p50 ${median(latencies).toFixed(2)} ms`,
      `  commits: ${perTurn(commits.ms)} ms CPU in ${perTurn(internals.commits.transactions - written.transactions)} transactions (${perTurn(internals.commits.appends - written.appends)} appends)`,
      `  tail-cache lookups: ${perTurn(lookups.ms)} ms CPU in ${perTurn(lookups.calls)} lookups`,
      ...(PROFILE ? [`  CPU profile of the measured turns: ${PROFILE}`] : []),
    ].join('\n'),
  );
} finally {
  await host.app.close();
  rmSync(dir, { recursive: true, force: true });
}
