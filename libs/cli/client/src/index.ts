export { ApiError, CliError, connectionFrom, TenetApi, type Connection } from './api-client.js';
export { applyPlans, planDefinitions, preflight, type AgentPlan, type ApplyReport } from './apply.js';
export { definitionFiles, knowledgeHash, loadDefinitions, type LoadedDefinition } from './definition-files.js';
export { allAgentIds, exportAgents, type ExportResult } from './export.js';
export { readAgentState } from './server-state.js';
export { Conversation, recordedTurns } from './conversation.js';
export { startEmbeddedServer, type EmbeddedServer } from './embedded-server.js';
export { parseSessionFilter, replay, withScratchServer, type ReplayResult, type SessionFilter } from './replay-runner.js';
export { loadScenarios, runScenario, runScenarios, type LoadedScenario } from './scenario-runner.js';
