import { Module } from '@nestjs/common';
import { AgentsHttpController } from './agents/agents.http.controller.js';
import { AgentsRepository } from './agents/agents.repository.js';
import { ContextVariablesHttpController } from './context-variables/context-variables.http.controller.js';
import { ContextVariablesRepository } from './context-variables/context-variables.repository.js';
import { CustomersHttpController } from './customers/customers.http.controller.js';
import { CustomersRepository } from './customers/customers.repository.js';
import { EventsHttpController } from './events/events.http.controller.js';
import { SessionEventsService } from './events/session-events.service.js';
import { GuidelinesHttpController } from './guidelines/guidelines.http.controller.js';
import { GuidelinesRepository } from './guidelines/guidelines.repository.js';
import { SessionTimers } from './sessions/session-timers.js';
import { SessionsHttpController } from './sessions/sessions.http.controller.js';
import { SessionsRepository } from './sessions/sessions.repository.js';
import { TagReferences } from './tags/tag-references.js';
import { TagsHttpController } from './tags/tags.http.controller.js';
import { TagsRepository } from './tags/tags.repository.js';
import { TermsHttpController } from './terms/terms.http.controller.js';
import { TermsRepository } from './terms/terms.repository.js';
import { createLlmProvider, withUsageReporting } from '@tenet/llm';
import type { EventStore } from '@tenet/event-store';
import { defaultPriceTable } from '@tenet/metering-domain';
import { EVENT_STORE } from '@tenet/platform-runtime';
import { priceTableFrom, UsageStreamSink } from './usage/usage-stream.sink.js';
import { UsageHttpController } from './usage/usage.http.controller.js';
import { GUIDELINE_SOURCE, LLM_PROVIDER, TurnService } from './turns/turn.service.js';

/** Parlant-compatible REST over the platform ports (needs PlatformModule imported by the host). */
@Module({
  controllers: [
    AgentsHttpController,
    SessionsHttpController,
    EventsHttpController,
    CustomersHttpController,
    TagsHttpController,
    GuidelinesHttpController,
    ContextVariablesHttpController,
    TermsHttpController,
    UsageHttpController,
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
    { provide: GUIDELINE_SOURCE, useExisting: GuidelinesRepository },
    // OpenAI or Anthropic when a key is configured, else the deterministic offline provider; every call metered.
    {
      provide: LLM_PROVIDER,
      useFactory: (store: EventStore) =>
        withUsageReporting(createLlmProvider(process.env), new UsageStreamSink(store, priceTableFrom(process.env, defaultPriceTable))),
      inject: [EVENT_STORE],
    },
  ],
})
export class SessionGatewayModule {}
