/**
 * Turn benchmark: what the platform adds to a conversation turn when the LLM costs nothing, next to the floor
 * measured in the same run.
 *
 *   npm run bench:turn        (the distributed half needs NATS on NATS_URL and Redis on REDIS_URL)
 *   BENCH_MODES=load npm run bench:turn                       the event loop under a 50-session load only
 *   BENCH_MODES=load taskset -c 0,1 npm run bench:turn        the same on two given cores (note the load average
 *                                                             the output prints: other jobs on those cores count)
 *
 * A turn is what a Parlant client sees: POST the customer message to /sessions/{id}/events, then long-poll
 * GET /sessions/{id}/events?min_offset=…&kinds=status&wait_for_data=30 until a response carries `ready`;
 * latency is client-side, from the POST to that response. The matcher's LLM is a zero-latency provider
 * (bench/turn-support.ts). Two modes: all-in-one embedded (startAllInOne in this process: in-process bus,
 * SQLite) and distributed (apps/session-gateway plus a guideline-matcher process, bench/turn-process.ts, over
 * NATS and Redis, SQLite log). Each with 1 session at a time (BENCH_SEQUENTIAL_SESSIONS sessions one after
 * another per round) and with BENCH_SESSIONS (50) sessions at once; every session does
 * BENCH_TURNS_PER_SESSION (10) turns one after another, starting fresh.
 *
 * The floor does what a turn cannot avoid and nothing else: one HTTP request/response (node:http), the turn's
 * 11 single-event appends to a SqliteEventStore (same kinds of streams, same order) and its 2 request/reply
 * hops — an EventEmitter call in-process; a raw `nc.request` to a bare `nc.subscribe` in another process when
 * distributed, the floor's HTTP server and appends then living in a process of their own as the gateway does.
 * Floor and Tenet alternate round by round after a warm-up round each (BENCH_ROUNDS, default 5); latencies
 * are pooled over the rounds for p50/p99, turns/s is the median of the rounds.
 *
 * Also reported: long-polls per turn, the gateway's own `turn_time_ms`, store and bus calls per turn in the
 * all-in-one host (counted by wrapping its instances, outside the timed rounds), turn latency by position in
 * one long session (BENCH_LONG_SESSION, 200 turns), the BullMQ idle-timer re-arm every customer message
 * waits for, and what the offline provider would cost. Prints a Markdown table; BENCH_JSON=<file> also
 * writes the raw numbers; BENCH_MODES=embedded or =distributed runs one half.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Server, ServerResponse, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Queue } from 'bullmq';
import { SqliteEventStore, streamCategory, type EventStore } from '@tenet/event-store';
import { startAllInOne } from '@tenet/hosts';
import { COMPOSE_REPLY, MATCH_GUIDELINES, OfflineProvider, composeReplyRequest, matchGuidelinesRequest } from '@tenet/llm';
import type { MessageBus } from '@tenet/messaging';
import { EVENT_STORE, MESSAGE_BUS, tenetStreamsFor } from '@tenet/platform-runtime';
import { BullMqScheduler, redisOptionsFromUrl } from '@tenet/scheduling';
import { freePort } from '@tenet/testing';
import {
  CUSTOMER_MESSAGE,
  GUIDELINES,
  HOP_REPLY,
  http,
  median,
  quantile,
  serveFloor,
  ZeroLatencyProvider,
  type Hop,
} from './turn-support.js';

const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
/** Every session of a round does this many turns, one after another (a realistic conversation length). */
const TURNS_PER_SESSION = Number(process.env['BENCH_TURNS_PER_SESSION'] ?? 10);
/** With 1 session at a time, a round runs this many sessions one after another. */
const SEQUENTIAL_SESSIONS = Number(process.env['BENCH_SEQUENTIAL_SESSIONS'] ?? 10);
const SESSIONS = Number(process.env['BENCH_SESSIONS'] ?? 50);
const LONG_SESSION = Number(process.env['BENCH_LONG_SESSION'] ?? 200);
/** Load mode: the /healthz prober's pause between probes. */
const PROBE_MS = Number(process.env['BENCH_PROBE_MS'] ?? 20);
/** Load mode's idle floor, before each round of the shipped host: sequential /healthz probes, and turns of one session. */
const IDLE_PROBES = Number(process.env['BENCH_IDLE_PROBES'] ?? 50);
const IDLE_TURNS = Number(process.env['BENCH_IDLE_TURNS'] ?? 10);
/** A turn not `ready` by then fails the bench (a stuck turn must not look like a slow one, nor hang the run). */
const TURN_TIMEOUT_MS = Number(process.env['BENCH_TURN_TIMEOUT_MS'] ?? 60_000);
const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface StatusEvent {
  offset: number;
  data: { status?: string; data?: { turn_time_ms?: number } };
}

/** Something that runs turns: Tenet through its REST API, or the floor. */
interface Target {
  newSession(): Promise<string>;
  /** One turn; resolves with its client-side latency in ms. */
  turn(sessionId: string): Promise<number>;
}

/**
 * A Parlant client of a Tenet gateway. Counts the long-polls it needed per turn and keeps the `turn_time_ms`
 * the gateway reports in `ready` (from `processing` to just before `ready`, measured inside the gateway).
 */
class TenetClient implements Target {
  polls = 0;
  turns = 0;
  serverTimes: number[] = [];
  /** Client-side time of each accepting POST (the customer message stored, 201), for the load mode's accept p99. */
  postTimes: number[] = [];
  /**
   * The same for the first POST of each session, kept apart as well: in a load round all sessions start at once,
   * so their first messages arrive together (the round-start burst), unlike the rest.
   */
  firstPostTimes: number[] = [];
  private readonly posted = new Set<string>();
  readonly sessionIds: string[] = [];
  /** Called at the client's steps of a turn (the timeline): the POST sent and answered, each long-poll answered. */
  mark?: (label: string) => void;
  private agentId = '';

