import Anthropic from '@anthropic-ai/sdk';
import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse } from '../llm.port.js';
import { mapSdkError } from '../openai/openai-provider.js';
import { validateOutput } from '../output-validation.js';

export interface AnthropicProviderOptions {
  apiKey: string;
  model?: string;
  baseURL?: string;
  maxRetries?: number;
  timeoutMs?: number;
}

/** Anthropic messages with structured output through one forced tool whose input schema is the output schema. */
export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic';
  readonly model: string;
  private readonly client: Anthropic;

  constructor(options: AnthropicProviderOptions) {
    this.model = options.model ?? 'claude-sonnet-4-5';
    this.client = new Anthropic({
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 60_000,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    });
  }

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const started = performance.now();
    let message: Anthropic.Message;
    try {
      message = await this.client.messages.create({
        model: this.model,
        max_tokens: request.maxTokens ?? 2048,
        system: request.system,
        messages: [{ role: 'user', content: request.prompt }],
        tools: [{ name: request.schemaName, description: `Return the ${request.schemaName} result`, input_schema: request.schema as Anthropic.Tool.InputSchema }],
        tool_choice: { type: 'tool', name: request.schemaName },
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      });
    } catch (error) {
      throw mapSdkError(error, this.name);
    }
    const block = message.content.find((b) => b.type === 'tool_use');
    if (!block || block.type !== 'tool_use') throw new LlmError('LLM.INVALID_OUTPUT', `anthropic returned no ${request.schemaName} tool call`);
    return {
      value: validateOutput<O>(request.schemaName, request.schema, block.input),
      usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
      provider: this.name,
      model: message.model || this.model,
      latencyMs: performance.now() - started,
    };
  }
}
