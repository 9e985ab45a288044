export { CatalogDataModule } from './catalog-data.module.js';
export { AgentBudgetDto, AgentCreationDto, AgentUpdateDto, type AgentView } from './agents/agent.dto.js';
export { AgentArchivedError, AgentsRepository } from './agents/agents.repository.js';
export { CannedResponseCreationDto, CannedResponseUpdateDto, type CannedResponseView } from './canned-responses/canned-response.dto.js';
export { CannedResponsesRepository, cannedTurnItem } from './canned-responses/canned-responses.repository.js';
export { CapabilitiesRepository } from './capabilities/capabilities.repository.js';
export { CapabilityCreationDto, CapabilityUpdateDto, type CapabilityView } from './capabilities/capability.dto.js';
export {
  ContextVariableCreationDto,
  ContextVariableUpdateDto,
  ContextVariableValueDto,
  type ContextVariableReadResult,
  type ContextVariableValueView,
  type ContextVariableView,
} from './context-variables/context-variable.dto.js';
export { ContextVariablesRepository } from './context-variables/context-variables.repository.js';
export { isStale, unlessStale } from './context-variables/freshness.js';
export {
  CustomerCreationDto,
  CustomerUpdateDto,
  GUEST_CUSTOMER_ID,
  guestSessionKey,
  patchRecord,
  type CustomerPage,
  type CustomerView,
} from './customers/customer.dto.js';
export { CustomersRepository } from './customers/customers.repository.js';
export {
  EvaluationCreationDto,
  type EvaluationRecord,
  type EvaluationView,
  type InvoiceView,
  type PayloadDto,
} from './evaluations/evaluation.dto.js';
export {
  GuidelineCreationDto,
  GuidelineUpdateDto,
  LabelsPatchDto,
  MetadataPatchDto,
  type AgentGuideline,
  type GuidelineView,
  type GuidelineWithRelationships,
} from './guidelines/guideline.dto.js';
export { GuidelinesRepository } from './guidelines/guidelines.repository.js';
export { JourneyCatalog, journeyDefinition } from './journeys/journey-catalog.js';
export { journeyTransitionRecords, lastCustomerActivity, recordedJourneys } from './journeys/journey-records.js';
export { JourneyCreationDto, JourneyUpdateDto, toJourneyView, type JourneyRecord, type JourneyView } from './journeys/journey.dto.js';
export { JourneysRepository } from './journeys/journeys.repository.js';
export {
  RELATIONSHIP_KINDS,
  RelationshipCreationDto,
  type Endpoint,
  type Relationship,
  type RelationshipKindName,
  type RelationshipRecord,
} from './relationships/relationship.dto.js';
export { RelationshipsRepository } from './relationships/relationships.repository.js';
export { ServiceCredentialsCheck, credentialProblems, sealCredentials } from './services/service-credentials.js';
export {
  SERVICE_KINDS,
  ServiceUpdateDto,
  type McpServiceParamsDto,
  type ServiceView,
  type StoredService,
  type StoredTool,
  type ToolView,
} from './services/service.dto.js';
export { ServicesRepository, parseServiceToolId, serviceRef } from './services/services.repository.js';
export { NoToolExecutorError, TOOL_RUNNER, type ToolCallResult, type ToolRunner, type ToolServiceRef } from './services/tool-runner.js';
export { TagReferences, scopedToAgent } from './tags/tag-references.js';
export { TagCreationDto, TagUpdateDto, patchList, type TagView } from './tags/tag.dto.js';
export { TagsRepository } from './tags/tags.repository.js';
export { TermCreationDto, TermUpdateDto, type TermView } from './terms/term.dto.js';
export { TermsRepository } from './terms/terms.repository.js';
export type { Endpoint as RelationshipEndpoint } from './relationships/relationship.dto.js';
export {
  AGENT_DEFINITIONS,
  AgentDefinitionSnapshots,
  type AgentDefinitionSource,
  type AgentDefinitions,
} from './snapshots/agent-definitions.js';
export { DEFINITION_CATEGORIES, DefinitionChanges } from './snapshots/definition-changes.js';