  /** `key`: an API key when the gateway requires keys (the distributed half runs with them, as users do). */
  constructor(
    readonly url: string,
    private readonly key?: string,
  ) {}

  async createAgent(): Promise<void> {
    this.agentId = (
      await http<{ id: string }>(
        'POST',
        `${this.url}/agents`,
        { name: 'Support', description: 'Helps customers with their orders' },
        this.key,
      )
    ).body.id;
    for (const guideline of GUIDELINES)
      await http('POST', `${this.url}/guidelines`, { ...guideline, tags: [`agent:${this.agentId}`] }, this.key);
  }

  get agent(): string {
    return this.agentId;
  }

  async newSession(): Promise<string> {
    const id = (await http<{ id: string }>('POST', `${this.url}/sessions`, { agent_id: this.agentId }, this.key)).body.id;
    this.sessionIds.push(id);
    return id;
  }

  async turn(sessionId: string): Promise<number> {
    const started = performance.now();
    this.mark?.('client: POST sent');
    const posted = await http<{ offset: number }>(
      'POST',
      `${this.url}/sessions/${sessionId}/events`,
      { kind: 'message', source: 'customer', message: CUSTOMER_MESSAGE },
      this.key,
    );
    const took = performance.now() - started;
    this.mark?.('client: POST answered');
    this.postTimes.push(took);
    if (!this.posted.has(sessionId)) {
      this.posted.add(sessionId);
      this.firstPostTimes.push(took);
    }
    let cursor = posted.body.offset + 1;
    for (;;) {
      const waited = performance.now() - started;
      if (waited > TURN_TIMEOUT_MS)
        throw new Error(`turn of session ${sessionId} not ready after ${Math.round(waited)} ms (BENCH_TURN_TIMEOUT_MS)`);
      const wait = Math.max(1, Math.min(30, Math.ceil((TURN_TIMEOUT_MS - waited) / 1000)));
      const { body: events } = await http<StatusEvent[]>(
        'GET',
        `${this.url}/sessions/${sessionId}/events?min_offset=${cursor}&kinds=status&wait_for_data=${wait}`,
        undefined,
        this.key,
      );
      this.polls++;
      const statuses = events.map((e) => e.data.status);
      this.mark?.(`client: long-poll answered [${statuses.join(', ')}]`);
      const ready = events.find((e) => e.data.status === 'ready');
      if (ready) {
        this.serverTimes.push(ready.data.data?.turn_time_ms ?? NaN);
        break;
      }
      if (statuses.includes('error') || statuses.includes('cancelled')) throw new Error(`turn ended ${statuses.join(', ')}`);
      cursor = (events.at(-1)?.offset ?? cursor - 1) + 1;
    }
    this.turns++;
    return performance.now() - started;
  }
}

class FloorClient implements Target {
  constructor(readonly url: string) {}

  async newSession(): Promise<string> {
    return randomUUID();
  }

  async turn(sessionId: string): Promise<number> {
    const started = performance.now();
    await http('POST', `${this.url}/turn/${sessionId}`, { kind: 'message', source: 'customer', message: CUSTOMER_MESSAGE });
    return performance.now() - started;
  }
}

interface RoundResult {
  latencies: number[];
  turnsPerSecond: number;
  /** This process's CPU time (user + system) per turn over the round: load-independent where the clock is not. */
  cpuMsPerTurn: number;
}

/**
 * `parallel` clients at once, each running `sessionsEach` fresh sessions one after another, each session doing
 * TURNS_PER_SESSION turns one after another. Sessions are created before the clock starts.
 */
