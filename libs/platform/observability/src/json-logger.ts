import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { redact } from './redact.js';

/**
 * The process logger: Nest's ConsoleLogger, one JSON object per line when `TENET_LOG_FORMAT=json` (the
 * container default) or human-readable text otherwise, with secrets redacted from every message, parameter
 * and stack either way. JSON lines carry `service` and, inside a traced operation, `trace_id` and `span_id`.
 */
export class TenetLogger extends ConsoleLogger {
  constructor(
    private readonly service: string,
    format: 'json' | 'text',
  ) {
    super({ json: format === 'json', colors: format === 'text' && process.stdout.isTTY === true });
  }

  protected override printMessages(messages: unknown[], context?: string, logLevel?: LogLevel, writeStreamType?: 'stdout' | 'stderr', errorStack?: unknown, params?: Record<string, unknown>): void {
    super.printMessages(messages.map((m) => redact(m)), context, logLevel, writeStreamType, redact(errorStack), params === undefined ? undefined : (redact(params) as Record<string, unknown>));
  }

  protected override getJsonLogObject(message: unknown, options: Parameters<ConsoleLogger['getJsonLogObject']>[1]): ReturnType<ConsoleLogger['getJsonLogObject']> {
    const entry = super.getJsonLogObject(message, options);
    const span = trace.getActiveSpan()?.spanContext();
    return { ...entry, service: this.service, ...(span ? { trace_id: span.traceId, span_id: span.spanId } : {}) };
  }
}

/** `TENET_LOG_FORMAT`: `json` or `text`; unset means JSON under NODE_ENV=production, text otherwise. */
export function logFormatFrom(env: Record<string, string | undefined>): 'json' | 'text' {
  const format = env['TENET_LOG_FORMAT'];
  if (format === undefined || format === '') return env['NODE_ENV'] === 'production' ? 'json' : 'text';
  if (format !== 'json' && format !== 'text') throw new TypeError(`TENET_LOG_FORMAT must be "json" or "text", got "${format}"`);
  return format;
}
