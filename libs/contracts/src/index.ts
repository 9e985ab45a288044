export { ALL_V1_SUBJECTS, SUBJECT_ROOT, TENET_STREAM, subjectFor, subjectToken } from './subjects.js';
export { envelopeSchema, type Envelope, type IntegrationEventContract, type LoggedEvent } from './envelope.js';
export {
  CustomEventRecordedV1,
  EventSourceSchema,
  MessageCreatedV1,
  SessionStatusSchema,
  StatusChangedV1,
  ToolCalledV1,
  sessionEventContracts,
  sessionStreamId,
  toSessionIntegrationEvent,
  type LoggedSessionEvent,
  type SessionEventData,
  type SessionEventKind,
  type SessionIntegrationEventV1,
} from './session/session-events.v1.js';
export {
  SESSION_MODE_CHANGED_EVENT_TYPE,
  SessionModeChangedV1,
  sessionMetaStreamId,
  sessionModeContracts,
  toSessionModeChangedEvent,
  type SessionModeChangedData,
} from './session/session-mode-changed.v1.js';
export {
  SESSION_DELETED_EVENT_TYPE,
  SESSION_EVENTS_DELETED_EVENT_TYPE,
  SessionDeletedV1,
  SessionEventsDeletedV1,
  sessionDeletionContracts,
  toSessionDeletionEvent,
} from './session/session-deletions.v1.js';
export { allContracts, allV2Contracts, contractFor } from './registry.js';
export {
  ALL_V2_SUBJECTS,
  DEFAULT_WORKSPACE,
  OWNER_STREAM_PREFIX,
  RESOURCE_ASSIGNED_EVENT_TYPE,
  SUBJECT_ROOT_V2,
  TENET_STREAM_V2,
  WORKSPACE_ID_PATTERN,
  ownerStreamId,
  toWorkspaceEvent,
  workspaceAnchorOf,
  workspaceContract,
  workspaceSubjects,
  type ResourceAssignedData,
  type WorkspaceAnchor,
} from './workspaces/workspace-events.v2.js';
export {
  JOURNEY_EVENT_NAMES,
  JOURNEY_TRANSITION_EVENT_TYPE,
  JourneyAbandonedV1,
  JourneyFailedV1,
  JourneyActivatedV1,
  JourneyCompletedV1,
  JourneyTransitionedV1,
  journeyEventContracts,
  toJourneyIntegrationEvent,
  type JourneyEventName,
  type JourneyIntegrationEventV1,
  type LoggedJourneyTransition,
} from './journey/journey-events.v1.js';
export {
  AdvanceJourneysReplyV1,
  AdvanceJourneysRequestV1,
  JOURNEYS_ADVANCE_SUBJECT,
  JourneyDefinitionV1,
  RecordedJourneyEventV1,
} from './rpc/journeys.v1.js';
export {
  LLM_USAGE_EVENT_TYPE,
  LlmUsageRecordedV1,
  meteringEventContracts,
  toUsageIntegrationEvent,
  usageStreamId,
  type LlmUsageData,
} from './metering/llm-usage-recorded.v1.js';
export { toIntegrationEvent } from './routing.js';
export {
  INTENT_RECOGNIZED_EVENT_TYPE,
  IntentRecognizedV1,
  intentRecognitionStreamId,
  toIntentIntegrationEvent,
  type IntentRecognizedData,
} from './intents/intent-recognized.v1.js';
export {
  BudgetScopeV1,
  CallUsageV1,
  CheckCoherenceReplyV1,
  CheckCoherenceRequestV1,
  MATCHER_CHECK_COHERENCE_SUBJECT,
  ComposeReplyReplyV1,
  ComposeReplyRequestV1,
  MATCHER_COMPOSE_SUBJECT,
  MATCHER_MATCH_SUBJECT,
  MatchGuidelinesReplyV1,
  MatchGuidelinesRequestV1,
  IntentClassificationV1,
  IntentToMatchV1,
  TurnDefinitionSchemasV1,
} from './rpc/matcher.v1.js';
export { METERING_USAGE_SUBJECT, UsageSummaryRequestV1 } from './rpc/metering.v1.js';
export { rpcValidator, RpcValidationError } from './rpc/validate.js';
export {
  DescribeToolsReplyV1,
  SkippedOperationV1,
  type ServiceDescriptionV1,
  DescribeToolsRequestV1,
  TOOL_ERROR_CODES,
  TOOL_INVOCATION_COMPLETED,
  TOOL_INVOCATION_FAILED,
  TOOLS_DESCRIBE_SUBJECT,
  TOOLS_LIST_CHANGED_SUBJECT,
  ToolListChangedV1,
  ToolCallRequestV1,
  ToolCallResultV1,
  ToolDescriptorV1,
  ToolErrorV1,
  ToolInvocationCompletedV1,
  ToolInvocationFailedV1,
  ToolParametersV1,
  ToolResultPayloadV1,
  ToolRetryConfigV1,
  ToolServiceV1,
  canonicalJson,
  toToolIntegrationEvent,
  toolEventContracts,
  toolId,
  toolIdempotencyKey,
  toolStreamId,
  type ToolErrorCode,
  type ToolInvocationData,
} from './tools/tools.v1.js';
export {
  CUSTOMER_MEMORY_STREAM_PREFIX,
  FactForgottenV1,
  FactRecordedV1,
  FactSupersededV1,
  memoryEventContracts,
  toMemoryIntegrationEvent,
} from './memory/memory-events.v1.js';
export { MEMORY_RECALL_QUEUE_GROUP, MEMORY_RECALL_SUBJECT, RecallRequestV1, RecallResponseV1 } from './rpc/memory.v1.js';
export {
  CONTEXT_EXTRACTION_STREAM_PREFIX,
  FactsExtractedV1,
  VariableUpdateV1,
  contextExtractionStream,
  extractionEventContracts,
  toExtractionIntegrationEvent,
} from './memory/extraction-events.v1.js';
export { ExtractContextReplyV1, ExtractContextRequestV1, ExtractionVariableV1, MATCHER_EXTRACT_SUBJECT } from './rpc/extraction.v1.js';
export {
  BUDGET_EVENT_TYPES,
  BudgetExceededV1,
  BudgetWarningV1,
  budgetEventContracts,
  budgetStreamId,
  toBudgetIntegrationEvent,
  type BudgetEventData,
} from './metering/budget-events.v1.js';
export {
  natsPasswordVariable,
  renderNatsWorkspaceConfig,
  workspaceConsumerName,
  workspaceInboxPrefix,
  workspacePermissions,
  type NatsWorkspaceConfigOptions,
} from './workspaces/nats-permissions.js';
