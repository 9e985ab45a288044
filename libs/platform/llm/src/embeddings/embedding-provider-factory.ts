import { LlmConfigurationError } from '../errors.js';
import type { EmbeddingProvider } from './embedding.port.js';
import { OfflineVectorizer } from './offline-vectorizer.js';
import { OpenAiEmbeddingProvider } from './openai-embeddings.js';

const set = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

function dimensionsFrom(env: Record<string, string | undefined>): number | undefined {
  const raw = set(env['TENET_EMBEDDING_DIMENSIONS']);
  if (raw === undefined) return undefined;
  const dimensions = Number(raw);
  if (!Number.isInteger(dimensions) || dimensions < 8) throw new LlmConfigurationError(`TENET_EMBEDDING_DIMENSIONS must be an integer ≥ 8, got "${raw}"`);
  return dimensions;
}

/**
 * Picks the embedding provider from the environment: OpenAI when `OPENAI_API_KEY` is set, unless
 * `TENET_EMBEDDING_PROVIDER=offline`; else the offline vectorizer. `TENET_EMBEDDING_PROVIDER=openai` without a key
 * fails at startup. Anthropic has no embeddings API, so `ANTHROPIC_API_KEY` alone means offline embeddings and
 * `TENET_EMBEDDING_PROVIDER=anthropic` is refused. `TENET_EMBEDDING_MODEL` (default `text-embedding-3-small`),
 * `TENET_EMBEDDING_DIMENSIONS` (shortened OpenAI vectors, or the offline vectorizer's size, default 512) and
 * `OPENAI_BASE_URL` apply.
 */
export function createEmbeddingProvider(env: Record<string, string | undefined> = process.env): EmbeddingProvider {
  const explicit = set(env['TENET_EMBEDDING_PROVIDER'])?.toLowerCase();
  const openAiKey = set(env['OPENAI_API_KEY']);
  const choice = explicit ?? (openAiKey ? 'openai' : 'offline');
  const dimensions = dimensionsFrom(env);
  switch (choice) {
    case 'openai': {
      if (!openAiKey) throw new LlmConfigurationError('TENET_EMBEDDING_PROVIDER=openai needs OPENAI_API_KEY');
      const model = set(env['TENET_EMBEDDING_MODEL']);
      const baseURL = set(env['OPENAI_BASE_URL']);
      try {
        return new OpenAiEmbeddingProvider({ apiKey: openAiKey, ...(model ? { model } : {}), ...(dimensions ? { dimensions } : {}), ...(baseURL ? { baseURL } : {}) });
      } catch (error) {
        // A model whose vector length is unknown needs TENET_EMBEDDING_DIMENSIONS.
        throw new LlmConfigurationError(`${(error as Error).message} (TENET_EMBEDDING_DIMENSIONS)`);
      }
    }
    case 'offline':
      return new OfflineVectorizer(dimensions ? { dimensions } : {});
    case 'anthropic':
      throw new LlmConfigurationError('TENET_EMBEDDING_PROVIDER=anthropic: Anthropic has no embeddings API; use openai or offline');
    default:
      throw new LlmConfigurationError(`TENET_EMBEDDING_PROVIDER must be openai or offline, got "${choice}"`);
  }
}
