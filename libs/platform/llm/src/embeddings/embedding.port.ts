import type { LlmCallContext } from '../llm.port.js';

export interface EmbeddingUsage {
  inputTokens: number;
}

export interface EmbeddingResponse {
  /** One vector per input text, in the order of the texts, each `dimensions` long; a blank text gets the zero vector. */
  vectors: number[][];
  usage: EmbeddingUsage;
  /** The provider that answered (`openai`, `offline`): the metering price key with `model`. */
  provider: string;
  /** The model that answered, as the provider reported it. */
  model: string;
  /** Includes every batch and retry. */
  latencyMs: number;
}

/**
 * Text embeddings through the same port conventions as `LlmProvider`: typed `LlmError`s, owned retries, usage
 * for metering, a call context for attribution. Vectors are comparable only with vectors of the same provider
 * and model (and `dimensions`): whoever stores them stores those too.
 */
export interface EmbeddingProvider {
  readonly name: string;
  readonly model: string;
  /** The length of every vector this provider returns. */
  readonly dimensions: number;
  embed(texts: string[], context: LlmCallContext): Promise<EmbeddingResponse>;
}

/** Cosine similarity of two vectors of the same length (0 when either is all zeros). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`cannot compare vectors of ${a.length} and ${b.length} dimensions`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  a.forEach((x, i) => {
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  });
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
