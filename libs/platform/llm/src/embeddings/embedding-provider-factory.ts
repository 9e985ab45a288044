import { LlmConfigurationError } from '../errors.js';
import { llmSettings, set } from '../llm-settings.js';
import type { EmbeddingProvider } from './embedding.port.js';
import { OfflineVectorizer } from './offline-vectorizer.js';
import { OpenAiEmbeddingProvider } from './openai-embeddings.js';

/**
 * Picks the embedding provider from the environment: OpenAI when `OPENAI_API_KEY` is set, unless
 * `TENET_EMBEDDING_PROVIDER=offline`; else the offline vectorizer. `TENET_EMBEDDING_PROVIDER=openai` without a key
 * fails at startup. Anthropic has no embeddings API, so `ANTHROPIC_API_KEY` alone means offline embeddings and
 * `TENET_EMBEDDING_PROVIDER=anthropic` is refused. `TENET_EMBEDDING_MODEL` (default `text-embedding-3-small`),
 * `TENET_EMBEDDING_DIMENSIONS` (shortened OpenAI vectors, or the offline vectorizer's size, default 512) and
 * `OPENAI_BASE_URL` apply.
 */
export function createEmbeddingProvider(env: Record<string, string | undefined> = process.env): EmbeddingProvider {
  const settings = llmSettings(env, [
    'TENET_EMBEDDING_PROVIDER',
    'OPENAI_API_KEY',
    'TENET_EMBEDDING_MODEL',
    'TENET_EMBEDDING_DIMENSIONS',
    'OPENAI_BASE_URL',
  ]);
  const openAiKey = set(settings.OPENAI_API_KEY);
  const choice = settings.TENET_EMBEDDING_PROVIDER ?? (openAiKey ? 'openai' : 'offline');
  const dimensions = settings.TENET_EMBEDDING_DIMENSIONS;
  switch (choice) {
    case 'openai': {
      if (!openAiKey) throw new LlmConfigurationError('TENET_EMBEDDING_PROVIDER=openai needs OPENAI_API_KEY');
      const model = set(settings.TENET_EMBEDDING_MODEL);
      const baseURL = set(settings.OPENAI_BASE_URL);
      try {
        return new OpenAiEmbeddingProvider({
          apiKey: openAiKey,
          ...(model ? { model } : {}),
          ...(dimensions ? { dimensions } : {}),
          ...(baseURL ? { baseURL } : {}),
        });
      } catch (error) {
        // A model whose vector length is unknown needs TENET_EMBEDDING_DIMENSIONS.
        throw new LlmConfigurationError(`${(error as Error).message} (TENET_EMBEDDING_DIMENSIONS)`);
      }
    }
    case 'offline':
      return new OfflineVectorizer(dimensions ? { dimensions } : {});
  }
}
