import { createHash } from 'node:crypto';
import type { CallUsageV1 } from '@tenet/contracts';
import { LRUCache } from 'lru-cache';
import {
  InvalidStructuredOutputError,
  ProviderUnavailableError,
  type EmbeddingProvider,
  type EmbeddingResponse,
  type LlmCallContext,
} from '@tenet/llm';
import { EmbeddingBreaker } from './embedding-breaker.js';
import { DEFAULT_EMBEDDING_CACHE_OPTIONS, embeddingCacheOptionsFrom, type EmbeddingCacheOptions } from './matcher-options.js';

export interface EmbeddedTexts {
  /** One vector per guideline text, in order. */
  guidelines: Float32Array[];
  /** One vector per query text, in order. */
  queries: Float32Array[];
  /** The provider call, when one was needed. */
  usage?: CallUsageV1;
  /** Texts sent to the provider now (the rest came from the caches). */
  computed: number;
}

/**
 * Embeddings for the prefilter, kept by the matcher replica in two bounded LRUs keyed by model and a hash of the
 * text:
 * - guideline texts (condition and action), computed once per text version and model — a thousand-guideline
 *   agent costs one embedding call on its first turn and none after; editing a guideline makes a new key and the
 *   old entry ages out. At most `maxEntries` (default 50,000) vectors, as Float32 (what OpenAI sends anyway);
 * - conversation texts in a small separate LRU (`maxQueryEntries`, default 1,000): every message is a new text,
 *   so they must not grow memory with traffic or push guideline vectors out; kept at all because the customer's
 *   message comes back as the previous message of the next turn's query.
 * Missing texts of both kinds go to the provider in one call, checked (one finite vector of the provider's length
 * per text) and bounded by `timeoutMs`. A call that times out still fills the caches when it answers.
 * A failed call opens the breaker (`EmbeddingBreaker`): until its growing interval passes, lookups that would need
 * the provider fail at once with `EmbeddingsBackingOffError` and the matcher ranks lexically; lookups the caches
 * answer in full still succeed.
 */
export class EmbeddingCache {
  private readonly guidelineVectors: LRUCache<string, Float32Array>;
  /** Absent when `maxQueryEntries` is 0: conversation texts are then embedded every turn. */
  private readonly queryVectors: LRUCache<string, Float32Array> | undefined;
  private readonly timeoutMs: number;
  readonly breaker: EmbeddingBreaker;

