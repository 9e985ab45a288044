import type { LlmCallContext, LlmRequest } from '../llm.port.js';
import type { ConversationTurn } from './match-guidelines.js';

export const EXTRACT_CONTEXT = 'extract_context';

/** A context variable to fill from the customer's message (docs/data-model.md#context-extraction). */
export interface VariableToExtract {
  name: string;
  /** What to look for, in the agent designer's words. */
  extraction_prompt: string;
  description?: string;
  data_type?: 'String' | 'Number' | 'Boolean' | 'Date' | 'Array' | 'Object';
  /** The only values the variable may take, when restricted. */
  allowed_values?: unknown[];
}

export interface ExtractContextInput {
  /** The customer's latest message: values and facts come from it. */
  message: string;
  /** Earlier turns, oldest first: context for reading the message only. */
  history: ConversationTurn[];
  variables: VariableToExtract[];
  /** Also list facts about the customer (subject · predicate · object). */
  facts: boolean;
}

export interface ExtractedValue {
  name: string;
  /** The value as text: a number's digits, `true`/`false`, a date as YYYY-MM-DD, an array or object as JSON. */
  value: string;
  confidence: number;
}

export interface ExtractedFact {
  subject: string;
  /** snake_case, e.g. `name`, `email`, `address`, `order_number`, `preferred_language`. */
  predicate: string;
  object: string;
  confidence: number;
}

export interface ExtractContextOutput {
  values: ExtractedValue[];
  facts: ExtractedFact[];
}

/** Strict-mode compatible: every property required, values as text (typed by the caller from the variable's data_type). */
export const extractContextSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['values', 'facts'],
  properties: {
    values: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'value', 'confidence'],
        properties: {
          name: { type: 'string' },
          value: { type: 'string', pattern: '\\S' },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
        },
      },
    },
    facts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['subject', 'predicate', 'object', 'confidence'],
        properties: {
          subject: { type: 'string', pattern: '\\S' },
          predicate: { type: 'string', pattern: '\\S' },
          object: { type: 'string', pattern: '\\S' },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
        },
      },
    },
  },
} as const;

function variableLine(v: VariableToExtract): string {
  const parts = [`- ${v.name}${v.data_type ? ` (${v.data_type})` : ''}: ${v.extraction_prompt}`];
  if (v.description) parts.push(`  about: ${v.description}`);
  if (v.allowed_values?.length) parts.push(`  only one of: ${v.allowed_values.map((a) => JSON.stringify(a)).join(', ')}`);
  return parts.join('\n');
}

/**
 * The one request that extracts every variable (and the customer's facts) from a customer message: however many
 * variables the agent has, this is a single model call.
 */
export function extractContextRequest(input: ExtractContextInput, context: LlmCallContext): LlmRequest<ExtractContextInput> {
  const variables = input.variables.length ? input.variables.map(variableLine).join('\n') : '(none)';
  const history = input.history.length ? input.history.map((t) => `${t.role}: ${t.content}`).join('\n') : '(none)';
  return {
    task: { kind: 'extract_context', input },
    system:
      "You read a customer's latest message and extract what it states. For each variable listed, give its value only " +
      "if the latest message states it (never guess, never take it from the agent's words); write numbers as digits, " +
      'booleans as true/false, dates as YYYY-MM-DD, arrays and objects as JSON, and give your confidence from 0 to 1. ' +
      (input.facts
        ? 'Also list facts the customer states about themselves as subject/predicate/object, subject "customer", ' +
          'predicate in snake_case (name, email, phone, address, order_number, preferred_language, …). '
        : 'Leave facts empty. ') +
      'Leave out anything the message does not say.',
    messages: [
      {
        role: 'user',
        content: `[Earlier conversation]\n${history}\n\n[Latest customer message]\n${input.message}\n\n[Variables]\n${variables}`,
      },
    ],
    schemaName: 'extraction',
    schema: extractContextSchema,
    temperature: 0,
    context,
  };
}
