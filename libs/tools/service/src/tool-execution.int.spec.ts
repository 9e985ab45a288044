import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TOOL_ERROR_CODES, toolIdempotencyKey, toolStreamId, type ToolCallRequestV1 } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { TenetTransport, type MessageBus } from '@tenet/messaging';
import {
  EVENT_STORE,
  loadPlatformConfig,
  MESSAGE_BUS,
  PlatformModule,
  tenetStreamsFor,
  type PlatformConfig,
} from '@tenet/platform-runtime';
import { deleteRedisKeys, deleteStreams, describeWithService, eventually, natsUrl, probeNats, probeRedis, redisUrl } from '@tenet/testing';
import { Queue } from 'bullmq';
import { redisOptionsFromUrl } from '@tenet/scheduling';
import { startSdkToolServer, type TestToolServer } from './testing/index.js';
import { TOOL_EXECUTION, type ToolExecution } from './tool-execution.port.js';
import { ToolExecutionClientModule, ToolExecutorModule } from './tools.module.js';
import { EventLogInvocationRecorder } from './invocation-recorder.js';

const [nats, redis] = await Promise.all([probeNats(), probeRedis()]);

const callFor = (server: TestToolServer, sessionId: string, args: Record<string, unknown>, tool = 'get_order'): ToolCallRequestV1 => ({
  idempotency_key: toolIdempotencyKey({
    session_id: sessionId,
    trace_id: 'trace_1',
    service_name: server.service.name,
    tool_name: tool,
    arguments: args,
  }),
  session_id: sessionId,
  trace_id: 'trace_1',
  agent_id: 'agent_1',
  service: server.service,
  tool_name: tool,
  arguments: args,
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  timeout_secs: 10,
});

async function boot(config: PlatformConfig, imports: unknown[], serviceName: string): Promise<INestApplication> {
  @Module({ imports: [PlatformModule.forRoot(config), ...(imports as [])] })
  class Host {}
  const app = await NestFactory.create(Host, { logger: false });
  app.connectMicroservice(
    { strategy: new TenetTransport({ bus: app.get<MessageBus>(MESSAGE_BUS), serviceName }) },
    { inheritAppConfig: false },
  );
  await app.startAllMicroservices();
  await app.init();
  return app;
}

