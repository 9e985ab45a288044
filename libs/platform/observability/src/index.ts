export { TenetMetrics, type LlmCallUsage } from './metrics.js';
export { ObservabilityModule } from './observability.module.js';
export { HttpMetricsMiddleware } from './http-metrics.middleware.js';
export { TenetLogger, logFormatFrom, startupLoggingFrom, type StartupLogging } from './json-logger.js';
export { redact, redactKnownSecrets, redactSecrets, redactString, REDACTED } from './redact.js';
export { failActiveSpan, startTracing, stopTracing, traced, traceHeaders, withRemoteParent } from './tracing.js';
