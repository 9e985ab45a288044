import type { LlmCallContext, LlmRequest } from '../llm.port.js';

export const MATCH_GUIDELINES = 'match_guidelines';

export interface ConversationTurn {
  role: 'customer' | 'agent';
  content: string;
}

export interface MatchGuidelinesInput {
  /** The customer's latest message. */
  message: string;
  /** Earlier turns, oldest first. */
  history: ConversationTurn[];
  guidelines: { id: string; condition: string; action?: string }[];
}

export interface GuidelineMatch {
  guideline_id: string;
  /** How well the guideline's condition applies to the conversation, 0..1. */
  relevance: number;
  /** How sure the provider is of that score, 0..1. */
  confidence: number;
  reasoning: string;
}

export interface MatchGuidelinesOutput {
  matches: GuidelineMatch[];
}

/**
 * Written for OpenAI's strict structured outputs (every property required, no additional properties, only
 * keywords strict mode accepts), which Anthropic's tool input schemas accept as well.
 */
export const matchGuidelinesSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['matches'],
  properties: {
    matches: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['guideline_id', 'relevance', 'confidence', 'reasoning'],
        properties: {
          guideline_id: { type: 'string' },
          relevance: { type: 'number', minimum: 0, maximum: 1 },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          reasoning: { type: 'string' },
        },
      },
    },
  },
} as const;

const transcript = (history: ConversationTurn[], message: string): string =>
  [...history.map((t) => `${t.role}: ${t.content}`), `customer (latest): ${message}`].join('\n');

/** The request for a guideline-matching call: the same task as a prompt for models and as input for deterministic providers. */
export function matchGuidelinesRequest(input: MatchGuidelinesInput, context: LlmCallContext, options: { temperature?: number; maxTokens?: number } = {}): LlmRequest<MatchGuidelinesInput> {
  const guidelines = input.guidelines.map((g) => `- id: ${g.id}\n  condition: ${g.condition}${g.action ? `\n  action: ${g.action}` : ''}`).join('\n');
  return {
    task: { kind: MATCH_GUIDELINES, input },
    system:
      'You decide which of a customer-service agent\'s guidelines apply to the conversation. For every guideline, ' +
      'score how well its condition holds for the customer\'s latest message in the context of the conversation ' +
      '(relevance 0..1, 0 = unrelated, 1 = clearly applies), how confident you are (0..1), and say why in one sentence. ' +
      'Return one entry per guideline, using its id.',
    messages: [{ role: 'user', content: `Conversation:\n${transcript(input.history, input.message)}\n\nGuidelines:\n${guidelines}` }],
    schemaName: 'guideline_matches',
    schema: matchGuidelinesSchema,
    temperature: options.temperature ?? 0,
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    context,
  };
}