describe('TOOL_EXECUTION in embedded mode (in-process queue, SQLite log)', () => {
  let server: TestToolServer;
  let app: INestApplication;
  let dataDir: string;

  beforeAll(async () => {
    server = await startSdkToolServer();
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-tools-'));
    app = await boot(
      loadPlatformConfig({ TENET_MODE: 'embedded', TENET_DATA_DIR: dataDir }),
      [ToolExecutionClientModule.forRoot({ allowedHosts: [server.hostPort] }), ToolExecutorModule.forRoot()],
      'tenet',
    );
  });
  afterAll(async () => {
    await app?.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('describes, executes once per idempotency key and records one ToolInvocation in the tools-<session> stream', async () => {
    const tools = app.get<ToolExecution>(TOOL_EXECUTION);
    expect((await tools.describe(server.service)).tools.map((tool) => tool.name)).toContain('get_order');
    const call = callFor(server, `s_${randomUUID().slice(0, 8)}`, { order_id: '55555' });
    const first = await tools.execute(call);
    expect(first).toMatchObject({ status: 'succeeded', replayed: false, result: { data: { order_id: '55555', status: 'shipped' } } });
    const second = await tools.execute(call);
    expect(second).toMatchObject({ status: 'succeeded', replayed: true });
    expect(server.backend.effects.get(call.idempotency_key)).toBe(1);
    const recorded = await app.get<EventStore>(EVENT_STORE).readStream(toolStreamId(call.session_id));
    expect(recorded.map((event) => event.type)).toEqual(['ToolInvocationCompleted']);
    expect(recorded[0]?.data).toMatchObject({
      invocation_id: call.idempotency_key,
      tool_id: 'plugins:get_order',
      parameters: { order_id: '55555' },
      attempts: 1,
    });
    // A redone job records again: the log keeps the first record only (the event id is derived from the key).
    await new EventLogInvocationRecorder(app.get<EventStore>(EVENT_STORE)).record(recorded[0]?.data as never);
    expect(await app.get<EventStore>(EVENT_STORE).readStream(toolStreamId(call.session_id))).toHaveLength(1);
  });

  it('returns bad arguments and a refused target as failed results (never throws), recorded as invocation_failed', async () => {
    const tools = app.get<ToolExecution>(TOOL_EXECUTION);
    const sessionId = `s_${randomUUID().slice(0, 8)}`;
    const bad = await tools.execute(callFor(server, sessionId, { order: 1 }));
    expect(bad).toMatchObject({ status: 'failed', error: { code: TOOL_ERROR_CODES.INVALID_ARGUMENTS } });
    const elsewhere = await tools.execute({
      ...callFor(server, sessionId, { order_id: '1' }),
      service: { ...server.service, url: 'http://169.254.169.254/latest' },
    });
    expect(elsewhere).toMatchObject({ status: 'failed', error: { code: TOOL_ERROR_CODES.TARGET_NOT_ALLOWED } });
    const broken = await tools.execute({ ...callFor(server, sessionId, { order_id: '1' }), idempotency_key: 'has spaces' });
    expect(broken).toMatchObject({ status: 'failed', error: { code: TOOL_ERROR_CODES.INVALID_REQUEST } });
    const recorded = await app.get<EventStore>(EVENT_STORE).readStream(toolStreamId(sessionId));
    expect(recorded.map((event) => event.type)).toEqual(['ToolInvocationFailed', 'ToolInvocationFailed']);
    await expect(tools.describe({ ...server.service, url: 'http://10.1.2.3:80' })).rejects.toMatchObject({
      code: TOOL_ERROR_CODES.TARGET_NOT_ALLOWED,
    });
  });

  it("stamps the caller's workspace on the audit event (the executor's log cannot resolve it; ADR 0018)", async () => {
    const tools = app.get<ToolExecution>(TOOL_EXECUTION);
    const sessionId = `s_${randomUUID().slice(0, 8)}`;
    expect(await tools.execute({ ...callFor(server, sessionId, { order_id: '7' }), workspace_id: 'acme' })).toMatchObject({
      status: 'succeeded',
    });
    const [recorded] = await app.get<EventStore>(EVENT_STORE).readStream(toolStreamId(sessionId));
    expect(recorded?.metadata).toMatchObject({ workspace_id: 'acme' });
    const refused = await tools.execute({
      ...callFor(server, `s_${randomUUID().slice(0, 8)}`, { order_id: '7' }),
      workspace_id: 'Not valid',
    });
    expect(refused).toMatchObject({ status: 'failed', error: { code: TOOL_ERROR_CODES.INVALID_REQUEST } });
  });
});

describeWithService(nats, 'TOOL_EXECUTION in distributed mode (NATS describe RPC, BullMQ queue)', () => {
  describeWithService(redis, 'with Redis', () => {
    let server: TestToolServer;
    let gateway: INestApplication;
    let executor: INestApplication;
    let dataDir: string;
    const prefix = `tenet-test-${randomUUID()}`;
    const namespace = `t${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      server = await startSdkToolServer();
      dataDir = mkdtempSync(join(tmpdir(), 'tenet-tools-'));
      const env = {
        TENET_MODE: 'distributed',
        NATS_URL: natsUrl(),
        REDIS_URL: redisUrl(),
        TENET_REDIS_PREFIX: prefix,
        TENET_NAMESPACE: namespace,
      };
      process.env['TENET_TOOL_ALLOWED_HOSTS'] = server.hostPort;
      executor = await boot(
        loadPlatformConfig({ ...env, TENET_DATA_DIR: join(dataDir, 'executor') }, 'tool-executor'),
        [ToolExecutorModule.forRoot()],
        'tool-executor',
      );
      // The gateway side is NOT allowed to reach the tool server: every outbound call must happen in the executor.
      delete process.env['TENET_TOOL_ALLOWED_HOSTS'];
      gateway = await boot(
        loadPlatformConfig({ ...env, TENET_DATA_DIR: join(dataDir, 'gateway') }, 'gateway'),
        [ToolExecutionClientModule.forRoot()],
        'gateway',
      );
    });
    afterAll(async () => {
      await gateway?.close();
      await executor?.close();
      await server.close();
      const admin = new Queue('tool-calls', { connection: redisOptionsFromUrl(redisUrl()), prefix });
      await admin.obliterate({ force: true });
      await admin.close();
      await deleteRedisKeys(redisUrl(), prefix);
      await deleteStreams(
        natsUrl(),
        tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
      );
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('describes through the executor replicas and runs calls from the queue there', async () => {
      const tools = gateway.get<ToolExecution>(TOOL_EXECUTION);
      expect((await tools.describe(server.service)).tools.map((tool) => tool.name)).toContain('get_order');
      await expect(tools.describe({ ...server.service, url: 'http://127.0.0.1:1' })).rejects.toMatchObject({
        code: TOOL_ERROR_CODES.TARGET_NOT_ALLOWED,
      });
      const call = callFor(server, `s_${randomUUID().slice(0, 8)}`, { order_id: '777' });
      const first = await tools.execute(call);
      expect(first).toMatchObject({ status: 'succeeded', replayed: false, result: { data: { order_id: '777' } } });
      expect(await tools.execute(call)).toMatchObject({ status: 'succeeded', replayed: true });
      expect(server.backend.effects.get(call.idempotency_key)).toBe(1);
      await eventually(async () => {
        const recorded = await executor.get<EventStore>(EVENT_STORE).readStream(toolStreamId(call.session_id));
        expect(recorded.map((event) => event.type)).toEqual(['ToolInvocationCompleted']);
      });
    });
  });
});
