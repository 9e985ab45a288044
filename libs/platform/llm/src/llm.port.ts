/**
 * The LLM port. A request states its task twice: as a prompt a model reads, and as structured `task` input
 * that deterministic providers (offline, scripted) compute from. Output is structured: the provider returns a
 * value conforming to `schema`.
 */
export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmRequest<I = unknown> {
  task: { kind: string; input: I };
  system: string;
  prompt: string;
  schemaName: string;
  schema: Record<string, unknown>;
  temperature?: number;
  maxTokens?: number;
  context: { purpose: string; sessionId?: string; agentId?: string };
}

export interface LlmResponse<O = unknown> {
  value: O;
  usage: LlmUsage;
  provider: string;
  model: string;
  latencyMs: number;
}

export interface LlmProvider {
  readonly name: string;
  readonly model: string;
  generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>>;
}

export class LlmError extends Error {
  constructor(
    readonly code: 'LLM.RATE_LIMITED' | 'LLM.AUTHENTICATION' | 'LLM.UNAVAILABLE' | 'LLM.INVALID_OUTPUT' | 'LLM.UNSUPPORTED_TASK',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'LlmError';
  }
}
