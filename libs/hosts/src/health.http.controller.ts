import { Controller, Get, Inject, Optional } from '@nestjs/common';
import type { EventLogRelay } from '@tenet/event-store';
import { EVENT_LOG_RELAY, PLATFORM_DESCRIPTION } from '@tenet/platform-runtime';

/** `GET /healthz`: liveness plus which adapters this process runs on and how far its relay has published. */
@Controller()
export class HealthHttpController {
  constructor(
    @Inject(PLATFORM_DESCRIPTION) private readonly platform: Record<string, string>,
    @Optional() @Inject(EVENT_LOG_RELAY) private readonly relay?: EventLogRelay,
  ) {}

  @Get('healthz')
  health(): Record<string, unknown> {
    return { status: 'ok', ...this.platform, ...(this.relay ? { relay: this.relay.status() } : {}) };
  }
}
