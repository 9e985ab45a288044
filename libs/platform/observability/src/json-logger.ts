import { readSettings } from '@tenet/config';
import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { redact } from './redact.js';
import { activeSpan } from './tracing.js';

/**
 * The process logger: Nest's ConsoleLogger, one JSON object per line when `TENET_LOG_FORMAT=json` (the
 * container default) or human-readable text otherwise, with secrets redacted from every message, parameter
 * and stack either way. JSON lines carry `service` and, inside a traced operation, `trace_id` and `span_id`.
 */
export class TenetLogger extends ConsoleLogger {
  /** Nest's start-up detail held back (one line per module, controller and route) until it is summed up. */
  private readonly startupDetail = new Map<string, number>();

  constructor(
    private readonly service: string,
    format: 'json' | 'text',
    private readonly startupLogging: StartupLogging = 'summary',
  ) {
    super({ json: format === 'json', colors: format === 'text' && process.stdout.isTTY === true });
  }

  /** One line for the start-up detail held back since the last one (and forgets it): what was initialised and mapped. */
  private startupSummary(): string {
    const count = (context: string): number => this.startupDetail.get(context) ?? 0;
    const parts = [
      ...(count('InstanceLoader') > 0 ? [`${count('InstanceLoader')} modules initialised`] : []),
      ...(count('RouterExplorer') > 0 ? [`${count('RouterExplorer')} routes in ${count('RoutesResolver')} controllers mapped`] : []),
    ];
    this.startupDetail.clear();
    return `${parts.join(', ')} (TENET_LOG_STARTUP=verbose lists them)`;
  }

  /** The process logger as the environment sets it (TENET_LOG_FORMAT, TENET_LOG_STARTUP). */
  static fromEnv(service: string, env: Record<string, string | undefined>): TenetLogger {
    return new TenetLogger(service, logFormatFrom(env), startupLoggingFrom(env));
  }

  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, unknown>,
  ): void {
    if (this.startupLogging === 'summary' && logLevel === 'log' && context !== undefined && STARTUP_DETAIL.has(context)) {
      this.startupDetail.set(context, (this.startupDetail.get(context) ?? 0) + messages.length);
      return;
    }
    if (this.startupDetail.size > 0) super.printMessages([this.startupSummary()], 'NestApplication', 'log', 'stdout');

    super.printMessages(
      messages.map((m) => redact(m)),
      context,
      logLevel,
      writeStreamType,
      redact(errorStack),
      params === undefined ? undefined : (redact(params) as Record<string, unknown>),
    );
  }

  protected override getJsonLogObject(
    message: unknown,
    options: Parameters<ConsoleLogger['getJsonLogObject']>[1],
  ): ReturnType<ConsoleLogger['getJsonLogObject']> {
    const entry = super.getJsonLogObject(message, options);
    const span = activeSpan()?.spanContext();
    return { ...entry, service: this.service, ...(span ? { trace_id: span.traceId, span_id: span.spanId } : {}) };
  }
}

/** Nest's per-module and per-route start-up lines: summed up in one line unless TENET_LOG_STARTUP=verbose. */
const STARTUP_DETAIL = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

export type StartupLogging = 'summary' | 'verbose';

/** `TENET_LOG_STARTUP`: `summary` (default: one line for Nest's module and route mapping) or `verbose` (every line). */
export function startupLoggingFrom(env: Record<string, string | undefined>): StartupLogging {
  return readSettings(env, ['TENET_LOG_STARTUP']).TENET_LOG_STARTUP;
}

/** `TENET_LOG_FORMAT`: `json` or `text`; unset means JSON under NODE_ENV=production, text otherwise. */
export function logFormatFrom(env: Record<string, string | undefined>): 'json' | 'text' {
  const settings = readSettings(env, ['TENET_LOG_FORMAT', 'NODE_ENV']);
  return settings.TENET_LOG_FORMAT ?? (settings.NODE_ENV === 'production' ? 'json' : 'text');
}
