import OpenAI from 'openai';
import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse } from '../llm.port.js';
import { validateOutput } from '../output-validation.js';

export interface OpenAiProviderOptions {
  apiKey: string;
  model?: string;
  baseURL?: string;
  /** Retries of 429/5xx/connection errors; the SDK waits what `retry-after` advertises. Default 2. */
  maxRetries?: number;
  timeoutMs?: number;
}

/** Maps the official SDK's errors to Tenet's typed errors (auth fails fast; rate limits carry the delay). */
export function mapSdkError(error: unknown, provider: string): LlmError {
  const status = (error as { status?: number }).status;
  const message = error instanceof Error ? error.message : String(error);
  if (status === 401 || status === 403) return new LlmError('LLM.AUTHENTICATION', `${provider} rejected the credentials: ${message}`, { cause: error });
  if (status === 429) return new LlmError('LLM.RATE_LIMITED', `${provider} rate limit: ${message}`, { cause: error });
  return new LlmError('LLM.UNAVAILABLE', `${provider} call failed: ${message}`, { cause: error });
}

/** OpenAI chat completions with structured output through `response_format: json_schema` (strict). */
export class OpenAiProvider implements LlmProvider {
  readonly name = 'openai';
  readonly model: string;
  private readonly client: OpenAI;

  constructor(options: OpenAiProviderOptions) {
    this.model = options.model ?? 'gpt-4o-mini';
    this.client = new OpenAI({
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 60_000,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    });
  }

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const started = performance.now();
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.model,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.prompt },
        ],
        response_format: { type: 'json_schema', json_schema: { name: request.schemaName, schema: request.schema, strict: true } },
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxTokens !== undefined ? { max_completion_tokens: request.maxTokens } : {}),
      });
    } catch (error) {
      throw mapSdkError(error, this.name);
    }
    const content = completion.choices[0]?.message.content;
    let parsed: unknown;
    try {
      parsed = JSON.parse(content ?? '');
    } catch {
      throw new LlmError('LLM.INVALID_OUTPUT', `openai returned no JSON for ${request.schemaName}`);
    }
    return {
      value: validateOutput<O>(request.schemaName, request.schema, parsed),
      usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
      provider: this.name,
      model: completion.model || this.model,
      latencyMs: performance.now() - started,
    };
  }
}
