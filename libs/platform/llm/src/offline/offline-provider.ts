import { UnsupportedTaskError } from '../errors.js';
import { conversationOf, type LlmProvider, type LlmRequest, type LlmResponse } from '../llm.port.js';
import { validateStructuredOutput } from '../structured-output.js';
import { COMPOSE_REPLY, type ComposeReplyInput } from '../tasks/compose-reply.js';
import { EXTRACT_CONTEXT, type ExtractContextInput } from '../tasks/extract-context.js';
import { MATCH_GUIDELINES, type MatchGuidelinesInput } from '../tasks/match-guidelines.js';
import { composeReply } from './compose.js';
import { extractContext } from './extract.js';
import { matchGuidelines } from './match.js';

export const OFFLINE_MODEL = 'tenet-lexical-1';

/** Roughly what a BPE tokenizer yields for English: about four characters per token. */
export const estimateTokens = (text: string): number => (text.length === 0 ? 0 : Math.ceil(text.length / 4));

const TASKS: Record<string, (input: unknown) => unknown> = {
  [MATCH_GUIDELINES]: (input) => matchGuidelines(input as MatchGuidelinesInput),
  [COMPOSE_REPLY]: (input) => composeReply(input as ComposeReplyInput),
  [EXTRACT_CONTEXT]: (input) => extractContext(input as ExtractContextInput),
};

/**
 * Adds a task the offline provider computes, for a task whose deterministic answer is a context's domain rule (the
 * guideline matcher registers the coherence check, the matching domain's lexical judgement): the platform's LLM
 * lib does not import a context's domain (ADR 0027).
 */
export function registerOfflineTask<I, O>(kind: string, perform: (input: I) => O): void {
  TASKS[kind] = (input) => perform(input as I);
}

/**
 * The default provider when no API key is configured: computes Tenet's tasks from their structured input,
 * the same way every time, without a model. Usage is estimated from the prompt a model would have read, so
 * metering and quotas behave the same offline.
 */
export class OfflineProvider implements LlmProvider {
  readonly name = 'offline';
  readonly model = OFFLINE_MODEL;

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const started = performance.now();
    const perform = Object.hasOwn(TASKS, request.task.kind) ? TASKS[request.task.kind] : undefined;
    if (!perform) throw new UnsupportedTaskError(this.name, request.task.kind, Object.keys(TASKS));
    const value = perform(request.task.input);
    const prompt = [request.system, ...conversationOf(request).map((m) => m.content)].join('\n');
    return {
      value: validateStructuredOutput<O>(this.name, request.schemaName, request.schema, value),
      usage: { inputTokens: Math.max(1, estimateTokens(prompt)), outputTokens: Math.max(1, estimateTokens(JSON.stringify(value))) },
      provider: this.name,
      model: this.model,
      latencyMs: performance.now() - started,
    };
  }
}