async function round(target: Target, parallel: number, sessionsEach: number): Promise<RoundResult> {
  const ids = await Promise.all(
    Array.from({ length: parallel }, () => Promise.all(Array.from({ length: sessionsEach }, () => target.newSession()))),
  );
  const latencies: number[] = [];
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    ids.map(async (sessions) => {
      for (const id of sessions) for (let i = 0; i < TURNS_PER_SESSION; i++) latencies.push(await target.turn(id));
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    latencies,
    turnsPerSecond: latencies.length / ((performance.now() - started) / 1000),
    cpuMsPerTurn: (used.user + used.system) / 1000 / latencies.length,
  };
}

interface Stats {
  p50: number;
  p99: number;
  turns_per_s: number;
  /** Median over the rounds of the bench process's CPU ms per turn (all of it in all-in-one: host, client, floor). */
  cpu_ms_per_turn: number;
}

interface Row {
  mode: string;
  sessions: number;
  turns: number;
  tenet: Stats;
  floor: Stats;
  overhead_p50_ms: number;
  overhead_p99_ms: number;
  ratio_p50: number;
  polls_per_turn: number;
  /** Median `turn_time_ms` Tenet reported in `ready` (processing → ready, inside the gateway). */
  server_turn_p50_ms: number;
}

const stats = (rounds: RoundResult[]): Stats => {
  const all = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return {
    p50: quantile(all, 0.5),
    p99: quantile(all, 0.99),
    turns_per_s: median(rounds.map((r) => r.turnsPerSecond)),
    cpu_ms_per_turn: median(rounds.map((r) => r.cpuMsPerTurn)),
  };
};

/** Floor and Tenet alternately, round after round (after one warm-up round each), as bench/foundation does. */
async function compare(mode: string, floor: Target, tenet: TenetClient, parallel: number, sessionsEach: number): Promise<Row> {
  await round(floor, parallel, sessionsEach);
  await round(tenet, parallel, sessionsEach);
  const floorRounds: RoundResult[] = [];
  const tenetRounds: RoundResult[] = [];
  const [polls, done] = [tenet.polls, tenet.turns];
  tenet.serverTimes = [];
  for (let r = 0; r < ROUNDS; r++) {
    floorRounds.push(await round(floor, parallel, sessionsEach));
    tenetRounds.push(await round(tenet, parallel, sessionsEach));
  }
  const [t, f] = [stats(tenetRounds), stats(floorRounds)];
  const row: Row = {
    mode,
    sessions: parallel,
    turns: tenetRounds.reduce((n, r) => n + r.latencies.length, 0),
    tenet: t,
    floor: f,
    overhead_p50_ms: t.p50 - f.p50,
    overhead_p99_ms: t.p99 - f.p99,
    ratio_p50: t.p50 / f.p50,
    polls_per_turn: (tenet.polls - polls) / (tenet.turns - done),
    server_turn_p50_ms: median(tenet.serverTimes),
  };
  log(
    `  ${mode}, ${parallel} session(s): Tenet p50 ${t.p50.toFixed(2)} p99 ${t.p99.toFixed(2)} ms ${Math.round(t.turns_per_s)}/s | ` +
      `floor p50 ${f.p50.toFixed(2)} p99 ${f.p99.toFixed(2)} ms ${Math.round(f.turns_per_s)}/s | ${row.polls_per_turn.toFixed(2)} polls/turn, turn_time_ms p50 ${row.server_turn_p50_ms} | ` +
      `bench process CPU per turn: Tenet ${t.cpu_ms_per_turn.toFixed(2)} ms, floor ${f.cpu_ms_per_turn.toFixed(2)} ms`,
  );
  return row;
}

/** The bare in-process floor: SQLite appends in this process, hops as EventEmitter calls, node:http. */
async function inProcessFloor(dir: string): Promise<{ client: FloorClient; close(): Promise<void> }> {
  const store = SqliteEventStore.open({ dataDir: dir });
  const responder = new EventEmitter();
  responder.on('match', (_request: unknown, reply: (value: unknown) => void) => reply(HOP_REPLY));
  responder.on('compose', (_request: unknown, reply: (value: unknown) => void) => reply(HOP_REPLY));
  const hop: Hop = (kind) => new Promise((resolve) => responder.emit(kind, {}, resolve));
  const { server, url } = await serveFloor(store, hop);
  return {
    client: new FloorClient(url),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    },
  };
}

/**
 * Store and bus calls per turn, counted by wrapping the all-in-one host's own EVENT_STORE and MESSAGE_BUS
 * instances for a few turns of one session (not during the timed rounds), with the time spent inside the
 * store calls and the bus publishes (both synchronous underneath: better-sqlite3, and the in-process bus).
 */
async function countCalls(store: EventStore, bus: MessageBus, client: TenetClient, turns: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const restore: (() => void)[] = [];
  const wrap = <T extends object>(
    target: T,
    names: (keyof T & string)[],
    prefix: string,
    timeKey?: (name: string) => string | undefined,
  ) => {
    for (const name of names) {
      const original = target[name] as unknown as (...args: unknown[]) => Promise<unknown>;
      (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
        counts[`${prefix}.${name}`] = (counts[`${prefix}.${name}`] ?? 0) + 1;
        // Appends also by stream category (`store.append[session-]`): which writes a turn makes.
        // Appends and stream reads also by stream category (`store.append[session-]`), category reads by their filter.
        if (prefix === 'store' && (name === 'append' || name === 'appendMany' || name === 'readStream' || name === 'readAll')) {
          const category =
            name === 'readAll'
              ? (args[0] as { category?: unknown } | undefined)?.category
              : name === 'appendMany'
                ? (args[0] as { streamId: string }[]).map(({ streamId }) => streamCategory(streamId) ?? streamId).join('+')
                : (streamCategory(String(args[0])) ?? String(args[0]));
          const key = `store.${name}[${category === undefined ? 'all' : String(category)}]`;
          counts[key] = (counts[key] ?? 0) + 1;
        }
        const started = performance.now();
        const result = original.apply(target, args);
        const key = timeKey?.(name);
        if (key) counts[key] = (counts[key] ?? 0) + performance.now() - started;
        return result;
      };
      restore.push(() => delete (target as Record<string, unknown>)[name]);
    }
  };
  const session = await client.newSession();
  await client.turn(session); // the session's first turn, uncounted
  await new Promise((resolve) => setTimeout(resolve, 50));
  // EVENT_STORE wraps the SQLite store to kick the relay; the relay reads and checkpoints the inner one.
  const inner = (store as unknown as { store?: EventStore }).store ?? store;
  const methods = ['append', 'readStream', 'readAll', 'streamVersion', 'saveCheckpoint', 'loadCheckpoint'] as (keyof EventStore & string)[];
  if (inner.appendMany !== undefined) methods.push('appendMany');
  wrap(inner, methods, 'store', () => 'store_ms');
  // SQLite write transactions (group commits and appendMany join several appends in one).
  const commits = (inner as { commits?: { transactions: number } }).commits;
  const transactionsBefore = commits?.transactions;
  // Freshness checks of the file (`PRAGMA data_version`): at most one per task of the event loop.
  const fileChecks = (inner as { fileChecks?: { count: number } }).fileChecks;
  const fileChecksBefore = fileChecks?.count;
  wrap(bus, ['request', 'notify', 'publish'], 'bus', (name) => (name === 'publish' ? 'bus_publish_ms' : undefined));
  for (let i = 0; i < turns; i++) await client.turn(session);
  await new Promise((resolve) => setTimeout(resolve, 100)); // the last release, relay round and metering
  for (const undo of restore) undo();
  if (commits !== undefined && transactionsBefore !== undefined) counts['store.transactions'] = commits.transactions - transactionsBefore;
  if (fileChecks !== undefined && fileChecksBefore !== undefined) counts['store.fileChecks'] = fileChecks.count - fileChecksBefore;
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / turns]));
}

