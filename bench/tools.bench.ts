/**
 * Tool-call benchmark: what the tool executor adds to one tool call, next to the floor measured in the same run.
 *
 *   npm run bench:tools       (the BullMQ half needs NATS on NATS_URL and Redis on REDIS_URL)
 *
 * The tool is `get_order` on the test Parlant-plugin (sdk) server (libs/tools/service/src/testing, node:http on
 * 127.0.0.1, in this process). The floor is one direct `fetch` POST /tools/get_order/calls with the same body
 * and headers, the response read and parsed — what any caller must do. Tenet is `TOOL_EXECUTION.execute` with
 * a fresh idempotency key per call (so nothing is replayed): request validation, argument check against the
 * parameter schema, the guarded outbound call, the ToolInvocation appended to a SQLite event log, and:
 *   - embedded: the in-process work queue (this process);
 *   - bullmq: the BullMQ queue on Redis, run by BENCH_REPLICAS tool-executor processes (apps/tool-executor).
 * Latency: BENCH_CALLS (200) calls one after another per round, floor and Tenet alternating call by call (the
 * shared machine's load swings), BENCH_ROUNDS (3) rounds after a warm-up; p50/p99 pooled. Throughput: BENCH_THROUGHPUT_CALLS (400) calls with
 * BENCH_CONCURRENCY (32) in flight, with 1 and then 2 executor replicas. Prints Markdown; BENCH_JSON=<file>
 * writes the numbers; BENCH_MODES=embedded or =bullmq runs one half.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import type { ToolCallRequestV1 } from '@tenet/contracts';
import { SqliteEventStore } from '@tenet/event-store';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { deleteStreams } from '@tenet/testing';
import {
  BullMqToolWorkQueue,
  directDescriber,
  EventLogInvocationRecorder,
  InProcessToolWorkQueue,
  outboundPolicyFromEnv,
  QueuedToolExecution,
  ToolRunner,
  ToolServices,
  type ToolExecution,
} from '@tenet/tools-service';
import { startSdkToolServer, type TestToolServer } from '@tenet/tools-service/testing';
import { median, quantile } from './turn-support.js';

const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CALLS = Number(process.env['BENCH_CALLS'] ?? 200);
const THROUGHPUT_CALLS = Number(process.env['BENCH_THROUGHPUT_CALLS'] ?? 400);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
const MODES = (process.env['BENCH_MODES'] ?? 'embedded,bullmq').split(',');
const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string): void => void process.stderr.write(`${line}\n`);

const server = await startSdkToolServer();
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-tools-'));
  dirs.push(dir);
  return dir;
};

const request = (): ToolCallRequestV1 => {
  const orderId = String(Math.floor(Math.random() * 1e6));
  return {
    idempotency_key: `bench_${randomUUID()}`,
    session_id: 's_bench',
    trace_id: 't_bench',
    agent_id: 'agent_bench',
    service: server.service,
    tool_name: 'get_order',
    arguments: { order_id: orderId },
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    timeout_secs: 30,
  };
};

/** The floor: the same HTTP call, made directly. */
async function floorCall(target: TestToolServer): Promise<void> {
  const call = request();
  const response = await fetch(`${target.service.url}/tools/get_order/calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': call.idempotency_key },
    body: JSON.stringify({ agent_id: call.agent_id, session_id: call.session_id, customer_id: 'guest', arguments: call.arguments }),
  });
  const text = await response.text();
  if (!response.ok || !text.includes('"result"')) throw new Error(`floor call failed: ${response.status}`);
}

async function tenetCall(tools: ToolExecution): Promise<void> {
  const result = await tools.execute(request());
  if (result.status !== 'succeeded') throw new Error(`tool call failed: ${JSON.stringify(result.error)}`);
}

async function sequential(call: () => Promise<void>, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    latencies.push(performance.now() - started);
  }
  return latencies;
}

/** Median calls/s of `runs` runs one after another. */
async function rate(call: () => Promise<void>, runs = 3): Promise<number> {
  const rates: number[] = [];
  for (let i = 0; i < runs; i++) rates.push(await throughput(call, THROUGHPUT_CALLS, CONCURRENCY));
  return median(rates);
}

async function throughput(call: () => Promise<void>, count: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await call();
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

interface Row {
  mode: string;
  floor: { p50: number; p99: number };
  tenet: { p50: number; p99: number };
}

/** Floor and Tenet alternate call by call, so both see the same machine load (it varies a lot on a shared box). */
async function latencyRows(mode: string, tools: ToolExecution): Promise<Row> {
  await sequential(() => floorCall(server), 30);
  await sequential(() => tenetCall(tools), 30);
  const floor: number[] = [];
  const tenet: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < CALLS; i++) {
      floor.push(...(await sequential(() => floorCall(server), 1)));
      tenet.push(...(await sequential(() => tenetCall(tools), 1)));
    }
    log(`${mode}: round ${round + 1}/${ROUNDS} done`);
  }
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
  };
  return { mode, floor: stats(floor), tenet: stats(tenet) };
}

const results: { latency: Row[]; throughput: { mode: string; replicas: number; calls_per_s: number; floor_calls_per_s: number }[] } = {
  latency: [],
  throughput: [],
};

if (MODES.includes('embedded')) {
  const store = SqliteEventStore.open({ dataDir: tempDir() });
  const services = new ToolServices(outboundPolicyFromEnv({ TENET_TOOL_ALLOWED_HOSTS: server.hostPort }));
  const queue = new InProcessToolWorkQueue();
  const runner = new ToolRunner(services, new EventLogInvocationRecorder(store));
  await queue.process((call, signal) => runner.run(call, signal));
  const tools = new QueuedToolExecution(queue, directDescriber(services));
  results.latency.push(await latencyRows('embedded (in-process queue)', tools));
  const floorRate = await rate(() => floorCall(server));
  results.throughput.push({ mode: 'embedded', replicas: 1, calls_per_s: await rate(() => tenetCall(tools)), floor_calls_per_s: floorRate });
  await queue.close();
  await services.close();
  await store.close();
}

async function startReplicas(count: number, env: Record<string, string>): Promise<ChildProcess[]> {
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    let output = '';
    const child = spawn(process.execPath, ['--import', '@swc-node/register/esm-register', 'apps/tool-executor/src/main.ts'], {
      cwd: root,
      env: { ...process.env, ...env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    for (let waited = 0; !output.includes('running tool calls'); waited += 200) {
      if (child.exitCode !== null || waited > 120_000) throw new Error(`tool executor did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    children.push(child);
  }
  return children;
}

