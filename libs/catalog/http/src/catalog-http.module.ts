import { Module } from '@nestjs/common';
import { CatalogDataModule } from '@tenet/catalog-data-access';
import { EdgeAccessModule } from '@tenet/edge';
import { MeteringHttpModule } from '@tenet/metering-http';
import { AgentsHttpController } from './agents/agents.http.controller.js';
import { CannedResponsesHttpController } from './canned-responses/canned-responses.http.controller.js';
import { CapabilitiesHttpController } from './capabilities/capabilities.http.controller.js';
import { ContextVariablesHttpController } from './context-variables/context-variables.http.controller.js';
import { CustomersHttpController } from './customers/customers.http.controller.js';
import { EvaluationsHttpController } from './evaluations/evaluations.http.controller.js';
import { EvaluationsService } from './evaluations/evaluations.service.js';
import { GuidelinesHttpController } from './guidelines/guidelines.http.controller.js';
import { JourneysHttpController } from './journeys/journeys.http.controller.js';
import { RelationshipsHttpController } from './relationships/relationships.http.controller.js';
import { ServicesHttpController } from './services/services.http.controller.js';
import { TagsHttpController } from './tags/tags.http.controller.js';
import { TermsHttpController } from './terms/terms.http.controller.js';

/** What an agent does: the agent itself, its guidelines and how they relate, journeys, canned responses, capabilities, terms and evaluations. */
@Module({
  imports: [EdgeAccessModule, CatalogDataModule, MeteringHttpModule],
  controllers: [
    AgentsHttpController,
    GuidelinesHttpController,
    TermsHttpController,
    RelationshipsHttpController,
    CannedResponsesHttpController,
    JourneysHttpController,
    CapabilitiesHttpController,
    EvaluationsHttpController,
  ],
  providers: [EvaluationsService],
})
export class AgentDefinitionsHttpModule {}

/** Whom and what agents talk to: customers, tags, context variables and tool services. */
@Module({
  imports: [EdgeAccessModule, CatalogDataModule],
  controllers: [CustomersHttpController, TagsHttpController, ContextVariablesHttpController, ServicesHttpController],
})
export class DirectoryHttpModule {}

/** Every definition resource of the catalog on the host's HTTP edge (ADR 0027). */
@Module({ imports: [AgentDefinitionsHttpModule, DirectoryHttpModule] })
export class CatalogHttpModule {}
