export {
  conversationOf,
  type BilledCall,
  type JsonSchema,
  type LlmCallContext,
  type LlmMessage,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
  type LlmTask,
  type LlmUsage,
} from './llm.port.js';
export {
  AuthenticationError,
  InvalidStructuredOutputError,
  isLlmError,
  LlmConfigurationError,
  LlmError,
  ProviderUnavailableError,
  RateLimitedError,
  cancelledCall,
  UnsupportedTaskError,
  type LlmErrorCode,
} from './errors.js';
export { validateStructuredOutput } from './structured-output.js';
export { type GlossaryTerm } from './tasks/glossary.js';
export { toolResultsSection, type ToolOutcome } from './tasks/tool-results.js';
export {
  MATCH_GUIDELINES,
  matchGuidelinesRequest,
  matchGuidelinesSchema,
  matchGuidelinesWithIntentSchema,
  parseIntentParameters,
  parseToolArguments,
  type IntentAnswer,
  type IntentToMatch,
  type ConversationTurn,
  type GuidelineMatch,
  type GuidelineToMatch,
  type MatchGuidelinesInput,
  type MatchGuidelinesOutput,
  type ToolArguments,
  type ToolSpec,
} from './tasks/match-guidelines.js';
export {
  COMPOSE_REPLY,
  COMPOSITION_MODES,
  composeReplyRequest,
  composeReplySchema,
  type CannedResponse,
  type ComposeReplyInput,
  type ComposeReplyOutput,
  type CompositionMode,
  type KnowledgePassage,
} from './tasks/compose-reply.js';
export {
  CHECK_COHERENCE,
  checkCoherenceRequest,
  checkCoherenceSchema,
  proposalId,
  type CheckCoherenceInput,
  type CheckCoherenceOutput,
  type CoherenceFindingOutput,
  type CoherenceSubject,
} from './tasks/check-coherence.js';
export {
  EXTRACT_CONTEXT,
  extractContextRequest,
  extractContextSchema,
  type ExtractContextInput,
  type ExtractContextOutput,
  type ExtractedFact,
  type ExtractedValue,
  type VariableToExtract,
} from './tasks/extract-context.js';
export { extractContext as offlineExtractContext } from './offline/extract.js';
export { OfflineProvider, OFFLINE_MODEL, registerOfflineTask } from './offline/offline-provider.js';
export { classifyIntent as offlineClassifyIntent } from './offline/intents.js';
export { OpenAiProvider, DEFAULT_OPENAI_MODEL, type OpenAiProviderOptions } from './openai/openai-provider.js';
export { AnthropicProvider, DEFAULT_ANTHROPIC_MODEL, type AnthropicProviderOptions } from './anthropic/anthropic-provider.js';
export { type RetryPolicy } from './sdk/retry.js';
export { withUsageReporting, type UsageRecord, type UsageSink } from './usage/usage-reporting.js';
export {
  createLlmProvider,
  createLlmProviderFor,
  llmProviderNameFrom,
  type LlmProviderChoice,
  type LlmProviderSpec,
} from './provider-factory.js';
export { FallbackProvider, fallsBack, generateWithRecovery, withFallback } from './resilience/with-fallback.js';
export { billedCallsOf, generateWithRepair, type RepairOutcome } from './resilience/repair.js';
export { cosineSimilarity, type EmbeddingProvider, type EmbeddingResponse, type EmbeddingUsage } from './embeddings/embedding.port.js';
export { OfflineVectorizer, OFFLINE_EMBEDDING_MODEL, DEFAULT_OFFLINE_DIMENSIONS } from './embeddings/offline-vectorizer.js';
export {
  OpenAiEmbeddingProvider,
  DEFAULT_OPENAI_EMBEDDING_MODEL,
  type OpenAiEmbeddingProviderOptions,
} from './embeddings/openai-embeddings.js';
export { createEmbeddingProvider } from './embeddings/embedding-provider-factory.js';
export { compileUserPattern, re2RegExp, type CompiledPattern, type UserPattern } from '@tenet/json-schema';
// The one secret redactor lives in observability; re-exported for the provider adapters' callers.
export { redactSecrets } from '@tenet/observability';
export { agentInstructions, type AgentSoul } from './tasks/agent-instructions.js';
