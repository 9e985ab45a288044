import { AnthropicProvider, DEFAULT_ANTHROPIC_MODEL } from './anthropic/anthropic-provider.js';
import { LlmConfigurationError } from './errors.js';
import { llmSettings, set } from './llm-settings.js';
import type { LlmProvider } from './llm.port.js';
import { OfflineProvider } from './offline/offline-provider.js';
import { DEFAULT_OPENAI_MODEL, OpenAiProvider } from './openai/openai-provider.js';
import { withFallback } from './resilience/with-fallback.js';

export type LlmProviderChoice = 'openai' | 'anthropic' | 'offline';

/**
 * A provider to build (the agent's provider, model, key and fallback: docs/data-model.md#fallback). The key and base URL default to
 * the environment's (`OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`).
 */
export interface LlmProviderSpec {
  /** `openai`, `anthropic` or `offline` (case-insensitive). */
  provider: string;
  /** Default: the provider's default model. */
  model?: string;
  apiKey?: string;
  baseURL?: string;
  /** Answers when this provider fails (see `withFallback`). */
  fallback?: LlmProviderSpec;
}

type Env = Record<string, string | undefined>;

const KEYS = {
  openai: { key: 'OPENAI_API_KEY', baseURL: 'OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', baseURL: 'ANTHROPIC_BASE_URL' },
} as const satisfies Record<Exclude<LlmProviderChoice, 'offline'>, { key: string; baseURL: string }>;

function single(spec: LlmProviderSpec, env: Env, role: string): LlmProvider {
  const choice = set(spec.provider)?.toLowerCase();
  const model = set(spec.model);
  switch (choice) {
    case 'openai':
    case 'anthropic': {
      const names = KEYS[choice];
      const fromEnv = llmSettings(env, [names.key, names.baseURL]) as Partial<Record<string, string>>;
      const apiKey = set(spec.apiKey) ?? set(fromEnv[names.key]);
      if (!apiKey) throw new LlmConfigurationError(`${role}=${choice} needs ${names.key}`);
      const baseURL = set(spec.baseURL) ?? set(fromEnv[names.baseURL]);
      const options = { apiKey, ...(baseURL ? { baseURL } : {}) };
      return choice === 'openai'
        ? new OpenAiProvider({ ...options, model: model ?? DEFAULT_OPENAI_MODEL })
        : new AnthropicProvider({ ...options, model: model ?? DEFAULT_ANTHROPIC_MODEL });
    }
    case 'offline':
      return new OfflineProvider();
    default:
      throw new LlmConfigurationError(`${role} must be openai, anthropic or offline, got "${spec.provider}"`);
  }
}

/**
 * Builds the provider a spec names, wrapped with its fallback chain when it has one — how a service builds a
 * per-agent provider from the agent's definition. Keys missing from the spec come from `env`; a spec that
 * cannot work (unknown provider, no key, a fallback identical to its primary) fails with `LLM.CONFIGURATION`.
 */
export function createLlmProviderFor(spec: LlmProviderSpec, env: Env = process.env): LlmProvider {
  return build(spec, env, 'provider');
}

/** `role` names the setting in error messages: a spec path, or the environment variable. */
function build(spec: LlmProviderSpec, env: Env, role: string, fallbackRole = `${role}.fallback`): LlmProvider {
  const primary = single(spec, env, role);
  if (!spec.fallback) return primary;
  const fallback = build(spec.fallback, env, fallbackRole);
  if (fallback.name === primary.name && fallback.model === primary.model) {
    throw new LlmConfigurationError(`${fallbackRole} is the same provider and model as its primary (${primary.name}/${primary.model})`);
  }
  return withFallback(primary, fallback);
}

/** The provider name `createLlmProvider` builds from `env` (as written in TENET_LLM_PROVIDER, else chosen by the keys set). */
export function llmProviderNameFrom(env: Env = process.env): string {
  const settings = llmSettings(env, ['TENET_LLM_PROVIDER', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY']);
  return (
    settings.TENET_LLM_PROVIDER ?? (set(settings.OPENAI_API_KEY) ? 'openai' : set(settings.ANTHROPIC_API_KEY) ? 'anthropic' : 'offline')
  );
}

/**
 * Picks the provider from the environment: `TENET_LLM_PROVIDER` (openai | anthropic | offline) when set, else
 * OpenAI when `OPENAI_API_KEY` is set, else Anthropic when `ANTHROPIC_API_KEY` is set, else the offline provider,
 * so that a checkout without keys still runs the demo. `TENET_LLM_MODEL` overrides the provider's default model;
 * `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` point at compatible endpoints. `TENET_LLM_FALLBACK_PROVIDER` and/or
 * `TENET_LLM_FALLBACK_MODEL` add a fallback (the model alone: the same provider with another model).
 */
export function createLlmProvider(env: Env = process.env): LlmProvider {
  const provider = llmProviderNameFrom(env);
  const settings = llmSettings(env, ['TENET_LLM_MODEL', 'TENET_LLM_FALLBACK_PROVIDER', 'TENET_LLM_FALLBACK_MODEL']);
  const model = set(settings.TENET_LLM_MODEL);
  const fallbackProvider = settings.TENET_LLM_FALLBACK_PROVIDER;
  const fallbackModel = set(settings.TENET_LLM_FALLBACK_MODEL);
  const fallback: LlmProviderSpec | undefined =
    fallbackProvider || fallbackModel
      ? { provider: fallbackProvider ?? provider, ...(fallbackModel ? { model: fallbackModel } : {}) }
      : undefined;
  return build(
    { provider, ...(model ? { model } : {}), ...(fallback ? { fallback } : {}) },
    env,
    'TENET_LLM_PROVIDER',
    'TENET_LLM_FALLBACK_PROVIDER',
  );
}