  constructor(
    private readonly provider: EmbeddingProvider,
    options: EmbeddingCacheOptions = embeddingCacheOptionsFrom(process.env),
  ) {
    const settings = { ...DEFAULT_EMBEDDING_CACHE_OPTIONS, ...options };
    if (!Number.isInteger(settings.maxEntries) || settings.maxEntries < 1)
      throw new RangeError(`EmbeddingCache maxEntries must be an integer ≥ 1, got ${settings.maxEntries}`);
    if (!Number.isInteger(settings.maxQueryEntries) || settings.maxQueryEntries < 0)
      throw new RangeError(`EmbeddingCache maxQueryEntries must be an integer ≥ 0, got ${settings.maxQueryEntries}`);
    if (!(settings.timeoutMs > 0)) throw new RangeError(`EmbeddingCache timeoutMs must be positive, got ${settings.timeoutMs}`);
    this.guidelineVectors = new LRUCache({ max: settings.maxEntries });
    this.queryVectors = settings.maxQueryEntries > 0 ? new LRUCache({ max: settings.maxQueryEntries }) : undefined;
    this.timeoutMs = settings.timeoutMs;
    this.breaker = new EmbeddingBreaker({
      initialMs: settings.backoffMs,
      maxMs: settings.backoffMaxMs,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  get model(): string {
    return `${this.provider.name}/${this.provider.model}`;
  }

  /** How many vectors each LRU holds now. */
  get size(): { guidelines: number; queries: number } {
    return { guidelines: this.guidelineVectors.size, queries: this.queryVectors?.size ?? 0 };
  }

  /** Vectors for every text, in order; only texts neither LRU holds are sent to the provider, in one call. */
  async embed(texts: { guidelines: readonly string[]; queries?: readonly string[] }, context: LlmCallContext): Promise<EmbeddedTexts> {
    const queries = texts.queries ?? [];
    const keyOf = (text: string): string => `${this.model}:${createHash('sha256').update(text).digest('base64url')}`;
    const guidelineKeys = texts.guidelines.map(keyOf);
    const queryKeys = queries.map(keyOf);
    const found = new Map<string, Float32Array>();
    const toSend = new Map<string, { text: string; guideline: boolean }>();
    const look = (keys: readonly string[], source: readonly string[], guideline: boolean): void =>
      keys.forEach((key, i) => {
        if (found.has(key)) return;
        const cached = this.guidelineVectors.get(key) ?? this.queryVectors?.get(key);
        if (cached) found.set(key, cached);
        // Guidelines are looked up first, so a text that is both goes to the guideline LRU.
        else if (!toSend.has(key)) toSend.set(key, { text: source[i] ?? '', guideline });
      });
    look(guidelineKeys, texts.guidelines, true);
    look(queryKeys, queries, false);

    let usage: CallUsageV1 | undefined;
    if (toSend.size > 0) {
      this.breaker.check();
      const sent = [...toSend];
      const call = this.provider.embed(
        sent.map(([, s]) => s.text),
        context,
      );
      // Checked and cached when it answers, even after this lookup timed out: the next turn finds the vectors.
      const stored = call.then((response) => {
        const vectors = this.checked(response, sent.length);
        sent.forEach(([key, s], i) =>
          (s.guideline ? this.guidelineVectors : this.queryVectors)?.set(key, vectors[i] ?? new Float32Array(0)),
        );
        return { response, vectors };
      });
      stored.catch(() => undefined);
      let answered: Awaited<typeof stored>;
      try {
        answered = await this.withinTimeout(stored);
      } catch (error) {
        this.breaker.failed(error);
        throw error;
      }
      this.breaker.succeeded();
      const { response, vectors } = answered;
      sent.forEach(([key], i) => found.set(key, vectors[i] ?? new Float32Array(0)));
      usage = {
        purpose: context.purpose,
        provider: response.provider,
        model: response.model,
        input_tokens: response.usage.inputTokens,
        output_tokens: 0,
        latency_ms: Math.round(response.latencyMs * 1000) / 1000,
      };
    }
    const vectorOf = (key: string): Float32Array => found.get(key) ?? new Float32Array(0);
    return {
      guidelines: guidelineKeys.map(vectorOf),
      queries: queryKeys.map(vectorOf),
      ...(usage ? { usage } : {}),
      computed: toSend.size,
    };
  }

  /** One finite vector of the provider's length per text sent, as Float32; anything else is `LLM.INVALID_OUTPUT`. */
  private checked(response: EmbeddingResponse, count: number): Float32Array[] {
    const invalid = (path: string, problem: string): InvalidStructuredOutputError =>
      new InvalidStructuredOutputError(this.provider.name, 'embeddings', path, [problem]);
    if (!Array.isArray(response.vectors) || response.vectors.length !== count)
      throw invalid('/vectors', `expected ${count} vectors, got ${Array.isArray(response.vectors) ? response.vectors.length : 'none'}`);
    return response.vectors.map((vector, i) => {
      if (!Array.isArray(vector) || vector.length !== this.provider.dimensions || !vector.every(Number.isFinite)) {
        throw invalid(
          `/vectors/${i}`,
          `expected ${this.provider.dimensions} finite numbers, got ${Array.isArray(vector) ? vector.length : typeof vector}`,
        );
      }
      return Float32Array.from(vector);
    });
  }

  private async withinTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ProviderUnavailableError(this.provider.name, `no embeddings within ${this.timeoutMs} ms`, true)),
        this.timeoutMs,
      );
      timer.unref();
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
