import { AnthropicProvider } from './anthropic/anthropic-provider.js';
import { OfflineProvider } from './offline/offline-provider.js';
import { OpenAiProvider } from './openai/openai-provider.js';
import { LlmConfigurationError } from './errors.js';
import { createLlmProvider, createLlmProviderFor } from './provider-factory.js';
import { FallbackProvider } from './resilience/with-fallback.js';

describe('createLlmProvider', () => {
  it('is offline without any key, so a fresh checkout runs', () => {
    expect(createLlmProvider({})).toBeInstanceOf(OfflineProvider);
    expect(createLlmProvider({ OPENAI_API_KEY: '  ' })).toBeInstanceOf(OfflineProvider);
  });

  it('uses OpenAI when its key is set (before Anthropic), Anthropic when only its key is set', () => {
    expect(createLlmProvider({ OPENAI_API_KEY: 'sk-1' })).toMatchObject({ name: 'openai', model: 'gpt-4o-mini' });
    expect(createLlmProvider({ OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'sk-ant' })).toBeInstanceOf(OpenAiProvider);
    expect(createLlmProvider({ ANTHROPIC_API_KEY: 'sk-ant' })).toMatchObject({ name: 'anthropic', model: 'claude-haiku-4-5' });
  });

  it('lets TENET_LLM_PROVIDER win over the keys, and TENET_LLM_MODEL pick the model', () => {
    expect(createLlmProvider({ TENET_LLM_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'sk-ant' })).toBeInstanceOf(
      AnthropicProvider,
    );
    expect(createLlmProvider({ TENET_LLM_PROVIDER: 'offline', OPENAI_API_KEY: 'sk-1' })).toBeInstanceOf(OfflineProvider);
    expect(createLlmProvider({ TENET_LLM_PROVIDER: 'OpenAI', OPENAI_API_KEY: 'sk-1', TENET_LLM_MODEL: 'gpt-4.1-mini' })).toMatchObject({
      name: 'openai',
      model: 'gpt-4.1-mini',
    });
  });

  it('refuses configurations that cannot work, at startup', () => {
    expect(() => createLlmProvider({ TENET_LLM_PROVIDER: 'openai' })).toThrow(LlmConfigurationError);
    expect(() => createLlmProvider({ TENET_LLM_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-1' })).toThrow('needs ANTHROPIC_API_KEY');
    expect(() => createLlmProvider({ TENET_LLM_PROVIDER: 'gemini' })).toThrow('must be openai, anthropic or offline');
  });

  it('adds the fallback TENET_LLM_FALLBACK_PROVIDER / TENET_LLM_FALLBACK_MODEL name (the model alone: same provider)', () => {
    const both = createLlmProvider({ OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'sk-ant', TENET_LLM_FALLBACK_PROVIDER: 'anthropic' });
    expect(both).toBeInstanceOf(FallbackProvider);
    expect(both).toMatchObject({ name: 'openai', model: 'gpt-4o-mini', fallback: { name: 'anthropic', model: 'claude-haiku-4-5' } });
    const modelOnly = createLlmProvider({ OPENAI_API_KEY: 'sk-1', TENET_LLM_MODEL: 'gpt-4.1', TENET_LLM_FALLBACK_MODEL: 'gpt-4.1-mini' });
    expect(modelOnly).toMatchObject({ primary: { name: 'openai', model: 'gpt-4.1' }, fallback: { name: 'openai', model: 'gpt-4.1-mini' } });
    expect(createLlmProvider({ OPENAI_API_KEY: 'sk-1', TENET_LLM_FALLBACK_PROVIDER: 'offline' })).toMatchObject({
      fallback: expect.any(OfflineProvider) as unknown,
    });
    expect(() => createLlmProvider({ OPENAI_API_KEY: 'sk-1', TENET_LLM_FALLBACK_PROVIDER: 'anthropic' })).toThrow(
      'TENET_LLM_FALLBACK_PROVIDER=anthropic needs ANTHROPIC_API_KEY',
    );
    expect(() => createLlmProvider({ TENET_LLM_FALLBACK_PROVIDER: 'offline' })).toThrow('same provider and model');
  });
});

describe('createLlmProviderFor', () => {
  it('builds a per-agent provider from its spec, keys from the spec or the environment, with its fallback chain', () => {
    expect(createLlmProviderFor({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'sk-agent' }, {})).toMatchObject({
      name: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    expect(createLlmProviderFor({ provider: 'openai' }, { OPENAI_API_KEY: 'sk-env' })).toBeInstanceOf(OpenAiProvider);
    const chain = createLlmProviderFor(
      { provider: 'openai', apiKey: 'k', fallback: { provider: 'anthropic', apiKey: 'k', fallback: { provider: 'offline' } } },
      {},
    );
    expect(chain).toMatchObject({
      primary: { name: 'openai' },
      fallback: { primary: { name: 'anthropic' }, fallback: { name: 'offline' } },
    });
  });

  it('names the broken part of the spec', () => {
    expect(() => createLlmProviderFor({ provider: 'openai', apiKey: 'k', fallback: { provider: 'anthropic' } }, {})).toThrow(
      'provider.fallback=anthropic needs ANTHROPIC_API_KEY',
    );
    expect(() => createLlmProviderFor({ provider: 'gemini' }, {})).toThrow('provider must be openai, anthropic or offline, got "gemini"');
    expect(() => createLlmProviderFor({ provider: 'openai', apiKey: 'k', fallback: { provider: 'OpenAI', apiKey: 'other' } }, {})).toThrow(
      LlmConfigurationError,
    );
  });
});
