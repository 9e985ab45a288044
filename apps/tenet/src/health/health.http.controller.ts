import { Controller, Get, Inject } from '@nestjs/common';
import type { EventLogRelay } from '@tenet/event-store';
import { EVENT_LOG_RELAY, PLATFORM_DESCRIPTION } from '@tenet/platform-runtime';

@Controller()
export class HealthHttpController {
  constructor(
    @Inject(PLATFORM_DESCRIPTION) private readonly platform: Record<string, string>,
    @Inject(EVENT_LOG_RELAY) private readonly relay: EventLogRelay,
  ) {}

  /** Liveness plus which adapters this process runs on and how far the relay has published. */
  @Get('healthz')
  health(): Record<string, unknown> {
    return { status: 'ok', ...this.platform, relay: this.relay.status() };
  }
}
