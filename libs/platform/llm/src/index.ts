export { LlmError, type LlmProvider, type LlmRequest, type LlmResponse, type LlmUsage } from './llm.port.js';
export {
  composeReplySchema,
  matchGuidelinesSchema,
  type ComposeReplyInput,
  type ComposeReplyOutput,
  type MatchGuidelinesInput,
  type MatchGuidelinesOutput,
} from './tasks.js';
export { OfflineProvider } from './offline/offline-provider.js';
export { OpenAiProvider, type OpenAiProviderOptions } from './openai/openai-provider.js';
export { AnthropicProvider, type AnthropicProviderOptions } from './anthropic/anthropic-provider.js';
export { createLlmProvider } from './provider-factory.js';
