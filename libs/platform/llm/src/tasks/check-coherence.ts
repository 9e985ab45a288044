import type { LlmCallContext, LlmRequest } from '../llm.port.js';

export const CHECK_COHERENCE = 'check_coherence';

/** A guideline in a coherence check: an existing one (its id) or a proposed one (`proposal:<n>`). */
export interface CoherenceSubject {
  id: string;
  condition: string;
  action?: string;
}

/**
 * Parlant's evaluation as one call: every proposed guideline is judged against the existing guidelines and the
 * proposals before it (they are added together), so the number of calls does not grow with the number of
 * guidelines or proposals.
 */
export interface CheckCoherenceInput {
  /** Proposed guidelines, in order; ids are `proposal:0`, `proposal:1`, … */
  proposals: CoherenceSubject[];
  existing: CoherenceSubject[];
}

export interface CoherenceFindingOutput {
  /** The proposal (`proposal:<n>`) the finding is about. */
  proposal_id: string;
  /** The guideline it conflicts with: an existing id, or an earlier proposal's `proposal:<n>`. */
  guideline_id: string;
  kind: 'contradiction' | 'overlap';
  /** How much the two conditions describe the same situation, 0..1. */
  condition_similarity: number;
  reason: string;
}

export interface CheckCoherenceOutput {
  findings: CoherenceFindingOutput[];
}

/** OpenAI strict structured outputs (every property required, no additional properties); Anthropic accepts it too. */
export const checkCoherenceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['findings'],
  properties: {
    findings: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['proposal_id', 'guideline_id', 'kind', 'condition_similarity', 'reason'],
        properties: {
          proposal_id: { type: 'string' },
          guideline_id: { type: 'string' },
          kind: { type: 'string', enum: ['contradiction', 'overlap'] },
          condition_similarity: { type: 'number', minimum: 0, maximum: 1 },
          reason: { type: 'string' },
        },
      },
    },
  },
} as const;

export const proposalId = (index: number): string => `proposal:${index}`;

const describe = (g: CoherenceSubject): string =>
  [`- id: ${g.id}`, `  condition: ${g.condition}`, ...(g.action ? [`  action: ${g.action}`] : [])].join('\n');

/** The request for a coherence check: the same task as a prompt for models and as input for deterministic providers. */
export function checkCoherenceRequest(
  input: CheckCoherenceInput,
  context: LlmCallContext,
  options: { temperature?: number; maxTokens?: number } = {},
): LlmRequest<CheckCoherenceInput> {
  const existing = input.existing.length > 0 ? input.existing.map(describe).join('\n') : '(none)';
  return {
    task: { kind: CHECK_COHERENCE, input },
    system:
      'You review guidelines proposed for a customer-service agent before they are added. A guideline says that when ' +
      'its condition holds, the agent does its action. Compare each proposed guideline with every existing guideline ' +
      'and with the proposals listed before it. Report a contradiction when both can hold in the same situation and ' +
      'following one action means breaking the other. Report an overlap when, without contradicting, the two conditions ' +
      'describe much the same situation (a duplicate or near-duplicate). Report nothing for pairs that are merely about ' +
      "related topics. For each finding give the proposal id, the other guideline's id exactly as listed, the kind, how " +
      'much the two conditions describe the same situation (0..1), and the reason in one sentence a person can act on. ' +
      'Return an empty list when the proposals are coherent.',
    messages: [
      {
        role: 'user',
        content: `Existing guidelines:\n${existing}\n\nProposed guidelines, in order:\n${input.proposals.map(describe).join('\n')}`,
      },
    ],
    schemaName: 'coherence_findings',
    schema: checkCoherenceSchema,
    temperature: options.temperature ?? 0,
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    context,
  };
}
