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
import { createLlmProvider } from '@tenet/llm';
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
    // OpenAI or Anthropic when a key is configured, else the deterministic offline provider.
    { provide: LLM_PROVIDER, useFactory: () => createLlmProvider(process.env) },
  ],
})
export class SessionGatewayModule {}
