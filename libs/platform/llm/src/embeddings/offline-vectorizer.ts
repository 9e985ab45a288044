import type { LlmCallContext } from '../llm.port.js';
import { estimateTokens } from '../offline/offline-provider.js';
import { STOP_WORDS, words } from '@tenet/text';
import { terms } from '../offline/lexicon.js';
import type { EmbeddingProvider, EmbeddingResponse } from './embedding.port.js';

export const OFFLINE_EMBEDDING_MODEL = 'tenet-hashing-1';
export const DEFAULT_OFFLINE_DIMENSIONS = 512;

/** FNV-1a, 32 bits: a fixed, fast string hash, so that a feature lands in the same dimension on every machine. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

// Weights of the feature families: topic words carry meaning, their pairs some word order, trigrams spelling.
const UNIGRAM = 1;
const BIGRAM = 0.5;
const TRIGRAM = 0.25;

/**
 * A deterministic local text vectorizer: the embedding provider when no API key is configured (Tenet offline,
 * CI, the demo). Features, hashed into `dimensions` signed buckets ("the hashing trick") and L2-normalised:
 * - the text's topic terms as the offline matcher reads them — lowercased, stop words dropped, light stemming
 *   and the customer-service synonym families, so "money back" and "refund" are the same feature;
 * - bigrams of consecutive terms, so word order counts a little;
 * - character trigrams of every word that is not a stop word (with word boundaries), so inflections and
 *   spelling variants stay close and words outside the lexicon (names, numbers) still count.
 * No model, no randomness: the same text gives the same vector everywhere. An empty or blank text gives the
 * zero vector (cosine 0 with everything). It knows no meaning beyond its synonym table: use it for lexical
 * nearness, not semantics.
 */
export class OfflineVectorizer implements EmbeddingProvider {
  readonly name = 'offline';
  readonly model = OFFLINE_EMBEDDING_MODEL;
  readonly dimensions: number;

  constructor(options: { dimensions?: number } = {}) {
    this.dimensions = options.dimensions ?? DEFAULT_OFFLINE_DIMENSIONS;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 8)
      throw new RangeError(`OfflineVectorizer needs at least 8 integer dimensions, got ${this.dimensions}`);
  }

  async embed(texts: string[], _context: LlmCallContext): Promise<EmbeddingResponse> {
    const started = performance.now();
    const vectors = texts.map((text) => this.vectorize(text));
    return {
      vectors,
      usage: { inputTokens: texts.reduce((sum, text) => sum + estimateTokens(text), 0) },
      provider: this.name,
      model: this.model,
      latencyMs: performance.now() - started,
    };
  }

  /** The vector of one text (synchronous: callers that need many at once may use it directly). */
  vectorize(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const add = (feature: string, weight: number): void => {
      const hash = fnv1a(feature);
      const at = hash % this.dimensions;
      // The top bit picks the sign so that colliding features cancel out on average instead of piling up.
      vector[at] = (vector[at] ?? 0) + (hash & 0x80000000 ? -weight : weight);
    };
    const normalised = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
    const topic = terms(normalised);
    for (const term of topic) add(`u:${term}`, UNIGRAM);
    topic.slice(1).forEach((term, i) => add(`b:${topic[i] ?? ''} ${term}`, BIGRAM));
    for (const word of words(normalised)) {
      if (STOP_WORDS.has(word)) continue;
      const padded = `<${word}>`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, TRIGRAM);
    }
    const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
    return norm === 0 ? vector : vector.map((x) => x / norm);
  }
}
