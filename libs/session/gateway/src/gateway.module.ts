import { Module } from '@nestjs/common';
import { CatalogDataModule } from '@tenet/catalog-data-access';
import { EdgeAccessModule, KeysHttpController, SESSION_DIRECTORY, WorkspacesModule } from '@tenet/edge';
import { JourneyTimers, SESSION_JOURNAL } from '@tenet/journeys-client';
import { MeteringHttpModule } from '@tenet/metering-http';
import { TOOL_EVENT_LOG } from '@tenet/tools-client';
import { SessionEventsService, SessionsRepository, SessionTimers } from '@tenet/session-data-access';
import { AgentTurnExtras, BudgetExhaustion, TURN_EXTRAS, TURN_PROVIDERS } from '@tenet/session-turn';
import { EventEditsHttpController } from './events/event-edits.http.controller.js';
import { EventsHttpController } from './events/events.http.controller.js';
import { SessionsHttpController } from './sessions/sessions.http.controller.js';

/**
 * Parlant-compatible sessions, their events and the turn, over the platform ports. Needs PlatformModule, a guideline
 * matcher and metering service answering on the bus (in-process all-in-one, or their own processes over NATS), and
 * the tool executor's client (`TOOL_EXECUTION`, provided globally by the host's ToolExecutionClientModule). The
 * definitions it reads (agents, guidelines, journeys, ...) come from the catalog's storage; their routes are the
 * catalog's (`CatalogHttpModule`, composed by the host next to this module, ADR 0027).
 */
@Module({
  // API keys, session tokens, rate limits and workspaces on every HTTP route of the host (ADR 0018); budgets and
  // usage metering around every LLM call of a turn.
  imports: [EdgeAccessModule, WorkspacesModule, CatalogDataModule, MeteringHttpModule],
  controllers: [SessionsHttpController, EventsHttpController, EventEditsHttpController, KeysHttpController],
  providers: [
    SessionsRepository,
    // Session tokens are minted only for sessions that exist.
    { provide: SESSION_DIRECTORY, useExisting: SessionsRepository },
    SessionEventsService,
    // The journeys' moves and the turn's tool calls are recorded in the session's stream.
    { provide: SESSION_JOURNAL, useExisting: SessionEventsService },
    { provide: TOOL_EVENT_LOG, useExisting: SessionEventsService },
    SessionTimers,
    ...TURN_PROVIDERS,
    // Untagged guidelines apply within the agent's workspace only (ADR 0018).
    JourneyTimers,
    { provide: TURN_EXTRAS, useClass: AgentTurnExtras },
    BudgetExhaustion,
  ],
})
export class SessionGatewayModule {}
