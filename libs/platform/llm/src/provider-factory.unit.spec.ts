import { AnthropicProvider } from './anthropic/anthropic-provider.js';
import { OfflineProvider } from './offline/offline-provider.js';
import { OpenAiProvider } from './openai/openai-provider.js';
import { createLlmProvider, LlmConfigurationError } from './provider-factory.js';

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
    expect(createLlmProvider({ TENET_LLM_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'sk-ant' })).toBeInstanceOf(AnthropicProvider);
    expect(createLlmProvider({ TENET_LLM_PROVIDER: 'offline', OPENAI_API_KEY: 'sk-1' })).toBeInstanceOf(OfflineProvider);
    expect(createLlmProvider({ TENET_LLM_PROVIDER: 'OpenAI', OPENAI_API_KEY: 'sk-1', TENET_LLM_MODEL: 'gpt-4.1-mini' })).toMatchObject({ name: 'openai', model: 'gpt-4.1-mini' });
  });

  it('refuses configurations that cannot work, at startup', () => {
    expect(() => createLlmProvider({ TENET_LLM_PROVIDER: 'openai' })).toThrow(LlmConfigurationError);
    expect(() => createLlmProvider({ TENET_LLM_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-1' })).toThrow('needs ANTHROPIC_API_KEY');
    expect(() => createLlmProvider({ TENET_LLM_PROVIDER: 'gemini' })).toThrow('must be openai, anthropic or offline');
  });
});
