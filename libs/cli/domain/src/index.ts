export {
  AgentDefinitionSchema,
  agentDefinitionJsonSchema,
  type AgentDefinition,
  type EnvReferenceT,
  type KnowledgeEntryT,
  type ToolServiceAuthT,
  type ToolServiceEntryT,
} from './definition-schema.js';
export {
  compileSchema,
  DefinitionError,
  desiredResources,
  formatProblem,
  locationKey,
  parseChecked,
  parseDefinition,
  type CheckedDocument,
  type DefinitionDocument,
  type DefinitionProblem,
  type EntryLocations,
  type ResolvedValues,
} from './definition-document.js';
export { credentialNotes, definitionFromResources, renderDefinition, serviceSourceVariable } from './export.js';
export { fieldChanges, planChanges, renderPlan, type Change, type FieldChange, type Plan } from './plan.js';
export { createRequest, deleteRequest, unsupportedChanges, updateRequests, type ApiRequest, type ResolvedInputs } from './requests.js';
export {
  canonicalEntry,
  deepEqual,
  isPlainObject,
  keyOf,
  relationshipKey,
  RESOURCE_KINDS,
  type Entry,
  type Resource,
  type ResourceKind,
} from './resources.js';
export { behaviourDiff, renderBehaviourDiff, type ReplayedTurn, type TurnDifference } from './replay.js';
export {
  checkTurn,
  ScenarioFileSchema,
  type ExpectationResult,
  type Scenario,
  type ScenarioFile,
  type TurnExpectationT,
} from './scenarios.js';
export {
  renderJunit,
  renderReport,
  scenarioPassed,
  tally,
  type ExpectationTally,
  type ScenarioOutcome,
  type ScenarioRun,
} from './test-report.js';
export { endsTurn, liveStatus, observeTurn, renderTurn, type SessionEvent, type TurnObservation } from './turn.js';
