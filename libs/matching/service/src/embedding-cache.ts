import { createHash } from 'node:crypto';
import type { CallUsageV1 } from '@tenet/contracts';
import type { EmbeddingProvider, LlmCallContext } from '@tenet/llm';

/**
 * Embeddings of guideline texts, computed once per text version and model and kept by the matcher replica
 * (an LRU, so a thousand-guideline agent costs one embedding call on the first turn and none after). The key is
 * the model plus a hash of the text: editing a guideline's condition or action is a new version and a new
 * key; the old entry ages out.
 */
export class EmbeddingCache {
  private readonly vectors = new Map<string, number[]>();

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly capacity = 50_000,
  ) {}

  get model(): string {
    return `${this.provider.name}/${this.provider.model}`;
  }

  /** Vectors for every text, in order; only texts not cached are sent to the provider, in one call. */
  async embed(texts: string[], context: LlmCallContext): Promise<{ vectors: number[][]; usage?: CallUsageV1; computed: number }> {
    const keys = texts.map((text) => `${this.model}:${createHash('sha256').update(text).digest('base64url')}`);
    const missing = [...new Set(keys.filter((key) => !this.vectors.has(key)))];
    let usage: CallUsageV1 | undefined;
    if (missing.length > 0) {
      const textOf = new Map(keys.map((key, i) => [key, texts[i] ?? '']));
      const response = await this.provider.embed(
        missing.map((key) => textOf.get(key) ?? ''),
        context,
      );
      missing.forEach((key, i) => this.remember(key, response.vectors[i] ?? []));
      usage = { purpose: context.purpose, provider: response.provider, model: response.model, input_tokens: response.usage.inputTokens, output_tokens: 0, latency_ms: Math.round(response.latencyMs * 1000) / 1000 };
    }
    const vectors = keys.map((key) => {
      const vector = this.vectors.get(key) ?? [];
      // Refresh recency: a Map iterates in insertion order, so the first entry is the least recently used.
      this.vectors.delete(key);
      this.vectors.set(key, vector);
      return vector;
    });
    return { vectors, ...(usage ? { usage } : {}), computed: missing.length };
  }

  private remember(key: string, vector: number[]): void {
    this.vectors.set(key, vector);
    for (const oldest of this.vectors.keys()) {
      if (this.vectors.size <= this.capacity) break;
      this.vectors.delete(oldest);
    }
  }
}