/**
 * One warm turn of a fresh session, step by step, in ms from the client's POST: the client's steps, the HTTP
 * server's requests and responses, every store append and read and every bus call (the host's own instances
 * wrapped, `http.Server` and `ServerResponse` patched for the one turn, all restored after). In the all-in-one
 * the client shares the thread: a gap between the server's response and the client's receipt is work that ran
 * in between (see EventLoopSlices). The last of `turns` turns is printed.
 */
async function turnTimeline(store: EventStore, bus: MessageBus, client: TenetClient, turns = 5): Promise<string[]> {
  const steps: [number, string][] = [];
  const step = (label: string) => void steps.push([performance.now(), label]);
  const inner = (store as unknown as { store?: EventStore }).store ?? store;
  const restore: (() => void)[] = [];
  const patch = <T extends object>(target: T, name: string, describe: (args: unknown[]) => string) => {
    const original = (target as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
    const own = Object.hasOwn(target, name);
    (target as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
      step(describe(args));
      return original.apply(this, args);
    };
    restore.push(() => {
      if (own) (target as Record<string, unknown>)[name] = original;
      else delete (target as Record<string, unknown>)[name];
    });
  };
  const category = (streamId: unknown) => streamCategory(String(streamId)) ?? String(streamId);
  const types = (events: unknown) =>
    (events as { type: string; data?: { data?: { status?: string } } }[])
      .map((e) => (e.data?.data?.status ? `${e.type}:${e.data.data.status}` : e.type))
      .join('+');
  patch(inner, 'append', ([streamId, events]) => `store: append ${category(streamId)} ${types(events)}`);
  if (inner.appendMany !== undefined)
    patch(inner, 'appendMany', ([appends]) => {
      const list = appends as { streamId: string; events: unknown }[];
      return `store: appendMany ${list.map((a) => `${category(a.streamId)} ${types(a.events)}`).join(', ')}`;
    });
  patch(inner, 'readStream', ([streamId]) => `store: readStream ${category(streamId)}`);
  patch(
    inner,
    'readAll',
    ([options]) => `store: readAll ${JSON.stringify((options as { category?: unknown } | undefined)?.category ?? 'all')}`,
  );
  for (const name of ['request', 'publish', 'notify']) patch(bus, name, ([subject]) => `bus: ${name} ${String(subject)}`);
  const serverResponses = ServerResponse.prototype as unknown as object;
  patch(serverResponses, 'end', () => 'server: response written');
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
    if (event === 'request') {
      const request = args[0] as IncomingMessage;
      step(
        `server: ${request.method ?? ''} ${(request.url ?? '').split('?')[0]?.replace(/\/sessions\/[^/]+/, '/sessions/:id') ?? ''} received`,
      );
    }
    return (emit as (this: Server, event: string, ...rest: unknown[]) => boolean).call(this, event, ...args);
  } as typeof emit;
  restore.push(() => (Server.prototype.emit = emit));
  client.mark = step;
  try {
    const session = await client.newSession();
    for (let i = 0; i < turns; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the previous turn's bookkeeping settles
      steps.length = 0;
      await client.turn(session);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    client.mark = undefined;
    for (const undo of restore.reverse()) undo();
  }
  const start = steps.find(([, label]) => label === 'client: POST sent')?.[0] ?? steps[0]?.[0] ?? 0;
  return steps.map(([at, label]) => `${(at - start).toFixed(2).padStart(8)} ms  ${label}`);
}

/** Latency of a session's turns by position: does a turn get slower as its session grows? */
async function sessionGrowth(client: TenetClient, turns: number, bucket: number): Promise<{ from: number; to: number; p50: number }[]> {
  const session = await client.newSession();
  const latencies: number[] = [];
  for (let i = 0; i < turns; i++) latencies.push(await client.turn(session));
  return [0, Math.floor((turns - bucket) / 2), turns - bucket].map((from) => ({
    from: from + 1,
    to: from + bucket,
    p50: median(latencies.slice(from, from + bucket)),
  }));
}

/** What the offline provider (TENET_LLM_PROVIDER=offline) would add per turn: its match + compose calls, timed directly. */
async function offlineProviderCost(): Promise<number> {
  const provider = new OfflineProvider();
  const guidelines = GUIDELINES.map((g, i) => ({ id: `g${i}`, ...g }));
  const match = matchGuidelinesRequest({ message: CUSTOMER_MESSAGE, history: [], guidelines }, { purpose: MATCH_GUIDELINES });
  const compose = composeReplyRequest(
    {
      agentName: 'Support',
      message: CUSTOMER_MESSAGE,
      matched: guidelines.slice(0, 2).map((g) => ({ guideline_id: g.id, action: g.action })),
      history: [],
    },
    { purpose: COMPOSE_REPLY },
  );
  const once = async () => {
    await provider.generate(match);
    await provider.generate(compose);
  };
  for (let i = 0; i < 500; i++) await once();
  const n = 2_000;
  const started = performance.now();
  for (let i = 0; i < n; i++) await once();
  return (performance.now() - started) / n;
}

interface EmbeddedResult {
  rows: Row[];
  /** Calls per turn right after the timed rounds, and on a fresh host. */
  calls: { loaded: Record<string, number>; fresh: Record<string, number> };
  /** One warm turn, step by step (turnTimeline). */
  timeline: string[];
  growth: { from: number; to: number; p50: number }[];
}

async function embedded(): Promise<EmbeddedResult> {
  const dirs = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), 'tenet-bench-turn-')));
  const env = (dir: string) => ({ TENET_MODE: 'embedded', TENET_DATA_DIR: dir });
  const floor = await inProcessFloor(dirs[0]!);
  try {
    log('all-in-one embedded (in-process bus, SQLite), client in the same process');
    const host = await startAllInOne(env(dirs[1]!), { provider: new ZeroLatencyProvider() });
    let rows: Row[];
    let loaded: Record<string, number>;
    try {
      const tenet = new TenetClient(host.url);
      await tenet.createAgent();
      rows = [
        await compare('all-in-one', floor.client, tenet, 1, SEQUENTIAL_SESSIONS),
        await compare('all-in-one', floor.client, tenet, SESSIONS, 1),
      ];
      loaded = await countCalls(host.app.get<EventStore>(EVENT_STORE), host.app.get<MessageBus>(MESSAGE_BUS), tenet, 20);
    } finally {
      await host.app.close();
    }
    // A fresh host for the session-length probe, so that nothing but the session's own length grows.
    const fresh = await startAllInOne(env(dirs[2]!), { provider: new ZeroLatencyProvider() });
    try {
      const tenet = new TenetClient(fresh.url);
      await tenet.createAgent();
      await round(tenet, 1, 2); // warm-up
      const calls = await countCalls(fresh.app.get<EventStore>(EVENT_STORE), fresh.app.get<MessageBus>(MESSAGE_BUS), tenet, 20);
      const timeline = await turnTimeline(fresh.app.get<EventStore>(EVENT_STORE), fresh.app.get<MessageBus>(MESSAGE_BUS), tenet);
      const growth = await sessionGrowth(tenet, LONG_SESSION, 20);
      log(`  one session, p50 by turn number: ${growth.map((b) => `${b.from}-${b.to}: ${b.p50.toFixed(2)} ms`).join(', ')}`);
      return { rows, calls: { loaded, fresh: calls }, growth, timeline };
    } finally {
      await fresh.app.close();
    }
  } finally {
    await floor.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

interface Child {
  child: ChildProcess;
  /** Resolves with the first stdout line starting with `ready` (the bench's own child processes). */
  ready: Promise<string>;
  output(): string;
}

function start(script: string, args: string[], env: NodeJS.ProcessEnv): Child {
  // BENCH_CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") adds Node flags to the child processes.
  const nodeArgs = (process.env['BENCH_CHILD_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', '@swc-node/register/esm-register', script, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('ready'));
      if (line !== undefined) resolve(line);
    });
    child.stderr!.on('data', (chunk: Buffer) => void (out += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited with ${code}:\n${out.slice(-2_000)}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, output: () => out.slice(-2_000) };
}

/** Until `url` answers `path` (a service's /readyz: its dependencies are up); throws when the process exits or after 3 minutes. */
async function healthy(url: string, child: Child, path = '/healthz'): Promise<void> {
  for (let attempt = 0; attempt < 1_800; attempt++) {
    if (child.child.exitCode !== null) throw new Error(`${url} exited:\n${child.output()}`);
    try {
      await http('GET', `${url}${path}`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${url} did not answer ${path}:\n${child.output()}`);
}

async function stop(child: Child): Promise<void> {
  if (child.child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.child.once('exit', resolve));
  child.child.kill('SIGTERM');
  const timer = setTimeout(() => child.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Removes what the distributed run left on the shared Redis (its BullMQ prefix) and its namespace's JetStream streams (v1 and v2). */
async function cleanUp(redisPrefix: string, namespace: string): Promise<void> {
  const admin = new Queue('admin', { connection: redisOptionsFromUrl(redisUrl), prefix: redisPrefix });
  try {
    const client = await admin.client;
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, { MATCH: `${redisPrefix}:*`, COUNT: 1000 });
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await admin.close();
  }
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    for (const { name } of tenetStreamsFor({ namespace, streamLimits: {} })) await jsm.streams.delete(name).catch(() => undefined);
  } finally {
    await nc.drain();
  }
}

/**
 * What re-arming a session's idle timer costs on BullMQ, as SessionTimers.recordActivity does (in the background) for every customer
 * message: cancel the pending idle job, schedule the next one. Wall time per pair.
 */
async function timerRearm(prefix: string, n = 200): Promise<number> {
  const scheduler = BullMqScheduler.fromUrl(redisUrl, { prefix });
  try {
    const job = (i: number) => ({
      queue: 'bench-timers',
      jobId: `idle:bench:${i}`,
      data: { sessionId: 'bench', timer: 'idle', activity: i },
      delayMs: 300_000,
      attempts: 5,
      backoff: { type: 'exponential' as const, delayMs: 500 },
    });
    await scheduler.schedule(job(0));
    let started = 0;
    for (let i = 1; i <= n + 20; i++) {
      if (i === 21) started = performance.now(); // 20 warm-up pairs
      await scheduler.cancel('bench-timers', `idle:bench:${i - 1}`);
      await scheduler.schedule(job(i));
    }
    return (performance.now() - started) / n;
  } finally {
    await scheduler.close();
  }
}

/**
 * The topology `npm run start:distributed` runs: the gateway, the matcher (with the zero-latency provider), the journey
 * engine, the tool executor, the memory store and metering, each its own process, with API keys required (a bench
 * admin key) — every service a turn waits on is there. Its services' `/readyz` answer before the clock starts.
 */
async function distributed(): Promise<{ rows: Row[]; timerRearmMs: number }> {
  const tenetDir = mkdtempSync(join(tmpdir(), 'tenet-bench-turn-'));
  const floorDir = mkdtempSync(join(tmpdir(), 'tenet-bench-floor-'));
  const id = randomUUID().slice(0, 8);
  const port = await freePort();
  const adminKey = randomUUID() + randomUUID();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TENET_MODE: 'distributed',
    TENET_AUTH: 'on',
    TENET_ADMIN_KEY: adminKey,
    // The key's rate limit stays checked on every request but high enough for 50 sessions' long-polls: at the default
    // 600 a minute a quick machine got 429s and the bench died.
    TENET_RATE_LIMIT_PER_KEY: '1000000',
    TENET_DATA_DIR: join(tenetDir, 'gateway'),
    NATS_URL: natsUrl,
    REDIS_URL: redisUrl,
    TENET_REDIS_PREFIX: `tenet-bench-${id}`,
    TENET_NAMESPACE: `bench-${id}`,
    TENET_LLM_PROVIDER: 'offline',
    TENET_DEMO: 'off',
    BENCH_FLOOR_DIR: floorDir,
    BENCH_FLOOR_SUBJECT: `bench-${id}.floor`,
  };
  delete env['MONGO_URL'];
  const service = async (app: string, extra: NodeJS.ProcessEnv = {}): Promise<{ child: Child; url: string }> => {
    const servicePort = await freePort();
    return {
      child: start(`apps/${app}/src/main.ts`, [], { ...env, PORT: String(servicePort), ...extra }),
      url: `http://127.0.0.1:${servicePort}`,
    };
  };
  // As start:distributed lays them out: the memory store on the gateway's log, metering and the tool executor on their own.
  const services = [
    { ...(await service('session-gateway', { PORT: String(port) })), url: `http://127.0.0.1:${port}` },
    await service('journey-engine'),
    await service('memory-store'),
    await service('metering', { TENET_DATA_DIR: join(tenetDir, 'metering') }),
    await service('tool-executor', { TENET_DATA_DIR: join(tenetDir, 'tool-executor') }),
  ];
  const matcherPort = await freePort();
  const helpers = [
    start('bench/turn-process.ts', ['matcher'], { ...env, PORT: String(matcherPort) }),
    start('bench/turn-process.ts', ['floor-responder'], env),
    start('bench/turn-process.ts', ['floor-gateway'], env),
  ];
  const children = [...services.map((s) => s.child), ...helpers];
  const [matcher, responder, floorGateway] = helpers as [Child, Child, Child];
  const tenet = new TenetClient(`http://127.0.0.1:${port}`, adminKey);
  try {
    const [floorUrl] = await Promise.all([
      floorGateway.ready.then((line) => line.split(' ')[1]!),
      matcher.ready,
      responder.ready,
      ...services.map((s) => healthy(s.url, s.child, '/readyz')),
    ]);
    await tenet.createAgent();
    log(
      'distributed (gateway, matcher, journey engine, memory store, metering, tool executor as processes over NATS and Redis; SQLite logs; API keys required), client in the bench process',
    );
    const floor = new FloorClient(floorUrl);
    const rows = [
      await compare('distributed', floor, tenet, 1, SEQUENTIAL_SESSIONS),
      await compare('distributed', floor, tenet, SESSIONS, 1),
    ];
    const timerRearmMs = await timerRearm(env['TENET_REDIS_PREFIX']!);
    log(`  BullMQ idle-timer re-arm (cancel + schedule): ${timerRearmMs.toFixed(2)} ms`);
    return { rows, timerRearmMs };
  } finally {
    for (const child of children) await stop(child);
    await cleanUp(env['TENET_REDIS_PREFIX']!, env['TENET_NAMESPACE']!).catch((error: unknown) => log(`clean-up failed: ${String(error)}`));
    rmSync(tenetDir, { recursive: true, force: true });
    rmSync(floorDir, { recursive: true, force: true });
  }
}

interface LoadStats {
  turns: number;
  turn: { p50: number; p99: number };
  healthz: { n: number; p50: number; p99: number; max: number };
  accept_post: { n: number; p50: number; p99: number; max: number };
  /** accept_post split: each session's first POST (all sessions of a round send it at once) and all the others. */
  accept_post_burst: { n: number; p50: number; p99: number; max: number };
  accept_post_after_burst: { n: number; p50: number; p99: number; max: number };
  turns_per_s: number;
}

/** The same host idle, measured between its load rounds: what /healthz and the accepting POST cost with nothing else running. */
interface IdleFloor {
  healthz: { n: number; p50: number; p99: number; max: number };
  accept_post: { n: number; p50: number; p99: number; max: number };
}

interface LoadResult {
  sessions: number;
  /** Load average (1 min) of the machine when the load section started and ended, and the cores this process may use. */
  machine: { loadavg_start: number; loadavg_end: number; cores: number };
  /** The shipped host idle, measured before each of its rounds (same run, same process). */
  idle: IdleFloor;
  /** The store's event-loop slices off (every SQLite call at once, as before ADR 0020's slices): the same-run reference. */
  unsliced: LoadStats;
  /** As shipped: SQLite calls in 4 ms slices, turns and the relay in the background lane. */
  sliced: LoadStats;
}

const summary = (values: number[]): { n: number; p50: number; p99: number; max: number } => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1) ?? NaN };
};

