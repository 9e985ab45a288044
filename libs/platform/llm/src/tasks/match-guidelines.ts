import { InvalidStructuredOutputError } from '../errors.js';
import type { JsonSchema, LlmCallContext, LlmRequest } from '../llm.port.js';
import { registerOutputCompletion } from '../structured-output.js';
import { agentInstructionsSection } from './agent-instructions.js';
import { glossarySection, type GlossaryTerm } from './glossary.js';
import { toolResultsSection, type ToolOutcome } from './tool-results.js';

export const MATCH_GUIDELINES = 'match_guidelines';

export interface ConversationTurn {
  role: 'customer' | 'agent';
  content: string;
}

/** A tool a guideline may run, described so that its arguments can be read from the conversation. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments: an object schema whose `properties` name them. */
  parameters: JsonSchema;
}

export interface GuidelineToMatch {
  id: string;
  condition: string;
  action?: string;
  /**
   * The agent already followed this guideline's action in this conversation. The caller sets it only for
   * non-continuous guidelines; the guideline then applies again only if its condition arose anew in the
   * customer's latest message.
   */
  previously_applied?: boolean;
  /** Tools the guideline runs when it applies: their arguments are extracted from the conversation. */
  tools?: ToolSpec[];
}

/** An intent the call also classifies the latest message into (ADR 0031). */
export interface IntentToMatch {
  name: string;
  description: string;
  examples: string[];
  keywords: string[];
  /** JSON Schema (type object) of the parameters to extract from the conversation. */
  parameters?: JsonSchema;
}

/** The message's intent as the model answers it: parameters JSON-encoded so the output schema stays fixed. */
export interface IntentAnswer {
  /** One of the intents' names, or `UNKNOWN`. */
  name: string;
  confidence: number;
  /** A JSON object of the parameters the conversation gave for that intent; `{}` if none. */
  extracted_params_json: string;
  /** The other intents the message could mean, with their confidence (best first). */
  alternatives: { name: string; confidence: number }[];
}

export interface MatchGuidelinesInput {
  /** The customer's latest message. */
  message: string;
  /** Earlier turns, oldest first. */
  history: ConversationTurn[];
  guidelines: GuidelineToMatch[];
  /** The agent's glossary: a synonym in the conversation or a condition means its term. */
  terms?: GlossaryTerm[];
  /** Results of tools already called in this turn: a guideline may now apply (or no longer) because of them. */
  tool_results?: ToolOutcome[];
  /** When present (and not empty), the output also carries `intent`: the latest message's intent. */
  intents?: IntentToMatch[];
}

/** Arguments for one tool: a JSON-encoded object, so that the output schema stays fixed (OpenAI strict mode). */
export interface ToolArguments {
  tool_name: string;
  /** A JSON object with only the arguments the conversation gave, e.g. `{"order_id":"12345"}`; `{}` if none. */
  arguments_json: string;
}

export interface GuidelineMatch {
  guideline_id: string;
  /** How well the guideline's condition applies to the conversation, 0..1. */
  relevance: number;
  /** How sure the provider is of that score, 0..1. */
  confidence: number;
  reasoning: string;
  /** One entry per tool of the guideline when it applies; empty for guidelines without tools. */
  tool_arguments: ToolArguments[];
}

export interface MatchGuidelinesOutput {
  matches: GuidelineMatch[];
  /** Present when the input carried intents. */
  intent?: IntentAnswer;
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
        required: ['guideline_id', 'relevance', 'confidence', 'reasoning', 'tool_arguments'],
        properties: {
          guideline_id: { type: 'string' },
          relevance: { type: 'number', minimum: 0, maximum: 1 },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          reasoning: { type: 'string' },
          tool_arguments: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['tool_name', 'arguments_json'],
              properties: {
                tool_name: { type: 'string' },
                arguments_json: { type: 'string', pattern: '^\\s*\\{[\\s\\S]*\\}\\s*$' },
              },
            },
          },
        },
      },
    },
  },
} as const;

const intentAnswerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'confidence', 'extracted_params_json', 'alternatives'],
  properties: {
    name: { type: 'string' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    extracted_params_json: { type: 'string', pattern: '^\\s*\\{[\\s\\S]*\\}\\s*$' },
    alternatives: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'confidence'],
        properties: { name: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
      },
    },
  },
} as const;

/** The output schema of a matching call that also classifies the intent (same strict-mode rules). */
export const matchGuidelinesWithIntentSchema = {
  ...matchGuidelinesSchema,
  required: ['matches', 'intent'],
  properties: { ...matchGuidelinesSchema.properties, intent: intentAnswerSchema },
} as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// An omitted `tool_arguments` means "no tools to run" (see registerOutputCompletion for who omits it).
registerOutputCompletion(matchGuidelinesSchema, (value) => {
  if (!isRecord(value) || !Array.isArray(value['matches']) || !value['matches'].some((m) => isRecord(m) && !('tool_arguments' in m)))
    return value;
  return {
    ...value,
    matches: value['matches'].map((m: unknown) => (isRecord(m) && !('tool_arguments' in m) ? { ...m, tool_arguments: [] } : m)),
  };
});

