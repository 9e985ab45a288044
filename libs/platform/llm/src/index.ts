export { conversationOf, type JsonSchema, type LlmCallContext, type LlmMessage, type LlmProvider, type LlmRequest, type LlmResponse, type LlmTask, type LlmUsage } from './llm.port.js';
export {
  AuthenticationError,
  InvalidStructuredOutputError,
  isLlmError,
  LlmError,
  ProviderUnavailableError,
  RateLimitedError,
  UnsupportedTaskError,
  type LlmErrorCode,
} from './errors.js';
export { validateStructuredOutput } from './structured-output.js';
export {
  MATCH_GUIDELINES,
  matchGuidelinesRequest,
  matchGuidelinesSchema,
  type ConversationTurn,
  type GuidelineMatch,
  type MatchGuidelinesInput,
  type MatchGuidelinesOutput,
} from './tasks/match-guidelines.js';
export { COMPOSE_REPLY, composeReplyRequest, composeReplySchema, type ComposeReplyInput, type ComposeReplyOutput } from './tasks/compose-reply.js';
export { OfflineProvider, OFFLINE_MODEL } from './offline/offline-provider.js';
export { OpenAiProvider, DEFAULT_OPENAI_MODEL, type OpenAiProviderOptions } from './openai/openai-provider.js';
export { AnthropicProvider, DEFAULT_ANTHROPIC_MODEL, type AnthropicProviderOptions } from './anthropic/anthropic-provider.js';
export { type RetryPolicy } from './sdk/retry.js';
export { withUsageReporting, type UsageRecord, type UsageSink } from './usage/usage-reporting.js';
export { createLlmProvider, LlmConfigurationError, type LlmProviderChoice } from './provider-factory.js';