const stop = async (children: ChildProcess[]): Promise<void> => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
    ),
  );
};

if (MODES.includes('bullmq')) {
  const prefix = `bench-tools-${randomUUID()}`;
  const env = {
    TENET_MODE: 'distributed',
    NATS_URL: natsUrl,
    REDIS_URL: redisUrl,
    TENET_REDIS_PREFIX: prefix,
    TENET_NAMESPACE: `bench${randomUUID().slice(0, 8)}`,
    TENET_DATA_DIR: tempDir(),
    TENET_TOOL_ALLOWED_HOSTS: server.hostPort,
  };
  const caller = new BullMqToolWorkQueue({ connection: redisOptionsFromUrl(redisUrl), prefix });
  const tools = new QueuedToolExecution(caller, () => Promise.reject(new Error('describe is not benchmarked')));
  try {
    let replicas = await startReplicas(1, env);
    results.latency.push(await latencyRows('BullMQ (1 tool-executor process)', tools));
    const floorRate = await rate(() => floorCall(server));
    await throughput(() => tenetCall(tools), 100, CONCURRENCY);
    results.throughput.push({ mode: 'bullmq', replicas: 1, calls_per_s: await rate(() => tenetCall(tools)), floor_calls_per_s: floorRate });
    replicas = [...replicas, ...(await startReplicas(1, env))];
    await throughput(() => tenetCall(tools), 100, CONCURRENCY);
    results.throughput.push({ mode: 'bullmq', replicas: 2, calls_per_s: await rate(() => tenetCall(tools)), floor_calls_per_s: floorRate });
    await stop(replicas);
  } finally {
    await caller.close();
    const admin = new Queue('tool-calls', { connection: redisOptionsFromUrl(redisUrl), prefix });
    await admin.obliterate({ force: true });
    await admin.close();
    // The executor processes' namespace streams (v1 and v2) on the shared NATS.
    await deleteStreams(
      natsUrl,
      tenetStreamsFor({ namespace: env.TENET_NAMESPACE, streamLimits: {} }).map((stream) => stream.name),
    );
  }
}

await server.close();
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });

const ms = (value: number): string => `${value.toFixed(2)} ms`;
const lines = [
  `| mode | floor p50 | floor p99 | Tenet p50 | Tenet p99 | overhead p50 | overhead p99 |`,
  `|---|---|---|---|---|---|---|`,
  ...results.latency.map(
    (row) =>
      `| ${row.mode} | ${ms(row.floor.p50)} | ${ms(row.floor.p99)} | ${ms(row.tenet.p50)} | ${ms(row.tenet.p99)} | ${ms(row.tenet.p50 - row.floor.p50)} | ${ms(row.tenet.p99 - row.floor.p99)} |`,
  ),
  '',
  `| mode | executor replicas | tool calls/s (${CONCURRENCY} in flight) | floor calls/s |`,
  `|---|---|---|---|`,
  ...results.throughput.map(
    (row) => `| ${row.mode} | ${row.replicas} | ${row.calls_per_s.toFixed(0)} | ${row.floor_calls_per_s.toFixed(0)} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
if (process.env['BENCH_JSON']) writeFileSync(process.env['BENCH_JSON'], JSON.stringify(results, null, 2));
process.exit(0);
