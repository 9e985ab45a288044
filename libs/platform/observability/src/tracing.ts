import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Span } from '@opentelemetry/api';
import { createRequire } from 'node:module';
import type * as ContextAsyncHooks from '@opentelemetry/context-async-hooks';
import type * as OtelCore from '@opentelemetry/core';
import type * as OtlpHttpExporter from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtelResources from '@opentelemetry/resources';
import type * as SdkTrace from '@opentelemetry/sdk-trace';
import type { SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';

// The tracing API, SDK and exporter are loaded only when tracing is turned on (ADR 0035): a process without
// OTEL_EXPORTER_OTLP_ENDPOINT never loads them, and the functions below do what the API's no-op tracer would do —
// run the work, carry no headers, know no active span.
const load = createRequire(import.meta.url);

let api: typeof OtelApi | undefined;
let active: TracerProvider | undefined;

/**
 * Turns tracing on for this process when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (OTLP over HTTP; the exporter
 * also honours the other standard `OTEL_EXPORTER_OTLP_*` variables), or when a test passes an exporter.
 * Otherwise nothing is registered and every span below is a no-op. W3C trace context crosses NATS in the
 * `traceparent` / `tracestate` message headers (`traceHeaders`, `withRemoteParent`).
 */
export function startTracing(
  service: string,
  env: Record<string, string | undefined>,
  exporter?: SpanExporter,
): { shutdown(): Promise<void> } | undefined {
  if (active) return active;
  if (!exporter && !env['OTEL_EXPORTER_OTLP_ENDPOINT']) return undefined;
  const { context, propagation, trace } = (api = load('@opentelemetry/api') as typeof OtelApi);
  const { AsyncLocalStorageContextManager } = load('@opentelemetry/context-async-hooks') as typeof ContextAsyncHooks;
  const { W3CTraceContextPropagator } = load('@opentelemetry/core') as typeof OtelCore;
  const { resourceFromAttributes } = load('@opentelemetry/resources') as typeof OtelResources;
  const { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider } = load('@opentelemetry/sdk-trace') as typeof SdkTrace;
  const otlpExporter = (): SpanExporter =>
    new (load('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttpExporter).OTLPTraceExporter();
  const processor = exporter ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter: otlpExporter() });
  active = new TracerProvider({ resource: resourceFromAttributes({ 'service.name': service }), spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(active);
  return active;
}

/** Flushes and stops the tracer provider started by `startTracing` (on shutdown). */
export async function stopTracing(): Promise<void> {
  await active?.shutdown();
}

/** Runs `work` in a new active span (a child of the current one), recording a thrown error on it. */
export function traced<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!api) return work();
  const { SpanStatusCode } = api;
  return api.trace.getTracer('tenet').startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Marks the active span failed (status ERROR, the failure recorded as an exception) for work that reports a
 * failure as a value instead of throwing — a tool call whose result is `failed`.
 */
export function failActiveSpan(failure: { code: string; message: string }): void {
  const span = activeSpan();
  if (!span || !api) return;
  span.recordException({ name: failure.code, message: failure.message });
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: `${failure.code}: ${failure.message}` });
}

/** The current trace context as message headers (`traceparent`, `tracestate`); empty when tracing is off. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  api?.propagation.inject(api.context.active(), carrier);
  return carrier;
}

/** Runs `work` with the trace context carried in `headers` (from another process) as its parent. */
export function withRemoteParent<T>(headers: Record<string, string | undefined> | undefined, work: () => T): T {
  if (!api) return work();
  return api.context.with(api.propagation.extract(api.ROOT_CONTEXT, headers ?? {}), work);
}

/** The span this code runs in, if tracing is on and there is one. */
export function activeSpan(): Span | undefined {
  return api?.trace.getActiveSpan();
}