/** `all` with one occurrence of each value of `some` taken out. */
const withoutEach = (all: readonly number[], some: readonly number[]): number[] => {
  const left = [...all];
  for (const value of some) left.splice(left.indexOf(value), 1);
  return left;
};

/** One timed round of the load with the /healthz prober running alongside. */
async function probedRound(url: string, tenet: TenetClient, healthz: number[]): Promise<RoundResult> {
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const started = performance.now();
      await http('GET', `${url}/healthz`);
      healthz.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, PROBE_MS));
    }
  })();
  try {
    return await round(tenet, SESSIONS, 1);
  } finally {
    probing = false;
    await prober;
  }
}

/**
 * The floor of the load mode: the same host with nothing else running — BENCH_IDLE_PROBES sequential /healthz, then
 * one session doing BENCH_IDLE_TURNS turns one after another (each POST measured as in the load).
 */
async function idleRound(url: string, tenet: TenetClient, healthz: number[], posts: number[]): Promise<void> {
  for (let i = 0; i < IDLE_PROBES; i++) {
    const started = performance.now();
    await http('GET', `${url}/healthz`);
    healthz.push(performance.now() - started);
  }
  const session = await tenet.newSession();
  const before = tenet.postTimes.length;
  const firstBefore = tenet.firstPostTimes.length;
  for (let i = 0; i < IDLE_TURNS; i++) await tenet.turn(session);
  posts.push(...tenet.postTimes.splice(before));
  tenet.firstPostTimes.splice(firstBefore); // the idle floor's session is not part of the load's burst
}

