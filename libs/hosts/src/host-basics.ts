import type { DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { LlmProvider } from '@tenet/llm';
import { ObservabilityModule } from '@tenet/observability';
import type { PlatformConfig } from '@tenet/platform-runtime';
import { HealthHttpController } from './health.http.controller.js';
import { MetricsHttpController } from './metrics.http.controller.js';

export interface HostOptions {
  /** Overrides the configured LLM provider of the matcher (tests, benchmarks). */
  provider?: LlmProvider;
  /**
   * Tool-service targets the executor may call besides TENET_TOOL_ALLOWED_HOSTS (`host` or `host:port`), e.g. the
   * bundled demo tool service's own 127.0.0.1 address — that address only, not all of loopback.
   */
  toolAllowedHosts?: string[];
  /** Commands MCP stdio tool services may run besides TENET_TOOL_STDIO_COMMANDS (tests). */
  toolStdioCommands?: string[];
}

/**
 * What every host has besides its feature modules: metrics and logs (ObservabilityModule), `/healthz` and `/readyz`
 * (HealthHttpController; failed checks are in the 503 body, not logged per probe) and `/metrics` (Prometheus, one
 * registry per process). Each host is its own file, and each app imports only its own (`@tenet/hosts/<service>`),
 * so a process loads only the modules it runs (ADR 0035).
 */
export function hostBasics(config: PlatformConfig): {
  imports: DynamicModule[];
  controllers: [typeof HealthHttpController, typeof MetricsHttpController];
} {
  return {
    imports: [ObservabilityModule.forRoot(config.serviceName), TerminusModule.forRoot({ logger: false })],
    controllers: [HealthHttpController, MetricsHttpController],
  };
}
