import { Module } from '@nestjs/common';
import { EdgeAccessModule } from './auth/edge-access.module.js';
import { KeysHttpController } from './auth/keys.http.controller.js';
import { WorkspaceGuidelineSource } from './workspaces/workspace-guidelines.js';
import { WorkspacesHttpController } from './workspaces/workspaces.http.controller.js';
import { WorkspacesRepository } from './workspaces/workspaces.repository.js';
import { AgentsHttpController } from './agents/agents.http.controller.js';
import { AgentsRepository } from './agents/agents.repository.js';
import { AgentBudgets } from './budgets/agent-budgets.js';
import { BudgetExhaustion } from './budgets/budget-exhaustion.js';
import { BudgetHttpController } from './budgets/budget.http.controller.js';
import { CapabilitiesHttpController } from './capabilities/capabilities.http.controller.js';
import { CapabilitiesRepository } from './capabilities/capabilities.repository.js';
import { ContextVariablesHttpController } from './context-variables/context-variables.http.controller.js';
import { ContextVariablesRepository } from './context-variables/context-variables.repository.js';
import { CustomersHttpController } from './customers/customers.http.controller.js';
import { CustomersRepository } from './customers/customers.repository.js';
import { EvaluationsHttpController } from './evaluations/evaluations.http.controller.js';
import { EvaluationsService } from './evaluations/evaluations.service.js';
import { EventEditsHttpController } from './events/event-edits.http.controller.js';
import { EventsHttpController } from './events/events.http.controller.js';
import { SessionEventsService } from './events/session-events.service.js';
import { GuidelinesHttpController } from './guidelines/guidelines.http.controller.js';
import { GuidelinesRepository } from './guidelines/guidelines.repository.js';
import { JourneyTimers } from './journeys/journey-timers.js';
import { TurnJourneys } from './turns/turn-journeys.js';
import { JourneyCatalog } from './journeys/journey-catalog.js';
import { JourneysHttpController } from './journeys/journeys.http.controller.js';
import { JourneysRepository } from './journeys/journeys.repository.js';
import { SessionTimers } from './sessions/session-timers.js';
import { SessionsHttpController } from './sessions/sessions.http.controller.js';
import { SessionsRepository } from './sessions/sessions.repository.js';
import { TagReferences } from './tags/tag-references.js';
import { TagsHttpController } from './tags/tags.http.controller.js';
import { TagsRepository } from './tags/tags.repository.js';
import { TermsHttpController } from './terms/terms.http.controller.js';
import { TermsRepository } from './terms/terms.repository.js';
import type { EventStore } from '@tenet/event-store';
import { defaultPriceTable } from '@tenet/metering-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { priceTableFrom, UsageStreamSink } from './usage/usage-stream.sink.js';
import { UsageHttpController } from './usage/usage.http.controller.js';
import { UsagePageHttpController } from './usage/usage-page.http.controller.js';
import { TurnContext } from './turns/turn-context.js';
import { TurnMemory } from './turns/turn-memory.js';
import { AgentTurnExtras } from './turns/turn-extras.js';
import { CannedResponsesHttpController } from './canned-responses/canned-responses.http.controller.js';
import { CannedResponsesRepository } from './canned-responses/canned-responses.repository.js';
import { RelationshipsHttpController } from './relationships/relationships.http.controller.js';
import { RelationshipsRepository } from './relationships/relationships.repository.js';
import { GUIDELINE_SOURCE, TURN_EXTRAS, TurnService } from './turns/turn.service.js';
import { ServicesHttpController } from './services/services.http.controller.js';
import { ServiceCredentialsCheck } from './services/service-credentials.js';
import { ServicesRepository } from './services/services.repository.js';

/**
 * Parlant-compatible REST over the platform ports. Needs PlatformModule, a guideline matcher and metering
 * service answering on the bus (in-process all-in-one, or their own processes over NATS), and the tool
 * executor's client (`TOOL_EXECUTION`, provided globally by the host's ToolExecutionClientModule).
 */
@Module({
  // API keys, session tokens, rate limits and workspaces on every HTTP route of the host (ADR 0018).
  imports: [EdgeAccessModule],
  controllers: [
    AgentsHttpController,
    SessionsHttpController,
    EventsHttpController,
    EventEditsHttpController,
    CustomersHttpController,
    TagsHttpController,
    GuidelinesHttpController,
    ContextVariablesHttpController,
    TermsHttpController,
    UsageHttpController,
    UsagePageHttpController,
    RelationshipsHttpController,
    CannedResponsesHttpController,
    JourneysHttpController,
    CapabilitiesHttpController,
    EvaluationsHttpController,
    ServicesHttpController,
    BudgetHttpController,
    KeysHttpController,
    WorkspacesHttpController,
  ],
  providers: [
    AgentsRepository,
    SessionsRepository,
    SessionEventsService,
    SessionTimers,
    TagsRepository,
    TagReferences,
    CustomersRepository,
    GuidelinesRepository,
    ContextVariablesRepository,
    TermsRepository,
    TurnService,
    TurnMemory,
    // Untagged guidelines apply within the agent's workspace only (ADR 0018).
    WorkspaceGuidelineSource,
    { provide: GUIDELINE_SOURCE, useExisting: WorkspaceGuidelineSource },
    TurnContext,
    RelationshipsRepository,
    CannedResponsesRepository,
    JourneysRepository,
    JourneyCatalog,
    JourneyTimers,
    TurnJourneys,
    CapabilitiesRepository,
    EvaluationsService,
    ServicesRepository,
    ServiceCredentialsCheck,
    { provide: TURN_EXTRAS, useClass: AgentTurnExtras },
    AgentBudgets,
    BudgetExhaustion,
    WorkspacesRepository,
    // Every LLM call of a turn becomes a priced usage event in the log, published to metering by the relay.
    { provide: UsageStreamSink, useFactory: (store: EventStore) => new UsageStreamSink(store, priceTableFrom(process.env, defaultPriceTable)), inject: [EVENT_STORE] },
  ],
})
export class SessionGatewayModule {}
