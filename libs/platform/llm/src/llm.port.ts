/**
 * The LLM port. A request states its task twice: as the prompt a model reads (`system` + `messages`), and as a
 * structured `task` (`kind` + `input`) that deterministic providers (offline, scripted) compute from. Both must
 * describe the same work; the task builders in `tasks/` produce them together so they cannot drift apart.
 *
 * Output is always structured: the provider returns a value that conforms to `schema`, or fails with
 * `InvalidStructuredOutputError`.
 */

/** A JSON Schema (draft 2020-12 subset the providers accept); `as const` schema literals are assignable. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** Who asked and why: carried through to usage records so tokens can be attributed and billed. */
export interface LlmCallContext {
  purpose: string;
  sessionId?: string;
  agentId?: string;
}

export interface LlmTask<I = unknown> {
  kind: string;
  input: I;
}

export interface LlmRequest<I = unknown> {
  task: LlmTask<I>;
  system: string;
  /** The conversation the model reads. At least one of `messages` and `prompt` must be non-empty. */
  messages?: LlmMessage[];
  /** Shorthand for a final user message, appended after `messages`. */
  prompt?: string;
  /** Names the structured output (OpenAI `json_schema.name`, Anthropic tool name): `^[a-zA-Z0-9_-]{1,64}$`. */
  schemaName: string;
  schema: JsonSchema;
  temperature?: number;
  maxTokens?: number;
  context: LlmCallContext;
  /** The turn's deadline or cancellation: the SDK call is aborted and nothing more is sent once it fires. */
  signal?: AbortSignal;
}

/** A call the provider answered (and billed) although its answer was not used: out of schema, or superseded. */
export interface BilledCall {
  provider: string;
  model: string;
  usage: LlmUsage;
}

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmResponse<O = unknown> {
  value: O;
  usage: LlmUsage;
  /** The provider that answered (`openai`, `anthropic`, `offline`, `scripted`): the metering price key. */
  provider: string;
  /** The model that answered, as the provider reported it (may be a dated snapshot of the configured one). */
  model: string;
  latencyMs: number;
  /**
   * Set when a fallback answered because the configured provider failed: that provider and model as
   * `provider/model` (the price-table key). `provider` and `model` above are then the fallback's.
   */
  fallbackFrom?: string;
  /** Earlier calls for this answer that were billed but not used (an answer out of schema before a repair). */
  billedBefore?: BilledCall[];
}

export interface LlmProvider {
  readonly name: string;
  /** The configured model. */
  readonly model: string;
  generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>>;
}

/** The messages a model reads for a request: `messages`, then `prompt` as a last user turn. */
export function conversationOf(request: LlmRequest): LlmMessage[] {
  const messages = [...(request.messages ?? [])];
  if (request.prompt !== undefined && request.prompt !== '') messages.push({ role: 'user', content: request.prompt });
  return messages;
}
