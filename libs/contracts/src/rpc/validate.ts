import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

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
  const extra = error.keyword === 'additionalProperties' ? `/${String((error.params as { additionalProperty?: string }).additionalProperty)}` : '';
  return { field: `${error.instancePath}${missing}${extra}` || '/', rule: error.message ?? error.keyword };
};

/** Compiles the schema once; the returned function narrows a payload to the contract's type or throws naming every problem. */
export function rpcValidator<S extends TSchema>(schema: S): (payload: unknown) => Static<S> {
  const validate = ajv.compile(schema);
  return (payload) => {
    if (validate(payload)) return payload as Static<S>;
    throw new RpcValidationError((validate.errors ?? []).map(describe));
  };
}
