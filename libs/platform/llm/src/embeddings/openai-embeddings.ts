import { openAiSdk } from '../sdk/sdk-modules.js';
import type OpenAI from 'openai';
import { InvalidStructuredOutputError, ProviderUnavailableError } from '../errors.js';
import type { LlmCallContext } from '../llm.port.js';
import { defaultRetryPolicy, withRetries, type RetryPolicy, type Sleep } from '../sdk/retry.js';
import { mapSdkError } from '../sdk/sdk-errors.js';
import type { EmbeddingProvider, EmbeddingResponse } from './embedding.port.js';

export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

/** Native vector lengths of OpenAI's embedding models. */
const NATIVE_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

export interface OpenAiEmbeddingProviderOptions {
  apiKey: string;
  /** Default `text-embedding-3-small`. */
  model?: string;
  /**
   * Shortened vectors (text-embedding-3 models accept `dimensions`). Required for a model whose native length
   * is not known here; the answer is checked against it.
   */
  dimensions?: number;
  baseURL?: string;
  /** Texts per request; the API takes up to 2048. Default 256. */
  batchSize?: number;
  /** Requests in flight at once when the texts make several batches. Default 4 (1..16). */
  concurrency?: number;
  /** Retries of 429 (after the advertised delay) and transient failures; never of 401/403. Default 2. */
  maxRetries?: number;
  retryPolicy?: Partial<RetryPolicy>;
  timeoutMs?: number;
  sleep?: Sleep;
}

/**
 * OpenAI embeddings (`client.embeddings.create`), batched, with the chat adapter's retry loop and typed errors.
 * The SDK asks for base64 vectors and decodes them (a quarter of the JSON payload). Batches run with bounded
 * concurrency (default 4 requests in flight): a thousand-guideline agent's first turn takes about one request's
 * time instead of four, while a large input does not burst past the rate limit (and a 429 is retried per batch
 * after its advertised delay). The vectors come back in input order whatever order the batches finish in; the
 * first batch that fails for good fails the call, and batches not yet started are not sent.
 */
export class OpenAiEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'openai';
  readonly model: string;
  readonly dimensions: number;
  private readonly requestDimensions: number | undefined;
  private readonly client: OpenAI;
  private readonly retryPolicy: RetryPolicy;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly sleep: Sleep | undefined;

  constructor(options: OpenAiEmbeddingProviderOptions) {
    this.model = options.model ?? DEFAULT_OPENAI_EMBEDDING_MODEL;
    const native = NATIVE_DIMENSIONS[this.model];
    const dimensions = options.dimensions ?? native;
    if (dimensions === undefined)
      throw new RangeError(`OpenAiEmbeddingProvider: the length of "${this.model}" vectors is unknown; pass dimensions`);
    this.dimensions = dimensions;
    // Only ask for shortened vectors when they differ from the native length (older models reject the parameter).
    this.requestDimensions = options.dimensions !== undefined && options.dimensions !== native ? options.dimensions : undefined;
    this.batchSize = options.batchSize ?? 256;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > 2048)
      throw new RangeError(`batchSize must be 1..2048, got ${this.batchSize}`);
    this.concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1 || this.concurrency > 16)
      throw new RangeError(`concurrency must be 1..16, got ${this.concurrency}`);
    // The SDK's own retries are off: `withRetries` owns the policy (see sdk/retry.ts).
    this.client = new (openAiSdk())({
      apiKey: options.apiKey,
      maxRetries: 0,
      timeout: options.timeoutMs ?? 60_000,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    });
    this.retryPolicy = {
      ...defaultRetryPolicy,
      ...options.retryPolicy,
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    };
    this.sleep = options.sleep;
  }

  async embed(texts: string[], _context: LlmCallContext): Promise<EmbeddingResponse> {
    const started = performance.now();
    // The API rejects empty input strings; a blank text has nothing to embed and gets the zero vector.
    const vectors = texts.map(() => new Array<number>(this.dimensions).fill(0));
    const sent = texts.flatMap((text, i) => (text.trim() === '' ? [] : [i]));
    const batches: number[][] = [];
    for (let start = 0; start < sent.length; start += this.batchSize) batches.push(sent.slice(start, start + this.batchSize));
    const answers = new Array<OpenAI.Embeddings.CreateEmbeddingResponse | undefined>(batches.length);
    let next = 0;
    // The first batch that fails for good aborts the others in flight (and their retries): the call has failed.
    const abandon = new AbortController();
    const attempt = (input: string[]) => (): Promise<OpenAI.Embeddings.CreateEmbeddingResponse> =>
      abandon.signal.aborted
        ? Promise.reject(new ProviderUnavailableError(this.name, `${this.name} embeddings abandoned: another batch failed`, false))
        : this.create(input, abandon.signal);
    // `concurrency` workers take the next batch until none is left; each answer lands at its batch's index.
    const worker = async (): Promise<void> => {
      while (!abandon.signal.aborted && next < batches.length) {
        const index = next++;
        const positions = batches[index] ?? [];
        try {
          const answer = await withRetries(attempt(positions.map((i) => texts[i] ?? '')), this.retryPolicy, this.sleep);
          const answered = this.vectorsOf(answer, positions);
          for (const [i, position] of positions.entries()) vectors[position] = answered[i] ?? [];
          answers[index] = answer;
        } catch (error) {
          abandon.abort();
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, batches.length) }, () => worker()));
    let inputTokens = 0;
    let model = this.model;
    for (const answer of answers) {
      inputTokens += answer?.usage?.prompt_tokens ?? 0;
      model = answer?.model || model;
    }
    return { vectors, usage: { inputTokens }, provider: this.name, model, latencyMs: performance.now() - started };
  }

  private async create(input: string[], signal: AbortSignal): Promise<OpenAI.Embeddings.CreateEmbeddingResponse> {
    try {
      return await this.client.embeddings.create(
        { model: this.model, input, ...(this.requestDimensions !== undefined ? { dimensions: this.requestDimensions } : {}) },
        { signal },
      );
    } catch (error) {
      throw mapSdkError(error, this.name, openAiSdk());
    }
  }

  /** The batch's vectors in input order (the API numbers them with `index`), each checked for its length. */
  private vectorsOf(answer: OpenAI.Embeddings.CreateEmbeddingResponse, positions: number[]): number[][] {
    const count = positions.length;
    const vectors = new Array<number[] | undefined>(count);
    for (const item of answer.data ?? []) {
      if (Number.isInteger(item.index) && item.index >= 0 && item.index < count) vectors[item.index] = item.embedding;
    }
    return Array.from(vectors, (vector, i) => {
      if (!Array.isArray(vector))
        throw new InvalidStructuredOutputError(this.name, 'embeddings', `/data/${i}`, [`no embedding for text ${positions[i] ?? i}`]);
      if (vector.length !== this.dimensions || !vector.every(Number.isFinite)) {
        throw new InvalidStructuredOutputError(this.name, 'embeddings', `/data/${i}/embedding`, [
          `expected ${this.dimensions} finite numbers, got ${vector.length}`,
        ]);
      }
      return vector;
    });
  }
}
