/**
 * One turn, one trace, across processes: `npm run start:distributed` exporting OTLP/HTTP to an
 * in-memory receiver started here (OTEL_EXPORTER_OTLP_ENDPOINT). A turn that calls a tool yields spans from the
 * gateway (`tenet.turn`, `tenet.tool.call`), a matcher replica (`tenet.matcher.match`/`compose`), the tool
 * executor (`tenet.tool.execute`, its context carried in the BullMQ job) and metering (`tenet.metering.record`,
 * its context carried from the usage event's metadata through the relay into the JetStream message headers) —
 * all with the turn's trace id, each process reporting as its own `service.name`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoOrderService, type DemoOrderService } from '@tenet/hosts';
import { tenetStreamsFor } from '@tenet/platform-runtime';
import {
  deleteRedisKeys,
  deleteStreams,
  describeWithService,
  eventually,
  freePortRange,
  killGroup,
  natsUrl,
  probeNats,
  probeRedis,
  redisUrl,
  runCommand,
  type RunningCommand,
  waitHealthy,
} from '@tenet/testing';

const root = new URL('../../', import.meta.url).pathname;
const [nats, redis] = await Promise.all([probeNats(), probeRedis()]);

interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

/** An OTLP/HTTP trace receiver (JSON encoding, as @opentelemetry/exporter-trace-otlp-http sends it), in memory. */
async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; requests: () => number; close: () => Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests++;
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: { traceId: string; spanId: string; parentSpanId?: string; name: string }[] }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans) {
        const service = resourceSpans.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans)
            spans.push({
              service,
              name: span.name,
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describeWithService(
  nats.available && !redis.available ? redis : nats,
  'a turn in distributed mode is one trace across processes (OTLP/HTTP)',
  () => {
    let dataDir: string;
    let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
    let orders: DemoOrderService;
    let stack: RunningCommand | undefined;
    const namespace = `trace-${randomUUID().slice(0, 8)}`;
    const redisPrefix = `tenet-trace-${randomUUID()}`;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'tenet-trace-'));
      receiver = await startOtlpReceiver();
      orders = await startDemoOrderService();
    });

    afterAll(async () => {
      if (stack) {
        stack.child.kill('SIGINT');
        await Promise.race([stack.exited, new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
        killGroup(stack);
      }
      await receiver?.close();
      await orders?.close();
      await deleteStreams(
        natsUrl(),
        tenetStreamsFor({ namespace, streamLimits: {} }).map((stream) => stream.name),
      );
      await deleteRedisKeys(redisUrl(), redisPrefix).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('gives the gateway, the matcher, the tool executor and metering spans of the one trace of the turn', async () => {
      const port = await freePortRange(21);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(port),
        TENET_DATA_DIR: dataDir,
        TENET_NAMESPACE: namespace,
        TENET_REDIS_PREFIX: redisPrefix,
        TENET_DEMO: 'off',
        TENET_AUTH: 'off',
        TENET_MATCHER_REPLICAS: '1',
        TENET_LLM_PROVIDER: 'offline',
        TENET_TOOL_ALLOWED_HOSTS: orders.hostPort,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        // Export each batch within a fraction of a second rather than the default 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '200',
      };
      delete env['OPENAI_API_KEY'];
      delete env['ANTHROPIC_API_KEY'];
      delete env['TENET_MODE'];
      const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
      stack = runCommand(scripts['start:distributed']!, { cwd: root, env });
      const gateway = `http://127.0.0.1:${port}`;
      // Six processes transpiling TypeScript at boot on a shared 2-core machine: minutes, not seconds.
      await waitHealthy(gateway, stack, 400_000);
      for (const offset of [1, 2, 20]) await waitHealthy(`http://127.0.0.1:${port + offset}`, stack, 400_000); // matcher-1, metering, tools-1

      const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
        const response = await fetch(`${gateway}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const text = await response.text();
        if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
        return (text ? JSON.parse(text) : undefined) as T;
      };
      await call('PUT', '/services/orders', { kind: 'openapi', openapi: { url: orders.url, source: orders.source } });
      const agent = await call<{ id: string }>('POST', '/agents', { name: 'Traced' });
      await call('POST', '/guidelines', {
        condition: 'The customer asks about the status of their order',
        action: 'Tell them the status of their order',
        tools: ['orders:get_order_status'],
        tags: [`agent:${agent.id}`],
      });
      const session = await call<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
      const posted = await call<{ offset: number }>('POST', `/sessions/${session.id}/events`, {
        kind: 'message',
        source: 'customer',
        message: 'What is the status of my order 55555?',
      });
      let events: { kind: string; source: string; data: { status?: string; message?: string } }[] = [];
      await eventually(
        async () => {
          events = await call('GET', `/sessions/${session.id}/events?min_offset=${posted.offset + 1}&wait_for_data=5`);
          expect(events.some((e) => e.kind === 'status' && (e.data.status === 'ready' || e.data.status === 'error'))).toBe(true);
        },
        { timeoutMs: 120_000, intervalMs: 100 },
      );
      expect(events.find((e) => e.kind === 'status' && e.data.status === 'error')).toBeUndefined();
      expect(events.find((e) => e.kind === 'message' && e.source === 'ai_agent')?.data.message).toContain('55555');

      const spans = await eventually(
        () => {
          const turn = receiver.spans.find((s) => s.name === 'tenet.turn');
          expect(turn).toBeDefined();
          const trace = receiver.spans.filter((s) => s.traceId === turn!.traceId);
          expect(trace.map((s) => s.name)).toEqual(
            expect.arrayContaining([
              'tenet.turn',
              'tenet.matcher.match',
              'tenet.matcher.compose',
              'tenet.tool.call',
              'tenet.tool.execute',
              'tenet.metering.record',
            ]),
          );
          return trace;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      ).catch((error: unknown) => {
        throw new Error(
          `${String(error)}\nspans received: ${JSON.stringify(receiver.spans.map((s) => `${s.service}:${s.name}:${s.traceId.slice(0, 8)}`))}\n--- output ---\n${stack!.output().slice(-4000)}`,
        );
      });

      // One trace, from (at least) three OS processes: each reports its own service name.
      const byName = (name: string) => spans.filter((s) => s.name === name);
      const services = new Set(spans.map((s) => s.service));
      expect(services.size).toBeGreaterThanOrEqual(3);
      expect([...services].sort()).toEqual(expect.arrayContaining(['guideline-matcher', 'metering', 'session-gateway', 'tool-executor']));
      expect(byName('tenet.turn').every((s) => s.service === 'session-gateway')).toBe(true);
      expect(byName('tenet.tool.execute').every((s) => s.service === 'tool-executor')).toBe(true);
      // Linked as parent and child across the process boundaries.
      const turn = byName('tenet.turn')[0]!;
      const ids = new Set(spans.map((s) => s.spanId));
      for (const span of spans.filter((s) => s !== turn)) expect(ids.has(span.parentSpanId ?? '')).toBe(true);
      for (const name of ['tenet.matcher.match', 'tenet.matcher.compose', 'tenet.tool.call'])
        expect(byName(name)[0]!.parentSpanId).toBe(turn.spanId);
      const execute = byName('tenet.tool.execute')[0]!;
      expect(byName('tenet.tool.call').map((s) => s.spanId)).toContain(execute.parentSpanId);
      expect(turn.parentSpanId).toBeUndefined();
    }, 900_000);
  },
);
