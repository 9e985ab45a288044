import { createLlmProviderFor, withFallback, type LlmProvider, type LlmProviderSpec } from '@tenet/llm';

export interface ProviderChoice {
  /** Absent: the configured default provider (then `fallback` is what the agent adds to it). */
  provider?: 'openai' | 'anthropic' | 'offline';
  model?: string;
  fallback?: { provider: 'openai' | 'anthropic' | 'offline'; model?: string };
}

/**
 * The provider for each agent: the configured default, or the agent's own choice with its fallback
 * (docs/data-model.md#fallback), built once per distinct choice and reused across turns.
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
    const cached = this.built.get(key);
    if (cached) return cached;
    const provider = this.build(choice);
    this.built.set(key, provider);
    return provider;
  }

  private build(choice: ProviderChoice): LlmProvider {
    const fallback = choice.fallback
      ? { provider: choice.fallback.provider, ...(choice.fallback.model ? { model: choice.fallback.model } : {}) }
      : undefined;
    // No provider of its own: the configured default, with the agent's fallback (docs/data-model.md#fallback) if set.
    if (!choice.provider)
      return fallback ? withFallback(this.fallbackDefault, createLlmProviderFor(fallback, this.env)) : this.fallbackDefault;
    const spec: LlmProviderSpec = {
      provider: choice.provider,
      ...(choice.model ? { model: choice.model } : {}),
      ...(fallback ? { fallback } : {}),
    };
    return createLlmProviderFor(spec, this.env);
  }
}
