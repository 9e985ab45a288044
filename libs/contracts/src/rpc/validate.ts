import { createRequire } from 'node:module';
import type { Static, TSchema } from '@sinclair/typebox';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

const load = createRequire(import.meta.url);
let shared: Ajv2020 | undefined;
/**
 * ajv (~160 modules with ajv-formats), made when a process validates its first payload (ADR 0035): contracts are
 * imported by every service, most of which validate a few kinds of message at most, some none while idle.
 */
function ajv(): Ajv2020 {
  if (!shared) {
    const { Ajv2020: Ajv } = load('ajv/dist/2020.js') as typeof Ajv2020Module;
    const addFormats = load('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
    shared = addFormats(new Ajv({ strict: false, allErrors: true }));
  }
  return shared;
}

/** A request or message that breaks its contract; `field` is the JSON path, `rule` what it broke. */
export class RpcValidationError extends Error {
  readonly code = 'CONTRACT.INVALID';
  constructor(readonly problems: { field: string; rule: string }[]) {
    super(`invalid payload: ${problems.map((p) => `${p.field}: ${p.rule}`).join('; ')}`);
    this.name = 'RpcValidationError';
  }
}

const describe = (error: ErrorObject): { field: string; rule: string } => {
  const missing = error.keyword === 'required' ? `/${String((error.params as { missingProperty?: string }).missingProperty)}` : '';
  const extra =
    error.keyword === 'additionalProperties' ? `/${String((error.params as { additionalProperty?: string }).additionalProperty)}` : '';
  return { field: `${error.instancePath}${missing}${extra}` || '/', rule: error.message ?? error.keyword };
};

/**
 * Compiles the schema once, on the first payload; the returned function narrows a payload to the contract's type or
 * throws naming every problem.
 */
export function rpcValidator<S extends TSchema>(schema: S): (payload: unknown) => Static<S> {
  let validate: ValidateFunction | undefined;
  return (payload) => {
    validate ??= ajv().compile(schema);
    if (validate(payload)) return payload as Static<S>;
    throw new RpcValidationError((validate.errors ?? []).map(describe));
  };
}
