import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: true }));

/** A tool's arguments broke its parameter schema: `parameter` names the argument, `rule` what it broke. */
export interface ArgumentProblem {
  parameter: string;
  rule: string;
}

export type ArgumentCheck = { ok: true } | { ok: false; problems: ArgumentProblem[] };

/**
 * Compiled validators by the schema's JSON text: calls arrive as fresh objects (deserialised from the queue),
 * and compiling a schema costs milliseconds, so identity caching would compile on every call. Bounded.
 */
const compiled = new Map<string, { schema: object; validate: ValidateFunction | Error }>();
const MAX_COMPILED = 1000;

const parameterOf = (error: ErrorObject): string => {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') return [path, String((error.params as { missingProperty?: string }).missingProperty)].filter(Boolean).join('.');
  if (error.keyword === 'additionalProperties') return [path, String((error.params as { additionalProperty?: string }).additionalProperty)].filter(Boolean).join('.');
  return path || '(arguments)';
};

const ruleOf = (error: ErrorObject): string => {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a parameter of this tool';
  if (error.keyword === 'enum') return `must be one of ${JSON.stringify((error.params as { allowedValues?: unknown[] }).allowedValues)}`;
  return error.message ?? error.keyword;
};

/**
 * Checks a call's arguments against the tool's parameter schema (JSON Schema, draft 2020-12) before any
 * outbound call. A schema that does not compile is reported as a problem of the tool, not thrown.
 */
export function checkArguments(parameters: object | undefined, args: Record<string, unknown>): ArgumentCheck {
  if (!parameters) return { ok: true };
  const text = JSON.stringify(parameters);
  let entry = compiled.get(text);
  if (!entry) {
    const schema = JSON.parse(text) as object;
    let validate: ValidateFunction | Error;
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      validate = error instanceof Error ? error : new Error(String(error));
    }
    if (compiled.size >= MAX_COMPILED) {
      const [oldestText, oldest] = compiled.entries().next().value as [string, { schema: object }];
      compiled.delete(oldestText);
      ajv.removeSchema(oldest.schema);
    }
    entry = { schema, validate };
    compiled.set(text, entry);
  }
  const validate = entry.validate;
  if (validate instanceof Error) return { ok: false, problems: [{ parameter: '(schema)', rule: `the tool's parameter schema is invalid: ${validate.message}` }] };
  if (validate(args)) return { ok: true };
  return { ok: false, problems: (validate.errors ?? []).map((error) => ({ parameter: parameterOf(error), rule: ruleOf(error) })) };
}

export const describeProblems = (problems: ArgumentProblem[]): string => problems.map((p) => `${p.parameter} ${p.rule}`).join('; ');
