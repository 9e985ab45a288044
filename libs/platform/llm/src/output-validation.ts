import { Ajv2020 } from 'ajv/dist/2020.js';
import { LlmError } from './llm.port.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/** A model's structured output must satisfy the schema it was given; the error names the failing path. */
export function validateOutput<O>(schemaName: string, schema: Record<string, unknown>, value: unknown): O {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
    throw new LlmError('LLM.INVALID_OUTPUT', `output for ${schemaName} does not match its schema: ${problems}`);
  }
  return value as O;
}
