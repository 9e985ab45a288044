/** The structured tasks Tenet asks of a provider, with the JSON Schemas real models must answer in. */

export interface MatchGuidelinesInput {
  message: string;
  history: { role: 'customer' | 'agent'; content: string }[];
  guidelines: { id: string; condition: string; action?: string }[];
}
export interface MatchGuidelinesOutput {
  matches: { guideline_id: string; relevance: number; confidence: number; reasoning: string }[];
}
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

export interface ComposeReplyInput {
  agentName: string;
  message: string;
  matched: { guideline_id: string; action: string }[];
  history: { role: 'customer' | 'agent'; content: string }[];
}
export interface ComposeReplyOutput {
  message: string;
  cited_guideline_ids: string[];
}
export const composeReplySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['message', 'cited_guideline_ids'],
  properties: { message: { type: 'string', minLength: 1 }, cited_guideline_ids: { type: 'array', items: { type: 'string' } } },
} as const;
