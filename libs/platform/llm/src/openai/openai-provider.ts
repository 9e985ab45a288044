import { openAiSdk } from '../sdk/sdk-modules.js';
import type OpenAI from 'openai';
import { InvalidStructuredOutputError } from '../errors.js';
import { conversationOf, type LlmProvider, type LlmRequest, type LlmResponse } from '../llm.port.js';
import { billedEvenIfInvalid, defaultRetryPolicy, withRetries, type RetryPolicy, type Sleep } from '../sdk/retry.js';
import { mapSdkError } from '../sdk/sdk-errors.js';
import { parseStructuredOutput, validateStructuredOutput } from '../structured-output.js';

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

export interface OpenAiProviderOptions {
  apiKey: string;
  model?: string;
  /** An OpenAI-compatible endpoint (Azure, a proxy, a local server); default `https://api.openai.com/v1`. */
  baseURL?: string;
  /** Retries of 429 (after the advertised delay) and transient failures; never of 401/403. Default 2. */
  maxRetries?: number;
  retryPolicy?: Partial<RetryPolicy>;
  timeoutMs?: number;
  /** For tests of the retry policy; the real clock otherwise. */
  sleep?: Sleep;
}

/** OpenAI chat completions with structured output through `response_format: json_schema` (strict). */
export class OpenAiProvider implements LlmProvider {
  readonly name = 'openai';
  readonly model: string;
  private readonly client: OpenAI;
  private readonly retryPolicy: RetryPolicy;
  private readonly sleep: Sleep | undefined;

  constructor(options: OpenAiProviderOptions) {
    this.model = options.model ?? DEFAULT_OPENAI_MODEL;
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

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const started = performance.now();
    const completion = await withRetries(() => this.complete(request), this.retryPolicy, this.sleep, undefined, request.signal);
    const choice = completion.choices[0];
    const usage = { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 };
    const model = completion.model || this.model;
    const value = billedEvenIfInvalid({ provider: this.name, model, usage }, () => {
      if (choice?.message.refusal)
        throw new InvalidStructuredOutputError(this.name, request.schemaName, '/', [`the model refused: ${choice.message.refusal}`]);
      return validateStructuredOutput<O>(
        this.name,
        request.schemaName,
        request.schema,
        parseStructuredOutput(this.name, request.schemaName, choice?.message.content),
      );
    });
    return { value, usage, provider: this.name, model, latencyMs: performance.now() - started };
  }

  private async complete(request: LlmRequest): Promise<OpenAI.Chat.Completions.ChatCompletion> {
    try {
      return await this.client.chat.completions.create(
        {
          model: this.model,
          messages: [{ role: 'system', content: request.system }, ...conversationOf(request)],
          response_format: { type: 'json_schema', json_schema: { name: request.schemaName, schema: request.schema, strict: true } },
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
          ...(request.maxTokens !== undefined ? { max_completion_tokens: request.maxTokens } : {}),
        },
        request.signal ? { signal: request.signal } : {},
      );
    } catch (error) {
      throw mapSdkError(error, this.name, openAiSdk());
    }
  }
}
