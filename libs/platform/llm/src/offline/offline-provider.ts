import { LlmError, type LlmProvider, type LlmRequest, type LlmResponse } from '../llm.port.js';
import type { ComposeReplyInput, ComposeReplyOutput, MatchGuidelinesInput, MatchGuidelinesOutput } from '../tasks.js';
import { quotedTerms, terms } from './lexicon.js';

const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/**
 * The default provider when no API key is configured: answers Tenet's tasks by lexical matching, the same
 * way every time. Relevance is the weighted share of a condition's topic terms found in the customer's
 * message (quoted phrases weigh double, measured against at most three terms so that a condition listing
 * alternatives matches on any of them), times the share of the message's main topics the condition covers.
 */
export class OfflineProvider implements LlmProvider {
  readonly name = 'offline';
  readonly model = 'tenet-lexical-1';

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const started = performance.now();
    let value: unknown;
    switch (request.task.kind) {
      case 'match_guidelines':
        value = matchGuidelines(request.task.input as MatchGuidelinesInput);
        break;
      case 'compose_reply':
        value = composeReply(request.task.input as ComposeReplyInput);
        break;
      default:
        throw new LlmError('LLM.UNSUPPORTED_TASK', `the offline provider cannot perform task "${request.task.kind}"`);
    }
    return {
      value: value as O,
      usage: { inputTokens: estimateTokens(request.system + request.prompt), outputTokens: estimateTokens(JSON.stringify(value)) },
      provider: this.name,
      model: this.model,
      latencyMs: performance.now() - started,
    };
  }
}

export function matchGuidelines(input: MatchGuidelinesInput): MatchGuidelinesOutput {
  const said = new Set(terms(input.message));
  // How much of what the customer said a guideline accounts for (the main topic or two of the message).
  const messageCoverage = (hits: number): number => (said.size === 0 ? 0 : Math.min(1, hits / Math.min(said.size, 2)));
  return {
    matches: input.guidelines.map((guideline) => {
      const weights = new Map<string, number>();
      for (const term of terms(guideline.condition)) weights.set(term, Math.max(weights.get(term) ?? 0, 1));
      for (const term of quotedTerms(guideline.condition)) weights.set(term, 2);
      const total = [...weights.values()].reduce((a, b) => a + b, 0);
      const hits = [...weights].filter(([term]) => said.has(term));
      const matched = hits.reduce((a, [, w]) => a + w, 0);
      // Condition coverage times message coverage: a condition sharing one incidental word with the message
      // ("cancel an order" vs. "where is my order?") stays below the threshold.
      const relevance = total === 0 ? 0 : Math.min(1, matched / Math.min(total, 3)) * messageCoverage(hits.length);
      return {
        guideline_id: guideline.id,
        relevance: Number(relevance.toFixed(3)),
        confidence: total === 0 ? 0 : Number(Math.min(1, 0.5 + matched / (2 * total)).toFixed(3)),
        reasoning: hits.length > 0 ? `the message mentions ${hits.map(([t]) => t).join(', ')}` : 'no topic of the condition appears in the message',
      };
    }),
  };
}

// Actions are written to the agent ("introduce yourself", "ask them"); the reply speaks as the agent to the customer.
const toSecondPerson = (action: string): string =>
  action
    .trim()
    .replace(/\.$/, '')
    .replace(/\byourself\b/gi, 'myself')
    .replace(/\byou\b/gi, 'I')
    .replace(/\byour\b/gi, 'my')
    .replace(/\b(the customer|the user)'s\b/gi, 'your')
    .replace(/\b(the customer|the user)\b/gi, 'you')
    .replace(/\btheir\b/gi, 'your')
    .replace(/\bthem\b/gi, 'you');

export function composeReply(input: ComposeReplyInput): ComposeReplyOutput {
  if (input.matched.length === 0) {
    return { message: `Thanks for your message. I'm ${input.agentName}; could you tell me a little more about what you need?`, cited_guideline_ids: [] };
  }
  const sentences = input.matched.map(({ action }) => {
    const text = toSecondPerson(action);
    return `I will ${text.charAt(0).toLowerCase()}${text.slice(1)}.`;
  });
  return { message: sentences.join(' '), cited_guideline_ids: input.matched.map((m) => m.guideline_id) };
}
