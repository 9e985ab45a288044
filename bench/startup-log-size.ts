/**
 * Part of `npm run bench:startup`: do first reads after a restart cost time in proportion to the event log?
 *
 * For each log size (TENET_BENCH_LOG_SIZES, default 0,10000,100000 events): an all-in-one host
 * (bench/turn-process.ts all-in-one: embedded mode, SQLite, zero-latency LLM) gets an agent with 5 guidelines
 * and one real 3-turn session through the API and is stopped; the session's events (session-, sessionmeta-,
 * turnlease- streams, and its usage records) are then copied under new session ids straight into the SQLite
 * file until the log holds that many events more, and the relay's checkpoint is moved past them (they are
 * history, already published). Then the host is restarted twice on that file, measuring from its first
 * `/healthz` 200:
 *   - first `GET /agents` on a fresh process,
 *   - first turn on another fresh process: `POST /sessions`, the customer message, long-poll until `ready`.
 * Medians of TENET_BENCH_RUNS (default 3) restarts each. Size 0 is the empty-log reference, same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SqliteEventStore, type NewEvent } from '@tenet/event-store';
import { CUSTOMER_MESSAGE, GUIDELINES, http, median } from './turn-support.js';

const root = resolve(import.meta.dirname, '..');
const RELAY_CHECKPOINT = 'tenet.v1.relay'; // platform-adapters.ts

interface Host {
  child: ChildProcess;
  url: string;
  /** ms from spawn to the first 200 of /healthz */
  readyMs: number;
}

export async function startHost(dataDir: string): Promise<Host> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...(process.env['BENCH_NODE_ARGS']?.split(' ').filter(Boolean) ?? []),
      '--import',
      '@swc-node/register/esm-register',
      'bench/turn-process.ts',
      'all-in-one',
    ],
    {
      cwd: root,
      env: { ...process.env, TENET_DATA_DIR: dataDir, TENET_DEMO: 'off', TENET_LLM_PROVIDER: 'offline' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('ready '));
      if (line) resolveUrl(line.split(' ')[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => void (out += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`all-in-one host exited with ${code}: ${out.slice(-2_000)}`)));
  });
  for (;;) {
    if (
      await http('GET', `${url}/healthz`).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, url, readyMs: performance.now() - started };
}

export async function stopHost(host: Host): Promise<void> {
  if (host.child.exitCode !== null) return;
  const exited = new Promise((r) => host.child.once('exit', r));
  host.child.kill('SIGTERM');
  const timer = setTimeout(() => host.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export async function turn(url: string, agentId: string, sessionId?: string): Promise<string> {
  const id = sessionId ?? (await http<{ id: string }>('POST', `${url}/sessions`, { agent_id: agentId })).body.id;
  const posted = await http<{ offset: number }>('POST', `${url}/sessions/${id}/events`, {
    kind: 'message',
    source: 'customer',
    message: CUSTOMER_MESSAGE,
  });
  let cursor = posted.body.offset + 1;
  for (;;) {
    const { body } = await http<{ offset: number; data: { status?: string } }[]>(
      'GET',
      `${url}/sessions/${id}/events?min_offset=${cursor}&kinds=status&wait_for_data=60`,
    );
    if (body.some((e) => e.data.status === 'ready')) return id;
    if (body.some((e) => e.data.status === 'error')) throw new Error('turn ended in error');
    cursor = (body.at(-1)?.offset ?? cursor - 1) + 1;
  }
}

/** The template session's events, copied under new ids until `count` events were added. */
export async function grow(dataDir: string, sessionId: string, agentId: string, count: number): Promise<number> {
  const store = SqliteEventStore.open({ dataDir });
  try {
    const template = (await store.readAll()).filter((e) => e.streamId.includes(sessionId) || e.streamId === `usage-${agentId}`);
    const streams = new Map<string, NewEvent[]>();
    for (const e of template) {
      const list = streams.get(e.streamId) ?? [];
      list.push({ type: e.type, data: e.data, metadata: e.metadata });
      streams.set(e.streamId, list);
    }
    let added = 0;
    let last = 0;
    for (let copy = 0; added < count; copy++) {
      const newSession = `bench${String(copy).padStart(10, '0')}`;
      const rename = (text: string): string =>
        text
          .split(sessionId)
          .join(newSession)
          .split(agentId)
          .join(`benchagent${copy % 100}`);
      for (const [streamId, events] of streams) {
        const batch = events.slice(0, count - added).map((e) => JSON.parse(rename(JSON.stringify(e))) as NewEvent);
        if (batch.length === 0) break;
        last = (await store.append(rename(streamId), batch)).lastPosition;
        added += batch.length;
      }
    }
    await store.saveCheckpoint(RELAY_CHECKPOINT, last);
    return last;
  } finally {
    await store.close();
  }
}

export interface LogSizeRow {
  events: number;
  ready_ms: number;
  first_agents_ms: number;
  first_turn_ms: number;
  second_turn_ms: number;
}

export async function logSizeBench(sizes: number[], runs: number, log: (line: string) => void): Promise<LogSizeRow[]> {
  const rows: LogSizeRow[] = [];
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-logsize-'));
    try {
      const seed = await startHost(dir);
      let agentId: string;
      let sessionId: string;
      try {
        agentId = (await http<{ id: string }>('POST', `${seed.url}/agents`, { name: 'Support', description: 'Helps customers' })).body.id;
        for (const guideline of GUIDELINES) await http('POST', `${seed.url}/guidelines`, { ...guideline, tags: [`agent:${agentId}`] });
        sessionId = await turn(seed.url, agentId);
        await turn(seed.url, agentId, sessionId);
        await turn(seed.url, agentId, sessionId);
        await new Promise((r) => setTimeout(r, 500)); // lease release, relay, metering
      } finally {
        await stopHost(seed);
      }
      const total = size > 0 ? await grow(dir, sessionId, agentId, size) : 0;
      const samples: Omit<LogSizeRow, 'events'>[] = [];
      for (let run = 0; run < runs; run++) {
        const a = await startHost(dir);
        let firstAgents: number;
        try {
          const started = performance.now();
          await http('GET', `${a.url}/agents`);
          firstAgents = performance.now() - started;
        } finally {
          await stopHost(a);
        }
        const t = await startHost(dir);
        try {
          let started = performance.now();
          const session = await turn(t.url, agentId);
          const firstTurn = performance.now() - started;
          started = performance.now();
          await turn(t.url, agentId, session);
          samples.push({
            ready_ms: t.readyMs,
            first_agents_ms: firstAgents,
            first_turn_ms: firstTurn,
            second_turn_ms: performance.now() - started,
          });
        } finally {
          await stopHost(t);
        }
      }
      const row: LogSizeRow = {
        events: size,
        ready_ms: median(samples.map((s) => s.ready_ms)),
        first_agents_ms: median(samples.map((s) => s.first_agents_ms)),
        first_turn_ms: median(samples.map((s) => s.first_turn_ms)),
        second_turn_ms: median(samples.map((s) => s.second_turn_ms)),
      };
      log(
        `  log +${size} events (last position ${total}): ready ${row.ready_ms.toFixed(0)} ms, first GET /agents ${row.first_agents_ms.toFixed(1)} ms, first turn ${row.first_turn_ms.toFixed(1)} ms, second turn ${row.second_turn_ms.toFixed(1)} ms`,
      );
      rows.push(row);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}
