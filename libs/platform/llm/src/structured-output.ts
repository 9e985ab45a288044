import { createRequire } from 'node:module';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { InvalidStructuredOutputError } from './errors.js';
import type { JsonSchema } from './llm.port.js';
import { re2RegExp } from '@tenet/json-schema';

const load = createRequire(import.meta.url);
let shared: Ajv2020 | undefined;
/** ajv, made with the first structured answer to check (ADR 0035): a process that asks no model for one never loads it. */
function ajv(): Ajv2020 {
  if (!shared) {
    const { Ajv2020: Ajv } = load('ajv/dist/2020.js') as typeof Ajv2020Module;
    const addFormats = load('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
    shared = addFormats(new Ajv({ strict: false, allErrors: true, code: { regExp: re2RegExp } }));
  }
  return shared;
}

// Keyed by content, not identity: callers may rebuild the same schema per request, and ajv refuses to compile
// two schemas with the same `$id`.
const compiled = new Map<string, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv().compile(schema as Record<string, unknown>);
    compiled.set(key, validate);
  }
  return validate;
}

/** The JSON pointer an error is about; for missing/extra properties, the property itself. */
function pathOf(error: ErrorObject): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const property = params.missingProperty ?? params.additionalProperty;
  const path = property !== undefined ? `${error.instancePath}/${property}` : error.instancePath;
  return path === '' ? '/' : path;
}

// Keyed by content like the validators: a schema's completion, registered by the task that owns the schema.
const completions = new Map<string, (value: unknown) => unknown>();

/**
 * Declares how to complete an answer to `schema` that omits fields whose empty value means "nothing" (an empty
 * list, an empty id). Strict mode (OpenAI) always returns every required field, but Anthropic's tool input and
 * OpenAI-compatible endpoints without strict mode may leave an empty field out, and answers written for the
 * task's first version (scripted tests, recorded fakes) do not have the fields added later. `complete` returns
 * a completed copy and never mutates its argument; validation then runs on the copy as usual.
 */
export function registerOutputCompletion(schema: JsonSchema, complete: (value: unknown) => unknown): void {
  completions.set(JSON.stringify(schema), complete);
}

/**
 * Checks a model's structured output against the schema it was asked for. Providers call this on every answer,
 * so a caller never sees a value of the wrong shape; the error names the first violating path. Answers to a
 * schema with a registered completion are completed first (see `registerOutputCompletion`).
 */
export function validateStructuredOutput<O>(provider: string, schemaName: string, schema: JsonSchema, answer: unknown): O {
  const validate = validatorFor(schema);
  const complete = completions.get(JSON.stringify(schema));
  const value = complete ? complete(answer) : answer;
  if (validate(value)) return value as O;
  const errors = validate.errors ?? [];
  const problems = errors.map((e) => `${pathOf(e)} ${e.message ?? 'is invalid'}`);
  throw new InvalidStructuredOutputError(provider, schemaName, errors[0] ? pathOf(errors[0]) : '/', problems);
}

/** Parses a model's JSON text answer; text that is not JSON is invalid output at the root. */
export function parseStructuredOutput(provider: string, schemaName: string, text: string | null | undefined): unknown {
  try {
    return JSON.parse(text ?? '') as unknown;
  } catch (error) {
    throw new InvalidStructuredOutputError(
      provider,
      schemaName,
      '/',
      [`the answer is not JSON: ${JSON.stringify((text ?? '').slice(0, 80))}`],
      { cause: error },
    );
  }
}