/**
 * The arguments of one `tool_arguments` entry as an object. The schema only checks that `arguments_json` looks
 * like an object; this parses it and fails with `LLM.INVALID_OUTPUT` when it is not one.
 */
export function parseToolArguments(entry: ToolArguments, provider = 'unknown'): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(entry.arguments_json);
  } catch (error) {
    throw new InvalidStructuredOutputError(
      provider,
      'guideline_matches',
      '/arguments_json',
      [`arguments of ${entry.tool_name} are not JSON`],
      { cause: error },
    );
  }
  if (!isRecord(parsed))
    throw new InvalidStructuredOutputError(provider, 'guideline_matches', '/arguments_json', [
      `arguments of ${entry.tool_name} are not a JSON object`,
    ]);
  return parsed;
}

const transcript = (history: ConversationTurn[], message: string): string =>
  [...history.map((t) => `${t.role}: ${t.content}`), `customer (latest): ${message}`].join('\n');

function describeGuideline(g: GuidelineToMatch): string {
  const lines = [`- id: ${g.id}`, `  condition: ${g.condition}`];
  if (g.action) lines.push(`  action: ${g.action}`);
  if (g.previously_applied) lines.push('  previously applied: yes (score only whether its condition arose anew in the latest message)');
  for (const tool of g.tools ?? [])
    lines.push(`  tool: ${tool.name} (${tool.description}); parameters: ${JSON.stringify(tool.parameters)}`);
  return lines.join('\n');
}

/** One intent in the prompt: compact (two examples at most), so that a call's size grows little with intents. */
function describeIntent(intent: IntentToMatch): string {
  const lines = [`- ${intent.name}: ${intent.description}`];
  if (intent.keywords.length > 0) lines.push(`  keywords: ${intent.keywords.join(', ')}`);
  if (intent.examples.length > 0)
    lines.push(
      `  e.g. ${intent.examples
        .slice(0, 2)
        .map((e) => JSON.stringify(e))
        .join('; ')}`,
    );
  if (intent.parameters) lines.push(`  parameters: ${JSON.stringify(intent.parameters)}`);
  return lines.join('\n');
}

/** The intent parameters of an answer as an object; `{}` when they are not a JSON object (they are then not used). */
export function parseIntentParameters(answer: IntentAnswer): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(answer.extracted_params_json);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The request for a guideline-matching call: the same task as a prompt for models and as input for deterministic providers. */
export function matchGuidelinesRequest(
  input: MatchGuidelinesInput,
  context: LlmCallContext,
  options: { systemPrompt?: string; temperature?: number; maxTokens?: number } = {},
): LlmRequest<MatchGuidelinesInput> {
  const guidelines = input.guidelines.map(describeGuideline).join('\n');
  const intents = input.intents ?? [];
  const classifying = intents.length > 0;
  return {
    task: { kind: MATCH_GUIDELINES, input },
    system:
      "You decide which of a customer-service agent's guidelines apply to the conversation. For every guideline, " +
      "score how well its condition holds for the customer's latest message in the context of the conversation " +
      '(relevance 0..1, 0 = unrelated, 1 = clearly applies), how confident you are (0..1), and say why in one sentence. ' +
      'A guideline marked "previously applied" was already followed in this conversation: score only whether its ' +
      'condition arose anew in the latest message, not whether it held earlier. ' +
      'For a guideline with tools that applies, give one tool_arguments entry per tool: arguments_json is a JSON ' +
      'object with the arguments its parameters schema names, taken from what the customer said, leaving out ' +
      'any the conversation does not give (never guess); use an empty list for guidelines without tools or that do not apply. ' +
      'Return one entry per guideline, using its id.' +
      (classifying
        ? ' Also classify what the customer wants in the latest message (read in the context of the conversation, so an answer to a question continues its topic) ' +
          'as one of the listed intents: intent.name is its name, or UNKNOWN when none fits; confidence 0..1; alternatives lists the other intents it could mean with ' +
          "their confidence; extracted_params_json is a JSON object of the parameters that intent's schema names, taken from what the customer said (never guess), {} if none."
        : '') +
      agentInstructionsSection(options.systemPrompt) +
      glossarySection(input.terms),
    messages: [
      {
        role: 'user',
        content: `Conversation:\n${transcript(input.history, input.message)}${toolResultsSection(input.tool_results)}\n\nGuidelines:\n${guidelines}${classifying ? `\n\nIntents:\n${intents.map(describeIntent).join('\n')}` : ''}`,
      },
    ],
    schemaName: 'guideline_matches',
    schema: classifying ? matchGuidelinesWithIntentSchema : matchGuidelinesSchema,
    temperature: options.temperature ?? 0,
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    context,
  };
}
