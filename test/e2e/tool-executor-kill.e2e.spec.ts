import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolIdempotencyKey, toolStreamId, type ToolCallRequestV1 } from '@tenet/contracts';
import { SqliteEventStore } from '@tenet/event-store';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { deleteRedisKeys, deleteStreams, describeWithService, eventually, natsUrl, probeNats, probeRedis, redisUrl } from '@tenet/testing';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import { BullMqToolWorkQueue } from '@tenet/tools-service';
import { startSdkToolServer, type TestToolServer } from '@tenet/tools-service/testing';
import { Queue } from 'bullmq';

const root = new URL('../../', import.meta.url).pathname;
const [nats, redis] = await Promise.all([probeNats(), probeRedis()]);

interface Replica {
  child: ChildProcess;
  pid: number;
  output: () => string;
}

/**
 * Two tool-executor processes on real NATS and Redis. A slow tool call is in flight on one of them when it is
 * killed with SIGKILL: its BullMQ lock lapses, the other replica redoes the call with the same Idempotency-Key,
 * the caller gets the result, and the tool server counted exactly one effect for the key.
 */
describeWithService(nats.available ? redis : nats, 'tool executor: kill -9 the replica running a call (two OS processes)', () => {
  let dir: string;
  let server: TestToolServer;
  let caller: BullMqToolWorkQueue;
  const replicas: Replica[] = [];
  const prefix = `tenet-test-${randomUUID()}`;
  const namespace = `toolkill-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-tool-kill-'));
    server = await startSdkToolServer();
    const env = {
      TENET_MODE: 'distributed',
      TENET_DATA_DIR: dir,
      NATS_URL: natsUrl(),
      REDIS_URL: redisUrl(),
      TENET_REDIS_PREFIX: prefix,
      TENET_NAMESPACE: namespace,
      TENET_TOOL_ALLOWED_HOSTS: server.hostPort,
      // A short lock so the dead replica's call is picked up within seconds.
      TENET_TOOL_LOCK_MS: '2000',
      PORT: '0',
    };
    for (let i = 0; i < 2; i++) {
      let output = '';
      const child = spawn(process.execPath, ['--import', '@swc-node/register/esm-register', 'apps/tool-executor/src/main.ts'], {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      replicas.push({ child, pid: child.pid!, output: () => output });
    }
    for (const replica of replicas) {
      await eventually(
        () => {
          if (replica.child.exitCode !== null) throw new Error(`a tool executor exited early:\n${replica.output()}`);
          expect(replica.output()).toContain('running tool calls');
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      );
    }
    caller = new BullMqToolWorkQueue({ connection: redisOptionsFromUrl(redisUrl()), prefix });
  });

  afterAll(async () => {
    await caller?.close();
    for (const { child } of replicas) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(
      replicas.map(({ child }) =>
        child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve)),
      ),
    );
    await server?.close();
    const admin = new Queue('tool-calls', { connection: redisOptionsFromUrl(redisUrl()), prefix });
    await admin.obliterate({ force: true });
    await admin.close();
    await deleteRedisKeys(redisUrl(), prefix);
    await deleteStreams(
      natsUrl(),
      tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('redoes the call on the surviving replica; one effect per idempotency key; one ToolInvocation recorded', async () => {
    const sessionId = `s_${randomUUID().slice(0, 8)}`;
    const args = { ms: 6_000 };
    const request: ToolCallRequestV1 = {
      idempotency_key: toolIdempotencyKey({
        session_id: sessionId,
        trace_id: 'trace_kill',
        service_name: server.service.name,
        tool_name: 'slow',
        arguments: args,
      }),
      session_id: sessionId,
      trace_id: 'trace_kill',
      agent_id: 'agent_kill',
      service: server.service,
      tool_name: 'slow',
      arguments: args,
      timeout_secs: 30,
    };
    const pending = caller.submit(request, { deadlineMs: 120_000 });

    // Find the replica holding the call (BullMQ records the worker as `processedBy`), then kill it with SIGKILL.
    const inspect = new Queue('tool-calls', { connection: redisOptionsFromUrl(redisUrl()), prefix });
    let holder: Replica | undefined;
    try {
      await eventually(
        async () => {
          const job = await inspect.getJob(request.idempotency_key);
          expect(job?.processedBy).toBeDefined();
          expect(server.backend.requests.get(request.idempotency_key)).toBe(1);
          holder = replicas.find((replica) => job?.processedBy?.endsWith(`:${replica.pid}`));
          expect(holder).toBeDefined();
        },
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      holder!.child.kill('SIGKILL');
      await new Promise((resolve) => holder!.child.once('exit', resolve));

      const result = await pending;
      expect(result).toMatchObject({ status: 'succeeded', result: { data: { slept_ms: 6_000 } } });
      const survivor = replicas.find((replica) => replica !== holder)!;
      const job = await inspect.getJob(request.idempotency_key);
      expect(job?.processedBy).toMatch(new RegExp(`:${survivor.pid}$`));
    } finally {
      await inspect.close();
    }

    // The redo reached the tool server with the same key (2 requests) and caused no second effect.
    expect(server.backend.requests.get(request.idempotency_key)).toBe(2);
    expect(server.backend.effects.get(request.idempotency_key)).toBe(1);
    expect(server.backend.totalEffects()).toBe(1);

    const log = SqliteEventStore.open({ dataDir: dir });
    try {
      const recorded = await log.readStream(toolStreamId(sessionId));
      expect(recorded.map((event) => event.type)).toEqual(['ToolInvocationCompleted']);
      expect(recorded[0]?.data).toMatchObject({ invocation_id: request.idempotency_key, tool_name: 'slow' });
    } finally {
      await log.close();
    }

    // A repeated submit of the key is answered from the recorded result, not executed again.
    expect(await caller.submit(request, { deadlineMs: 30_000 })).toMatchObject({ status: 'succeeded', replayed: true });
    expect(server.backend.requests.get(request.idempotency_key)).toBe(2);
  });
});
