import type { LlmCallContext, LlmRequest } from '../llm.port.js';
import { registerOutputCompletion } from '../structured-output.js';
import { agentInstructionsSection } from './agent-instructions.js';
import { glossarySection, type GlossaryTerm } from './glossary.js';
import type { ConversationTurn } from './match-guidelines.js';
import { toolResultsSection, type ToolOutcome } from './tool-results.js';

export const COMPOSE_REPLY = 'compose_reply';

/**
 * How the reply is written (Parlant's composition modes):
 * - `fluid`: freely, from the matched actions; canned responses are not used.
 * - `canned_fluid`: a canned response when one says what the reply should say, else a fluid reply.
 * - `composited_canned`: what the reply should say, in the wording and style of the canned responses.
 * - `strict_canned`: only a canned response; when none fits, no reply of its own (`canned_response_id` '')
 *   so that the caller sends its no-match response.
 */
export type CompositionMode = 'fluid' | 'canned_fluid' | 'composited_canned' | 'strict_canned';

export const COMPOSITION_MODES: readonly CompositionMode[] = ['fluid', 'canned_fluid', 'composited_canned', 'strict_canned'];

/** A reply template; `{{field}}` placeholders are filled from `field_values`. */
export interface CannedResponse {
  id: string;
  value: string;
  /** The fields the template uses (its `{{…}}` placeholders). */
  fields: string[];
}

export interface ComposeReplyInput {
  agentName: string;
  /** The customer's latest message. */
  message: string;
  /** The actions of the guidelines that matched, most relevant first. */
  matched: { guideline_id: string; action: string }[];
  history: ConversationTurn[];
  /** Default `fluid`. */
  composition_mode?: CompositionMode;
  canned_responses?: CannedResponse[];
  /** Values for the templates' fields (tool results, customer data, …). */
  field_values?: Record<string, string>;
  terms?: GlossaryTerm[];
  /** The message could mean several guidelines' conditions: the reply asks the customer which one. */
  disambiguation?: { candidates: { guideline_id: string; condition: string }[] };
  /** What the agent can offer that is relevant to the conversation (Parlant's capabilities), most relevant first. */
  capabilities?: { title: string; description: string }[];
  /** What the tools called in this turn returned; the reply tells the customer what they found. */
  tool_results?: ToolOutcome[];
  /** What is known about the customer now (semantic memory and this message's extraction). */
  facts?: { subject: string; predicate: string; object: string }[];
  /** Passages of the agent's documents retrieved for the message, best first: the reply answers from them and cites them. */
  knowledge?: KnowledgePassage[];
}

export interface KnowledgePassage {
  chunk_id: string;
  title: string;
  heading: string;
  text: string;
}

export interface ComposeReplyOutput {
  message: string;
  /** The guidelines whose actions the reply follows. */
  cited_guideline_ids: string[];
  /** The canned response the message is (its fields filled in); '' when the reply is not a template. */
  canned_response_id: string;
  /** The `knowledge` passages (chunk ids) the reply is based on; [] when none (always present after validation). */
  cited_chunk_ids?: string[];
}

/** Strict-mode compatible (see `matchGuidelinesSchema`): `pattern` rather than `minLength` keeps the reply non-blank. */
export const composeReplySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['message', 'cited_guideline_ids', 'canned_response_id', 'cited_chunk_ids'],
  properties: {
    message: { type: 'string', pattern: '\\S' },
    cited_guideline_ids: { type: 'array', items: { type: 'string' } },
    canned_response_id: { type: 'string' },
    cited_chunk_ids: { type: 'array', items: { type: 'string' } },
  },
} as const;

// An omitted `canned_response_id` means the reply is not a template, omitted `cited_chunk_ids` that it cites no
// passage (see registerOutputCompletion).
registerOutputCompletion(composeReplySchema, (value) =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? {
        ...('canned_response_id' in value ? {} : { canned_response_id: '' }),
        ...('cited_chunk_ids' in value ? {} : { cited_chunk_ids: [] }),
        ...value,
      }
    : value,
);

const MODE_INSTRUCTIONS: Record<CompositionMode, string> = {
  fluid: 'Write your reply in your own words and set canned_response_id to "".',
  canned_fluid:
    'If one of the canned responses says what your reply should say, reply with it exactly, its {{fields}} filled ' +
    'in from the field values, and set canned_response_id to its id; otherwise write your own reply and set canned_response_id to "".',
  composited_canned:
    'Say what your reply should say in the wording, tone and style of the canned responses, without adding or ' +
    'dropping information; set canned_response_id to a response\'s id only if your reply is exactly that response, else "".',
  strict_canned:
    'Reply only with one of the canned responses, exactly as written with its {{fields}} filled in from the field ' +
    'values, and set canned_response_id to its id. If none fits, set canned_response_id to "" and cited_guideline_ids ' +
    'to [], and put in message one sentence saying what you would have said; it is not sent.',
};

