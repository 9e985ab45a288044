import type { Type as TypeBoxType } from '@sinclair/typebox';

/**
 * The twelve TypeBox builders the contracts use, written out (ADR 0035): TypeBox's own `Type` is one module graph of
 * ~200 files that every process loaded for these few functions. Each returns exactly what TypeBox 0.34 returns
 * (same keys in the same order, the same `Symbol.for('TypeBox.*')` markers), so `Static<…>`, ajv and the event
 * docs see no difference; `schema-builder.unit.spec.ts` compares every builder with TypeBox's.
 */
const Kind = Symbol.for('TypeBox.Kind');
const OptionalKind = Symbol.for('TypeBox.Optional');

type Schema = Record<string | symbol, unknown>;
type Options = Record<string | symbol, unknown> | undefined;

/** TypeBox's CreateType in its default instance mode: options first, then the schema's own keys. */
const create = (schema: Schema, options: Options): Schema => (options !== undefined ? { ...options, ...schema } : schema);

const isOptional = (schema: unknown): boolean =>
  typeof schema === 'object' && schema !== null && (schema as Schema)[OptionalKind] === 'Optional';

function object(properties: Record<string, Schema>, options?: Options): Schema {
  const required = Object.keys(properties).filter((key) => !isOptional(properties[key]));
  return create(
    required.length > 0 ? { [Kind]: 'Object', type: 'object', required, properties } : { [Kind]: 'Object', type: 'object', properties },
    options,
  );
}

function union(types: Schema[], options?: Options): Schema {
  const [only] = types;
  if (only === undefined) return create({ [Kind]: 'Never', not: {} }, options);
  if (types.length === 1) return create(only, options);
  return create({ [Kind]: 'Union', anyOf: types }, options);
}

/** Only string keys (any, or with a `pattern`), the one kind of record key the contracts declare. */
function record(key: Schema, value: Schema, options: Options = {}): Schema {
  if (key[Kind] !== 'String') throw new Error(`contracts' Type.Record takes a Type.String() key, not ${String(key[Kind])}`);
  const pattern = typeof key['pattern'] === 'string' ? key['pattern'] : '^(.*)$';
  return create({ [Kind]: 'Record', type: 'object', patternProperties: { [pattern]: value } }, options);
}

const builders = {
  String: (options?: Options) => create({ [Kind]: 'String', type: 'string' }, options),
  Number: (options?: Options) => create({ [Kind]: 'Number', type: 'number' }, options),
  Integer: (options?: Options) => create({ [Kind]: 'Integer', type: 'integer' }, options),
  Boolean: (options?: Options) => create({ [Kind]: 'Boolean', type: 'boolean' }, options),
  Null: (options?: Options) => create({ [Kind]: 'Null', type: 'null' }, options),
  Unknown: (options?: Options) => create({ [Kind]: 'Unknown' }, options),
  Literal: (value: string | number | boolean, options?: Options) =>
    create({ [Kind]: 'Literal', const: value, type: typeof value }, options),
  Array: (items: Schema, options?: Options) => create({ [Kind]: 'Array', type: 'array', items }, options),
  Optional: (schema: Schema) => create({ ...schema, [OptionalKind]: 'Optional' }, undefined),
  Object: object,
  Union: union,
  Record: record,
};

export type ContractTypeBuilder = Pick<typeof TypeBoxType, keyof typeof builders>;
export const Type = builders as unknown as ContractTypeBuilder;
