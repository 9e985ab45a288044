/**
 * One turn, one trace: the gateway's `tenet.turn` span is the parent of the matcher's match and compose spans,
 * whose context crosses the bus in W3C `traceparent` headers (all-in-one here, in-process bus; the NATS bus
 * carries the same headers). Spans are collected by an in-memory exporter.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { createServer } from 'node:net';
import { SpanStatusCode } from '@opentelemetry/api';
import { startAllInOne, startDemoOrderService, type DemoOrderService } from '@tenet/hosts';
import { startTracing, traceHeaders, traced, withRemoteParent } from '@tenet/observability';
import { eventually } from '@tenet/testing';

describe('tracing', () => {
  const exporter = new InMemorySpanExporter();
  let dir: string;
  let app: INestApplication;
  let url: string;
  let orders: DemoOrderService;
  let deadPort: number;
  const saved = { ...process.env };

  beforeAll(async () => {
    startTracing('tenet-trace-test', {}, exporter);
    dir = mkdtempSync(join(tmpdir(), 'tenet-tracing-'));
    Object.assign(process.env, { TENET_LLM_PROVIDER: 'offline' });
    orders = await startDemoOrderService();
    deadPort = await closedPort();
    ({ app, url } = await startAllInOne(
      { TENET_MODE: 'embedded', TENET_DATA_DIR: dir, TENET_SERVICE_NAME: 'tenet-trace-test' },
      { toolAllowedHosts: [orders.hostPort, `127.0.0.1:${deadPort}`] },
    ));
  });

  afterAll(async () => {
    await app.close();
    await orders.close();
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('carries the trace context in headers from one span to a remote child', async () => {
    const headers = await traced('parent', {}, async () => traceHeaders());
    expect(headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await withRemoteParent(headers, () => traced('child', {}, async () => undefined));
    const [parent, child] = ['parent', 'child'].map((name) => exporter.getFinishedSpans().find((s) => s.name === name)!);
    expect(child!.spanContext().traceId).toBe(parent!.spanContext().traceId);
    expect(child!.parentSpanContext?.spanId).toBe(parent!.spanContext().spanId);
  });

  it('gives a turn one trace, with the matcher spans as children of the turn span', async () => {
    exporter.reset();
    const post = async <T>(path: string, body: unknown): Promise<T> =>
      (await (
        await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json()) as T;
    const agent = await post<{ id: string }>('/agents', { name: 'Traced' });
    const session = await post<{ id: string }>('/sessions', { agent_id: agent.id });
    await post(`/sessions/${session.id}/events`, { kind: 'message', source: 'customer', message: 'hello there' });
    const spans = await eventually(async () => {
      const finished = exporter.getFinishedSpans();
      expect(finished.map((s) => s.name)).toEqual(expect.arrayContaining(['tenet.turn', 'tenet.matcher.match', 'tenet.matcher.compose']));
      return finished;
    });
    const turn = spans.find((s) => s.name === 'tenet.turn')!;
    expect(turn.attributes['tenet.session_id']).toBe(session.id);
    for (const name of ['tenet.matcher.match', 'tenet.matcher.compose']) {
      const span = spans.find((s) => s.name === name)!;
      expect(span.spanContext().traceId).toBe(turn.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    }
  });

  it('marks the turn span ERROR when a tool that does not allow failure fails the turn (no exception thrown)', async () => {
    exporter.reset();
    const call = async <T>(path: string, method: string, body: unknown): Promise<T> =>
      (await (
        await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json()) as T;
    await call('/services/down', 'PUT', { kind: 'openapi', openapi: { url: `http://127.0.0.1:${deadPort}`, source: orders.source } });
    const agent = await call<{ id: string }>('/agents', 'POST', { name: 'Failing' });
    await call('/guidelines', 'POST', {
      condition: 'The customer asks about the status of their order',
      action: 'Tell them the status of their order',
      tools: ['down:get_order_status'],
      tags: [`agent:${agent.id}`],
    });
    const session = await call<{ id: string }>('/sessions', 'POST', { agent_id: agent.id });
    await call(`/sessions/${session.id}/events`, 'POST', {
      kind: 'message',
      source: 'customer',
      message: 'What is the status of my order 55555?',
    });
    const turn = await eventually(async () => {
      const span = exporter.getFinishedSpans().find((s) => s.name === 'tenet.turn' && s.attributes['tenet.session_id'] === session.id);
      expect(span).toBeDefined();
      return span!;
    });
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
    expect(turn.status.message).toMatch(/^TOOLS\.[A-Z_]+: tool down:get_order_status failed$/);
  });
});

/** A 127.0.0.1 port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
