export { AgentDefinitionSchema, agentDefinitionJsonSchema, type AgentDefinition, type EnvReferenceT, type KnowledgeEntryT, type ToolServiceEntryT } from './definition-schema.js';
export { DefinitionError, desiredResources, formatProblem, locationKey, parseDefinition, type DefinitionDocument, type DefinitionProblem, type EntryLocations, type ResolvedValues } from './definition-document.js';
export { definitionFromResources, renderDefinition, serviceSourceVariable } from './export.js';
export { fieldChanges, planChanges, renderPlan, type Change, type FieldChange, type Plan } from './plan.js';
export { createRequest, deleteRequest, unsupportedChanges, updateRequests, type ApiRequest, type ResolvedInputs } from './requests.js';
export { canonicalEntry, deepEqual, isPlainObject, keyOf, relationshipKey, RESOURCE_KINDS, type Entry, type Resource, type ResourceKind } from './resources.js';
