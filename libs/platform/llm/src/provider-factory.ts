import { AnthropicProvider, DEFAULT_ANTHROPIC_MODEL } from './anthropic/anthropic-provider.js';
import type { LlmProvider } from './llm.port.js';
import { OfflineProvider } from './offline/offline-provider.js';
import { DEFAULT_OPENAI_MODEL, OpenAiProvider } from './openai/openai-provider.js';

export type LlmProviderChoice = 'openai' | 'anthropic' | 'offline';

/** A configuration that cannot work (an unknown provider, a chosen provider without its key): fail at startup. */
export class LlmConfigurationError extends Error {
  readonly code = 'LLM.CONFIGURATION';

  constructor(message: string) {
    super(message);
    this.name = 'LlmConfigurationError';
  }
}

const set = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

/**
 * Picks the provider from the environment: `TENET_LLM_PROVIDER` (openai | anthropic | offline) when set, else
 * OpenAI when `OPENAI_API_KEY` is set, else Anthropic when `ANTHROPIC_API_KEY` is set, else the offline provider,
 * so that a checkout without keys still runs the demo. `TENET_LLM_MODEL` overrides the provider's default model;
 * `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` point at compatible endpoints.
 */
export function createLlmProvider(env: Record<string, string | undefined> = process.env): LlmProvider {
  const explicit = set(env['TENET_LLM_PROVIDER'])?.toLowerCase();
  const openAiKey = set(env['OPENAI_API_KEY']);
  const anthropicKey = set(env['ANTHROPIC_API_KEY']);
  const choice = explicit ?? (openAiKey ? 'openai' : anthropicKey ? 'anthropic' : 'offline');
  const model = set(env['TENET_LLM_MODEL']);
  switch (choice) {
    case 'openai': {
      if (!openAiKey) throw new LlmConfigurationError('TENET_LLM_PROVIDER=openai needs OPENAI_API_KEY');
      const baseURL = set(env['OPENAI_BASE_URL']);
      return new OpenAiProvider({ apiKey: openAiKey, model: model ?? DEFAULT_OPENAI_MODEL, ...(baseURL ? { baseURL } : {}) });
    }
    case 'anthropic': {
      if (!anthropicKey) throw new LlmConfigurationError('TENET_LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY');
      const baseURL = set(env['ANTHROPIC_BASE_URL']);
      return new AnthropicProvider({ apiKey: anthropicKey, model: model ?? DEFAULT_ANTHROPIC_MODEL, ...(baseURL ? { baseURL } : {}) });
    }
    case 'offline':
      return new OfflineProvider();
    default:
      throw new LlmConfigurationError(`TENET_LLM_PROVIDER must be openai, anthropic or offline, got "${choice}"`);
  }
}
