export { llmProviderConformance, conformanceRequests, type LlmProviderHarness } from './llm-provider.conformance.js';
export { embeddingProviderConformance, conformanceTexts, type EmbeddingProviderHarness } from './embedding-provider.conformance.js';
export { ScriptedProvider, ScriptExhaustedError, type ScriptedProviderOptions } from './scripted-provider.js';
export {
  startWireServer,
  openAiCompletion,
  anthropicToolUse,
  openAiEmbeddings,
  type RecordedRequest,
  type WireReply,
  type WireServer,
} from './wire-server.js';
