export { llmProviderConformance, conformanceRequests, type LlmProviderHarness } from './llm-provider.conformance.js';
export { ScriptedProvider, ScriptExhaustedError, type ScriptedProviderOptions } from './scripted-provider.js';