/**
 * The event loop under load, as `npm start` runs: the all-in-one host in its own process (bench/turn-process.ts
 * all-in-one: embedded mode, zero-latency provider), BENCH_SESSIONS sessions at once doing their turns from this
 * process, while a prober here GETs /healthz every BENCH_PROBE_MS (20 ms) over the same keep-alive client. Reports
 * /healthz latency and the accepting POST's latency (customer message stored → 201) over the timed rounds. Two
 * hosts, one with the store's event-loop slices off (the reference) and one as shipped, alternate round by round;
 * before each round of the shipped host, its idle floor (idleRound: /healthz and POST with nothing else running).
 * BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles both hosts.
 */
async function underLoad(): Promise<LoadResult> {
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'tenet-bench-load-')));
  const env = (dir: string, slice: string) => ({
    ...process.env,
    TENET_DATA_DIR: dir,
    TENET_DEMO: 'off',
    TENET_LLM_PROVIDER: 'offline',
    BENCH_SLICE_MS: slice,
  });
  const hosts = [
    start('bench/turn-process.ts', ['all-in-one'], env(dirs[0]!, 'off')),
    start('bench/turn-process.ts', ['all-in-one'], env(dirs[1]!, process.env['BENCH_SLICE_MS'] ?? '4')),
  ];
  try {
    const urls = await Promise.all(hosts.map(async (host) => (await host.ready).split(' ')[1]!));
    const clients = urls.map((url) => new TenetClient(url));
    for (const client of clients) await client.createAgent();
    log(
      `load: all-in-one hosts in their own processes (slices off / on, alternating), ${SESSIONS} sessions at once, /healthz probed every ${PROBE_MS} ms`,
    );
    const loadavgStart = loadavg()[0]!;
    for (const client of clients) await round(client, SESSIONS, 1); // warm-up
    const healthz: number[][] = [[], []];
    const rounds: RoundResult[][] = [[], []];
    const idleHealthz: number[] = [];
    const idlePosts: number[] = [];
    for (const client of clients) {
      client.postTimes = [];
      client.firstPostTimes = [];
    }
    for (let r = 0; r < ROUNDS; r++) {
      await idleRound(urls[1]!, clients[1]!, idleHealthz, idlePosts);
      for (const i of [0, 1]) rounds[i]!.push(await probedRound(urls[i]!, clients[i]!, healthz[i]!));
    }
    const stats = (i: number): LoadStats => {
      const all = rounds[i]!.flatMap((r) => r.latencies).sort((a, b) => a - b);
      return {
        turns: all.length,
        turn: { p50: quantile(all, 0.5), p99: quantile(all, 0.99) },
        healthz: summary(healthz[i]!),
        accept_post: summary(clients[i]!.postTimes),
        accept_post_burst: summary(clients[i]!.firstPostTimes),
        accept_post_after_burst: summary(withoutEach(clients[i]!.postTimes, clients[i]!.firstPostTimes)),
        turns_per_s: median(rounds[i]!.map((r) => r.turnsPerSecond)),
      };
    };
    const result: LoadResult = {
      sessions: SESSIONS,
      machine: { loadavg_start: loadavgStart, loadavg_end: loadavg()[0]!, cores: availableParallelism() },
      idle: { healthz: summary(idleHealthz), accept_post: summary(idlePosts) },
      unsliced: stats(0),
      sliced: stats(1),
    };
    log(
      `  idle floor (as shipped, nothing else running): /healthz p50 ${result.idle.healthz.p50.toFixed(2)} p99 ${result.idle.healthz.p99.toFixed(2)} ms | accept POST p50 ${result.idle.accept_post.p50.toFixed(2)} p99 ${result.idle.accept_post.p99.toFixed(2)} ms`,
    );
    for (const [label, s] of [
      ['slices off', result.unsliced],
      ['as shipped', result.sliced],
    ] as const) {
      log(
        `  load (${label}): /healthz p50 ${s.healthz.p50.toFixed(2)} p99 ${s.healthz.p99.toFixed(2)} max ${s.healthz.max.toFixed(2)} ms (${s.healthz.n} probes) | ` +
          `accept POST p50 ${s.accept_post.p50.toFixed(2)} p99 ${s.accept_post.p99.toFixed(2)} max ${s.accept_post.max.toFixed(2)} ms ` +
          `(round-start burst p50 ${s.accept_post_burst.p50.toFixed(2)} max ${s.accept_post_burst.max.toFixed(2)}, after it p99 ${s.accept_post_after_burst.p99.toFixed(2)}) | turn p50 ${s.turn.p50.toFixed(2)} p99 ${s.turn.p99.toFixed(2)} ms, ${Math.round(s.turns_per_s)} turns/s`,
      );
    }
    return result;
  } finally {
    for (const host of hosts) await stop(host);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

const benchStarted = performance.now();
const offlineMs = await offlineProviderCost();
log(`offline provider: match + compose = ${(offlineMs * 1000).toFixed(0)} µs per turn (not used: the zero-latency provider answers)`);
const modes = (process.env['BENCH_MODES'] ?? 'embedded,load,distributed').split(',');
const local: EmbeddedResult | undefined = modes.includes('embedded') ? await embedded() : undefined;
const load = modes.includes('load') ? await underLoad() : undefined;
const remote = modes.includes('distributed') ? await distributed() : undefined;
const rows = [...(local?.rows ?? []), ...(remote?.rows ?? [])];

const ms = (value: number): string => value.toFixed(2);
const table = [
  '| mode | sessions | Tenet p50 / p99 (ms) | floor p50 / p99 (ms) | overhead p50 / p99 (ms) | Tenet / floor (p50) | Tenet turns/s | floor turns/s |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.mode} | ${r.sessions} | ${ms(r.tenet.p50)} / ${ms(r.tenet.p99)} | ${ms(r.floor.p50)} / ${ms(r.floor.p99)} | ${ms(r.overhead_p50_ms)} / ${ms(r.overhead_p99_ms)} | ` +
      `${r.ratio_p50.toFixed(1)} | ${Math.round(r.tenet.turns_per_s)} | ${Math.round(r.floor.turns_per_s)} |`,
  ),
].join('\n');
const perTurn = (calls: Record<string, number>): string =>
  Object.entries(calls)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${k.endsWith('_ms') ? `${ms(v)} ms` : v.toFixed(1)}`)
    .join(', ');
process.stdout.write(`${table}\n\n`);
process.stdout.write(`Turns measured per row: ${rows.map((r) => `${r.mode}/${r.sessions}: ${r.turns}`).join(', ')}\n`);
process.stdout.write(`Long-polls per turn: ${rows.map((r) => `${r.mode}/${r.sessions}: ${r.polls_per_turn.toFixed(2)}`).join(', ')}\n`);
process.stdout.write(
  `turn_time_ms reported in ready (processing to ready, inside the gateway), p50: ${rows.map((r) => `${r.mode}/${r.sessions}: ${r.server_turn_p50_ms}`).join(', ')}\n`,
);
if (local) {
  process.stdout.write(`All-in-one, per turn, fresh host: ${perTurn(local.calls.fresh)}\n`);
  process.stdout.write(`All-in-one, per turn, right after the timed rounds: ${perTurn(local.calls.loaded)}\n`);
  process.stdout.write(`All-in-one, one warm turn step by step (fresh host, client in the same thread):\n${local.timeline.join('\n')}\n`);
  process.stdout.write(
    `All-in-one, one session, p50 by turn number: ${local.growth.map((b) => `turns ${b.from}-${b.to}: ${ms(b.p50)} ms`).join(', ')}\n`,
  );
}
if (load) {
  const { machine } = load;
  process.stdout.write(
    `\nUnder load: all-in-one host in its own process, ${load.sessions} sessions at once, /healthz probed every ${PROBE_MS} ms (targets: /healthz p99 <= 50 ms, accept POST p99 <= 100 ms). ` +
      `Machine: ${machine.cores} cores for this process, load average ${machine.loadavg_start.toFixed(2)} at the start, ${machine.loadavg_end.toFixed(2)} at the end ` +
      `(the bench itself keeps ~2 busy; more means other jobs share the cores).\n\n`,
  );
  process.stdout.write(
    '| host | /healthz p50 / p99 / max (ms) | accept POST p50 / p99 / max (ms) | of which round-start burst p50 / max (ms) | after the burst p99 (ms) | turn p50 / p99 (ms) | turns/s | turns |\n' +
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n',
  );
  process.stdout.write(
    `| as shipped, idle (floor: ${load.idle.healthz.n} probes, ${load.idle.accept_post.n} turns of one session) | ${ms(load.idle.healthz.p50)} / ${ms(load.idle.healthz.p99)} / ${ms(load.idle.healthz.max)} | ` +
      `${ms(load.idle.accept_post.p50)} / ${ms(load.idle.accept_post.p99)} / ${ms(load.idle.accept_post.max)} | | | | | |\n`,
  );
  for (const [label, s] of [
    ['slices off, under load (same-run reference)', load.unsliced],
    ['as shipped, under load', load.sliced],
  ] as const) {
    process.stdout.write(
      `| ${label} | ${ms(s.healthz.p50)} / ${ms(s.healthz.p99)} / ${ms(s.healthz.max)} | ${ms(s.accept_post.p50)} / ${ms(s.accept_post.p99)} / ${ms(s.accept_post.max)} | ` +
        `${ms(s.accept_post_burst.p50)} / ${ms(s.accept_post_burst.max)} | ${ms(s.accept_post_after_burst.p99)} | ${ms(s.turn.p50)} / ${ms(s.turn.p99)} | ${Math.round(s.turns_per_s)} | ${s.turns} |\n`,
    );
  }
  process.stdout.write('\n');
}
if (remote)
  process.stdout.write(
    `Distributed, BullMQ idle-timer re-arm per customer message (cancel + schedule, wall time): ${ms(remote.timerRearmMs)} ms\n`,
  );
process.stdout.write(`Offline provider (not used above), match + compose: ${(offlineMs * 1000).toFixed(0)} µs per turn\n`);
log(`bench took ${((performance.now() - benchStarted) / 1000).toFixed(0)} s`);
const out = process.env['BENCH_JSON'];
if (out)
  writeFileSync(
    out,
    `${JSON.stringify({ node: process.version, rounds: ROUNDS, rows, calls: local?.calls, growth: local?.growth, load, timer_rearm_ms: remote?.timerRearmMs, offline_provider_ms_per_turn: offlineMs }, null, 2)}\n`,
  );