function cannedSection(input: ComposeReplyInput, mode: CompositionMode): string {
  if (mode === 'fluid') return '';
  const responses = input.canned_responses?.length ? input.canned_responses.map((r) => `- (${r.id}) ${r.value}`).join('\n') : '(none)';
  const values = Object.entries(input.field_values ?? {});
  const fields = values.length ? `\n\n[Field values]\n${values.map(([name, value]) => `- ${name} = ${value}`).join('\n')}` : '';
  return `\n\n[Canned responses]\n${responses}${fields}`;
}

function capabilitiesSection(input: ComposeReplyInput): string {
  const capabilities = input.capabilities ?? [];
  if (capabilities.length === 0) return '';
  return `\n\n[What you can offer, if it helps the customer]\n${capabilities.map((c) => `- ${c.title}: ${c.description}`).join('\n')}`;
}

/** Keeps the prompt bounded: the recall already bounds the total, this bounds one passage. */
const MAX_PASSAGE_CHARS = 2_000;

function memorySection(input: ComposeReplyInput): string {
  const facts = input.facts ?? [];
  const passages = input.knowledge ?? [];
  const parts: string[] = [];
  if (facts.length > 0)
    parts.push(
      `\n\n[What you know about the customer]\n${facts.map((f) => `- ${f.subject} ${f.predicate.replace(/_/g, ' ')}: ${f.object}`).join('\n')}`,
    );
  if (passages.length > 0)
    parts.push(
      `\n\n[Knowledge passages]\n${passages
        .map(
          (p) =>
            `(${p.chunk_id}) ${p.title} › ${p.heading}\n${p.text.length > MAX_PASSAGE_CHARS ? `${p.text.slice(0, MAX_PASSAGE_CHARS)}…` : p.text}`,
        )
        .join('\n\n')}`,
    );
  return parts.join('');
}

function disambiguationSection(input: ComposeReplyInput): string {
  const candidates = input.disambiguation?.candidates ?? [];
  if (candidates.length === 0) return '';
  return `\n\n[Ask which one the customer means]\n${candidates.map((c) => `- ${c.condition}`).join('\n')}`;
}

/** The request for composing the agent's reply from the matched guidelines' actions. */
export function composeReplyRequest(
  input: ComposeReplyInput,
  context: LlmCallContext,
  options: { agentDescription?: string; systemPrompt?: string; temperature?: number; maxTokens?: number } = {},
): LlmRequest<ComposeReplyInput> {
  const mode = input.composition_mode ?? 'fluid';
  const actions = input.matched.length
    ? input.matched.map((m) => `- [${m.guideline_id}] ${m.action}`).join('\n')
    : '(none matched: answer politely and ask what the customer needs)';
  const disambiguating = (input.disambiguation?.candidates.length ?? 0) > 0;
  return {
    task: { kind: COMPOSE_REPLY, input },
    system:
      `You are ${input.agentName}, a customer-service agent.${options.agentDescription ? ` ${options.agentDescription}` : ''} ` +
      'Write your next reply to the customer, following the actions listed with the latest message, and list the ids ' +
      'of the guidelines whose actions you followed. ' +
      (disambiguating ? 'The latest message could mean several things: ask the customer which of the listed ones they mean. ' : '') +
      (input.tool_results?.length
        ? 'Base what you say on the tool results listed with the message; never invent data a tool did not return. '
        : '') +
      (input.knowledge?.length
        ? 'Answer questions about policies, products or procedures from the knowledge passages listed with the message, never against them, ' +
          'and list in cited_chunk_ids the ids (in parentheses) of the passages your reply uses; [] if none. '
        : 'Set cited_chunk_ids to []. ') +
      MODE_INSTRUCTIONS[mode] +
      agentInstructionsSection(options.systemPrompt) +
      glossarySection(input.terms),
    messages: [
      ...input.history.map((t) => ({ role: t.role === 'customer' ? ('user' as const) : ('assistant' as const), content: t.content })),
      {
        role: 'user',
        content: `${input.message}\n\n[Actions to follow]\n${actions}${toolResultsSection(input.tool_results)}${memorySection(input)}${disambiguationSection(input)}${capabilitiesSection(input)}${cannedSection(input, mode)}`,
      },
    ],
    schemaName: 'reply',
    schema: composeReplySchema,
    temperature: options.temperature ?? 0.3,
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    context,
  };
}
