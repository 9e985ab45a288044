import type { LlmProvider } from './llm.port.js';
import { AnthropicProvider } from './anthropic/anthropic-provider.js';
import { OfflineProvider } from './offline/offline-provider.js';
import { OpenAiProvider } from './openai/openai-provider.js';

/**
 * Picks the provider from the environment: `TENET_LLM_PROVIDER` (openai | anthropic | offline) if set, else
 * OpenAI when `OPENAI_API_KEY` is set, else Anthropic when `ANTHROPIC_API_KEY` is set, else offline.
 */
export function createLlmProvider(env: Record<string, string | undefined> = process.env): LlmProvider {
  const explicit = env['TENET_LLM_PROVIDER'];
  const choice = explicit ?? (env['OPENAI_API_KEY'] ? 'openai' : env['ANTHROPIC_API_KEY'] ? 'anthropic' : 'offline');
  const model = env['TENET_LLM_MODEL'];
  switch (choice) {
    case 'openai': {
      const apiKey = env['OPENAI_API_KEY'];
      if (!apiKey) throw new TypeError('TENET_LLM_PROVIDER=openai needs OPENAI_API_KEY');
      return new OpenAiProvider({ apiKey, ...(model ? { model } : {}), ...(env['OPENAI_BASE_URL'] ? { baseURL: env['OPENAI_BASE_URL'] } : {}) });
    }
    case 'anthropic': {
      const apiKey = env['ANTHROPIC_API_KEY'];
      if (!apiKey) throw new TypeError('TENET_LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY');
      return new AnthropicProvider({ apiKey, ...(model ? { model } : {}), ...(env['ANTHROPIC_BASE_URL'] ? { baseURL: env['ANTHROPIC_BASE_URL'] } : {}) });
    }
    case 'offline':
      return new OfflineProvider();
    default:
      throw new TypeError(`TENET_LLM_PROVIDER must be openai, anthropic or offline, got "${choice}"`);
  }
}
