import { createLlmProviderFor, type LlmProvider, type LlmProviderSpec } from '@tenet/llm';

export interface ProviderChoice {
  provider: 'openai' | 'anthropic' | 'offline';
  model?: string;
  fallback?: { provider: 'openai' | 'anthropic' | 'offline'; model?: string };
}

/**
 * The provider for each agent: the configured default, or the agent's own choice with its fallback (seed 002
 * AgentDef.fallback), built once per distinct choice and reused across turns.
 */
export class ProviderRegistry {
  private readonly built = new Map<string, LlmProvider>();

  constructor(
    private readonly fallbackDefault: LlmProvider,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  for(choice: ProviderChoice | undefined): LlmProvider {
    if (!choice) return this.fallbackDefault;
    const key = JSON.stringify(choice);
    let provider = this.built.get(key);
    if (!provider) {
      const spec: LlmProviderSpec = { provider: choice.provider, ...(choice.model ? { model: choice.model } : {}), ...(choice.fallback ? { fallback: { provider: choice.fallback.provider, ...(choice.fallback.model ? { model: choice.fallback.model } : {}) } } : {}) };
      provider = createLlmProviderFor(spec, this.env);
      this.built.set(key, provider);
    }
    return provider;
  }
}
