import { Module } from '@nestjs/common';
import { EdgeAccessModule } from '@tenet/edge';
import { AgentsRepository } from './agents/agents.repository.js';
import { CannedResponsesRepository } from './canned-responses/canned-responses.repository.js';
import { CapabilitiesRepository } from './capabilities/capabilities.repository.js';
import { ContextVariablesRepository } from './context-variables/context-variables.repository.js';
import { CustomersRepository } from './customers/customers.repository.js';
import { GuidelinesRepository } from './guidelines/guidelines.repository.js';
import { JourneyCatalog } from './journeys/journey-catalog.js';
import { JourneysRepository } from './journeys/journeys.repository.js';
import { RelationshipsRepository } from './relationships/relationships.repository.js';
import { ServiceCredentialsCheck } from './services/service-credentials.js';
import { ServicesRepository } from './services/services.repository.js';
import { ToolListRefresh } from './services/tool-list-refresh.js';
import { TagReferences } from './tags/tag-references.js';
import { TagsRepository } from './tags/tags.repository.js';
import { TermsRepository } from './terms/terms.repository.js';
import { AGENT_DEFINITIONS, AgentDefinitionSnapshots } from './snapshots/agent-definitions.js';

const repositories = [
  AgentsRepository,
  TagsRepository,
  TagReferences,
  CustomersRepository,
  GuidelinesRepository,
  ContextVariablesRepository,
  TermsRepository,
  RelationshipsRepository,
  CannedResponsesRepository,
  JourneysRepository,
  JourneyCatalog,
  CapabilitiesRepository,
  ServicesRepository,
  ServiceCredentialsCheck,
];

/**
 * The definitions' storage (event-sourced streams in the shared log), one instance per process: the catalog's
 * HTTP modules write through it, the session gateway's turn and metering's budgets read through it.
 */
@Module({
  // The snapshots scope an agent's definitions to its workspace (WorkspaceDirectory); every host importing this
  // module already imports EdgeAccessModule, whose one instance Nest shares.
  imports: [EdgeAccessModule],
  // The tool services' stored tool lists follow their servers' list_changed notifications.
  // A turn reads an agent's definitions through AGENT_DEFINITIONS: one snapshot per agent, one log read per turn.
  providers: [
    ...repositories,
    ToolListRefresh,
    AgentDefinitionSnapshots,
    { provide: AGENT_DEFINITIONS, useExisting: AgentDefinitionSnapshots },
  ],
  exports: [...repositories, AGENT_DEFINITIONS],
})
export class CatalogDataModule {}
