import type { LlmCallContext, LlmRequest } from '../llm.port.js';
import type { ConversationTurn } from './match-guidelines.js';

export const COMPOSE_REPLY = 'compose_reply';

export interface ComposeReplyInput {
  agentName: string;
  /** The customer's latest message. */
  message: string;
  /** The actions of the guidelines that matched, most relevant first. */
  matched: { guideline_id: string; action: string }[];
  history: ConversationTurn[];
}

export interface ComposeReplyOutput {
  message: string;
  /** The guidelines whose actions the reply follows. */
  cited_guideline_ids: string[];
}

/** Strict-mode compatible (see `matchGuidelinesSchema`): `pattern` rather than `minLength` keeps the reply non-blank. */
export const composeReplySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['message', 'cited_guideline_ids'],
  properties: {
    message: { type: 'string', pattern: '\\S' },
    cited_guideline_ids: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** The request for composing the agent's reply from the matched guidelines' actions. */
export function composeReplyRequest(
  input: ComposeReplyInput,
  context: LlmCallContext,
  options: { agentDescription?: string; temperature?: number; maxTokens?: number } = {},
): LlmRequest<ComposeReplyInput> {
  const actions = input.matched.length
    ? input.matched.map((m) => `- [${m.guideline_id}] ${m.action}`).join('\n')
    : '(none matched: answer politely and ask what the customer needs)';
  return {
    task: { kind: COMPOSE_REPLY, input },
    system:
      `You are ${input.agentName}, a customer-service agent.${options.agentDescription ? ` ${options.agentDescription}` : ''} ` +
      'Write your next reply to the customer, following the actions listed with the latest message, and list the ids ' +
      'of the guidelines whose actions you followed.',
    messages: [
      ...input.history.map((t) => ({ role: t.role === 'customer' ? ('user' as const) : ('assistant' as const), content: t.content })),
      { role: 'user', content: `${input.message}\n\n[Actions to follow]\n${actions}` },
    ],
    schemaName: 'reply',
    schema: composeReplySchema,
    temperature: options.temperature ?? 0.3,
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    context,
  };
}
