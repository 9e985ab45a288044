import { Module } from '@nestjs/common';
import { AgentsHttpController } from './agents/agents.http.controller.js';
import { AgentsRepository } from './agents/agents.repository.js';
import { EventsHttpController } from './events/events.http.controller.js';
import { SessionEventsService } from './events/session-events.service.js';
import { SessionTimers } from './sessions/session-timers.js';
import { SessionsHttpController } from './sessions/sessions.http.controller.js';
import { SessionsRepository } from './sessions/sessions.repository.js';

/** Parlant-compatible REST over the platform ports (needs PlatformModule imported by the host). */
@Module({
  controllers: [AgentsHttpController, SessionsHttpController, EventsHttpController],
  providers: [AgentsRepository, SessionsRepository, SessionEventsService, SessionTimers],
})
export class SessionGatewayModule {}
