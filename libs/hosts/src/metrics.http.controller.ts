import { Controller, Get, Header, Inject, Optional, SetMetadata } from '@nestjs/common';
import type { EventLogRelay, EventStore } from '@tenet/event-store';
import { TenetMetrics } from '@tenet/observability';
import { EVENT_LOG_RELAY, EVENT_STORE } from '@tenet/platform-runtime';

/** How far past the relay checkpoint the pending count looks; beyond it the gauge reads this cap. */
const PENDING_CAP = 10_000;

/**
 * Left out of the OpenAPI document: @nestjs/swagger's `@ApiExcludeController()` metadata, set without importing
 * @nestjs/swagger (hundreds of modules that only the hosts serving `/docs` load, ADR 0035).
 */
const EXCLUDED_FROM_OPENAPI = SetMetadata('swagger/apiExcludeController', [true]);

/** `GET /metrics`: this process's Prometheus metrics; the relay gauges are read from the relay at scrape time. */
@EXCLUDED_FROM_OPENAPI
@Controller()
export class MetricsHttpController {
  constructor(
    private readonly metrics: TenetMetrics,
    @Optional() @Inject(EVENT_LOG_RELAY) private readonly relay?: EventLogRelay,
    @Optional() @Inject(EVENT_STORE) private readonly store?: EventStore,
  ) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    if (this.relay) {
      const status = this.relay.status();
      this.metrics.relayPublishedPosition.set(status.checkpoint);
      this.metrics.relayFailures.set(status.consecutiveFailures);
      this.metrics.relayLeader.set(status.role === 'leader' ? 1 : 0);
      if (this.store && status.role === 'leader') {
        const pending = await this.store.readAll({ afterPosition: status.checkpoint, limit: PENDING_CAP }).then(
          (events) => events.length,
          () => undefined,
        );
        if (pending !== undefined) this.metrics.relayPending.set(pending);
      }
    }
    return this.metrics.render();
  }
}
