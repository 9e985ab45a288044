import { anthropicSdk } from '../sdk/sdk-modules.js';
import type Anthropic from '@anthropic-ai/sdk';
import { InvalidStructuredOutputError } from '../errors.js';
import { conversationOf, type LlmMessage, type LlmProvider, type LlmRequest, type LlmResponse } from '../llm.port.js';
import { billedEvenIfInvalid, defaultRetryPolicy, withRetries, type RetryPolicy, type Sleep } from '../sdk/retry.js';
import { mapSdkError } from '../sdk/sdk-errors.js';
import { validateStructuredOutput } from '../structured-output.js';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

export interface AnthropicProviderOptions {
  apiKey: string;
  model?: string;
  /** Default `https://api.anthropic.com`. */
  baseURL?: string;
  /** Retries of 429 (after the advertised delay) and transient failures; never of 401/403. Default 2. */
  maxRetries?: number;
  retryPolicy?: Partial<RetryPolicy>;
  timeoutMs?: number;
  /** The messages API requires it; structured answers are short. Default 2048. */
  defaultMaxTokens?: number;
  sleep?: Sleep;
}

/**
 * The messages API wants a conversation that starts with the user and alternates; a transcript that opens with
 * the agent's greeting, or has two customer messages in a row, is folded into that shape.
 */
function alternating(messages: LlmMessage[]): LlmMessage[] {
  const out: LlmMessage[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (last && last.role === message.role) last.content = `${last.content}\n\n${message.content}`;
    else out.push({ ...message });
  }
  if (out[0]?.role === 'assistant') out.unshift({ role: 'user', content: '(conversation start)' });
  return out;
}

/** Anthropic messages with structured output through one forced tool whose `input_schema` is the output schema. */
export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic';
  readonly model: string;
  private readonly client: Anthropic;
  private readonly retryPolicy: RetryPolicy;
  private readonly defaultMaxTokens: number;
  private readonly sleep: Sleep | undefined;

  constructor(options: AnthropicProviderOptions) {
    this.model = options.model ?? DEFAULT_ANTHROPIC_MODEL;
    // The SDK's own retries are off: `withRetries` owns the policy (see sdk/retry.ts).
    this.client = new (anthropicSdk())({
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
    this.defaultMaxTokens = options.defaultMaxTokens ?? 2048;
    this.sleep = options.sleep;
  }

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const started = performance.now();
    const message = await withRetries(() => this.create(request), this.retryPolicy, this.sleep, undefined, request.signal);
    const usage = { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens };
    const model = message.model || this.model;
    const value = billedEvenIfInvalid({ provider: this.name, model, usage }, () => {
      const call = message.content.find((block) => block.type === 'tool_use' && block.name === request.schemaName);
      if (!call || call.type !== 'tool_use') {
        throw new InvalidStructuredOutputError(this.name, request.schemaName, '/', [
          `no "${request.schemaName}" tool call in the answer (stop_reason ${message.stop_reason ?? 'none'})`,
        ]);
      }
      return validateStructuredOutput<O>(this.name, request.schemaName, request.schema, call.input);
    });
    return { value, usage, provider: this.name, model, latencyMs: performance.now() - started };
  }

  private async create(request: LlmRequest): Promise<Anthropic.Message> {
    try {
      return await this.client.messages.create(
        {
          model: this.model,
          max_tokens: request.maxTokens ?? this.defaultMaxTokens,
          system: request.system,
          messages: alternating(conversationOf(request)),
          tools: [
            {
              name: request.schemaName,
              description: `Record the ${request.schemaName} result.`,
              input_schema: request.schema as Anthropic.Tool.InputSchema,
            },
          ],
          tool_choice: { type: 'tool', name: request.schemaName },
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        },
        request.signal ? { signal: request.signal } : {},
      );
    } catch (error) {
      throw mapSdkError(error, this.name, anthropicSdk());
    }
  }
}
