import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import type { EventLogRelay } from '@tenet/event-store';
import { EVENT_LOG_RELAY, PLATFORM_DESCRIPTION, PLATFORM_READINESS, type ReadinessCheck } from '@tenet/platform-runtime';

/** A dependency that does not answer within this long is reported down: a readiness probe must not hang. */
const CHECK_TIMEOUT_MS = 3_000;

/**
 * Liveness and readiness, kept apart as Kubernetes expects: `GET /healthz` says the process runs (cheap, touches
 * no dependency, so an outage of NATS or Redis never gets a healthy process restarted), `GET /readyz` says it can
 * serve — NATS connected, Redis answering, the event log taking writes — and answers 503 naming what is down.
 */
@Controller()
export class HealthHttpController {
  constructor(
    @Inject(PLATFORM_DESCRIPTION) private readonly platform: Record<string, string>,
    @Inject(PLATFORM_READINESS) private readonly readiness: ReadinessCheck[],
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Optional() @Inject(EVENT_LOG_RELAY) private readonly relay?: EventLogRelay,
  ) {}

  @Get('healthz')
  live(): Record<string, unknown> {
    return { status: 'ok', ...this.platform, ...(this.relay ? { relay: this.relay.status() } : {}) };
  }

  @Get('readyz')
  // Not documented through @nestjs/swagger: terminus would load it (a second copy, hundreds of modules) in every process (ADR 0035).
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  ready(): Promise<HealthCheckResult> {
    return this.health.check(
      this.readiness.map(
        (dependency) => () =>
          this.indicators
            .check(dependency.name)
            .attempt(() => dependency.check())
            .withTimeout(CHECK_TIMEOUT_MS),
      ),
    );
  }
}
