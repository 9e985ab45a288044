import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';
import type { AnySchemaObject, ErrorObject, Options, ValidateFunction, Ajv as AjvDraft07 } from 'ajv';
import type * as Ajv2019Module from 'ajv/dist/2019.js';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { LRUCache } from 'lru-cache';
import { re2RegExp } from './user-pattern.js';

type AjvCore = AjvDraft07 | Ajv2019 | Ajv2020;
// ajv and its plugins are CommonJS, required when the first schema of a dialect is compiled (ADR 0035): every host
// that may check tool arguments imports this file, few check any while idle.
const load = createRequire(import.meta.url);
const addFormats = <T extends AjvCore>(ajv: T): T => (load('ajv-formats') as (ajv: T) => T)(ajv);

/** The JSON Schema dialects a tool's parameter schema may declare with `$schema` (none means 2020-12). */
export type JsonSchemaDialect = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

/** A tool's arguments broke its parameter schema: `parameter` names the argument, `rule` what it broke. */
export interface ArgumentProblem {
  parameter: string;
  rule: string;
}

export type ArgumentCheck = { ok: true } | { ok: false; problems: ArgumentProblem[] };

/** A compiled tool schema, or why it cannot be used (the tool is then unusable, never the turn). */
export type CompiledToolSchema =
  { ok: true; dialect: JsonSchemaDialect; check(args: unknown): ArgumentCheck } | { ok: false; reason: string };

/** `$schema` URIs as servers write them (http or https, with or without the empty fragment) → dialect and canonical id. */
const DIALECTS: readonly { dialect: JsonSchemaDialect; uri: RegExp; canonical: string }[] = [
  { dialect: 'draft-04', uri: /^https?:\/\/json-schema\.org\/draft-04\/schema#?$/, canonical: 'http://json-schema.org/draft-04/schema#' },
  { dialect: 'draft-06', uri: /^https?:\/\/json-schema\.org\/draft-06\/schema#?$/, canonical: 'http://json-schema.org/draft-06/schema#' },
  { dialect: 'draft-07', uri: /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, canonical: 'http://json-schema.org/draft-07/schema#' },
  {
    dialect: '2019-09',
    uri: /^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/,
    canonical: 'https://json-schema.org/draft/2019-09/schema',
  },
  {
    dialect: '2020-12',
    uri: /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/,
    canonical: 'https://json-schema.org/draft/2020-12/schema',
  },
];

/**
 * One Ajv per dialect, built on first use: Ajv's own class for each (ajv-draft-04 for draft-04, Ajv with the
 * draft-06 meta-schema for draft-06). `pattern` runs on RE2 (linear time, user-supplied schemas); schemas with an
 * `$id` are not registered (two tools may share one), and `strict: false` accepts the vendor keywords servers add.
 */
const OPTIONS: Options = { strict: false, allErrors: true, addUsedSchema: false, validateSchema: true, code: { regExp: re2RegExp } };
const instances = new Map<JsonSchemaDialect, AjvCore>();
function ajvFor(dialect: JsonSchemaDialect): AjvCore {
  let ajv = instances.get(dialect);
  if (!ajv) {
    switch (dialect) {
      case 'draft-04':
        ajv = new (load('ajv-draft-04') as new (options: Options) => AjvDraft07)(OPTIONS);
        break;
      case 'draft-06':
        ajv = new (load('ajv') as typeof AjvModule).Ajv(OPTIONS);
        ajv.addMetaSchema(load('ajv/dist/refs/json-schema-draft-06.json') as AnySchemaObject);
        break;
      case 'draft-07':
        ajv = new (load('ajv') as typeof AjvModule).Ajv(OPTIONS);
        break;
      case '2019-09':
        ajv = new (load('ajv/dist/2019.js') as typeof Ajv2019Module).Ajv2019(OPTIONS);
        break;
      case '2020-12':
        ajv = new (load('ajv/dist/2020.js') as typeof Ajv2020Module).Ajv2020(OPTIONS);
        break;
      default: {
        const unknown: never = dialect;
        throw new Error(`unknown dialect ${String(unknown)}`);
      }
    }
    ajv = addFormats(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

const parameterOf = (error: ErrorObject): string => {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required')
    return [path, String((error.params as { missingProperty?: string }).missingProperty)].filter(Boolean).join('.');
  if (error.keyword === 'additionalProperties')
    return [path, String((error.params as { additionalProperty?: string }).additionalProperty)].filter(Boolean).join('.');
  return path || '(arguments)';
};

const ruleOf = (error: ErrorObject): string => {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a parameter of this tool';
  if (error.keyword === 'enum') return `must be one of ${JSON.stringify((error.params as { allowedValues?: unknown[] }).allowedValues)}`;
  return error.message ?? error.keyword;
};

const checker =
  (validate: ValidateFunction) =>
  (args: unknown): ArgumentCheck =>
    validate(args)
      ? { ok: true }
      : { ok: false, problems: (validate.errors ?? []).map((error) => ({ parameter: parameterOf(error), rule: ruleOf(error) })) };

interface CacheEntry {
  compiled: CompiledToolSchema;
  /** The object Ajv compiled (its own cache is keyed by it), removed from Ajv when the entry is evicted. */
  schema?: { dialect: JsonSchemaDialect; object: AnySchemaObject };
}

/**
 * Compiled schemas by their JSON text: calls arrive as fresh objects (deserialised from the queue or the bus), and
 * compiling costs milliseconds, so identity caching would compile on every call. Bounded; an evicted schema is
 * removed from its Ajv too, so neither cache grows without limit.
 */
const cache = new LRUCache<string, CacheEntry>({
  max: 2000,
  dispose: (entry) => {
    if (entry.schema) ajvFor(entry.schema.dialect).removeSchema(entry.schema.object);
  },
});

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The dialect `$schema` names (none → 2020-12), or why it is not one Tenet validates. */
export function dialectOf(schema: Record<string, unknown>): { dialect: JsonSchemaDialect; canonical: string } | { reason: string } {
  const declared = schema['$schema'];
  if (declared === undefined) return { dialect: '2020-12', canonical: 'https://json-schema.org/draft/2020-12/schema' };
  if (typeof declared !== 'string') return { reason: '$schema must be a string' };
  const known = DIALECTS.find((candidate) => candidate.uri.test(declared.trim()));
  if (!known)
    return {
      reason: `$schema ${JSON.stringify(declared.slice(0, 200))} is not a supported dialect (draft-04, draft-06, draft-07, 2019-09 or 2020-12)`,
    };
  return known;
}

/**
 * Compiles a tool's parameter schema in the dialect its `$schema` declares. Never throws: a schema Ajv (or RE2,
 * for `pattern`) cannot compile comes back `{ ok: false, reason }`, so a registration can refuse it naming the tool
 * and a turn can set that one tool aside.
 */
export function compileToolSchema(schema: unknown): CompiledToolSchema {
  if (!isRecord(schema)) return { ok: false, reason: 'the parameter schema must be a JSON object' };
  const text = JSON.stringify(schema);
  const cached = cache.get(text);
  if (cached) return cached.compiled;
  const dialect = dialectOf(schema);
  if ('reason' in dialect) {
    const compiled: CompiledToolSchema = { ok: false, reason: dialect.reason };
    cache.set(text, { compiled });
    return compiled;
  }
  const object = { ...(JSON.parse(text) as AnySchemaObject), $schema: dialect.canonical };
  const ajv = ajvFor(dialect.dialect);
  let entry: CacheEntry;
  try {
    entry = {
      compiled: { ok: true, dialect: dialect.dialect, check: checker(ajv.compile(object)) },
      schema: { dialect: dialect.dialect, object },
    };
  } catch (error) {
    ajv.removeSchema(object);
    entry = { compiled: { ok: false, reason: error instanceof Error ? error.message : String(error) } };
  }
  cache.set(text, entry);
  return entry.compiled;
}

/** Why a tool's parameter schema cannot be used, or undefined when it compiles. */
export const toolSchemaProblem = (schema: unknown): string | undefined => {
  const compiled = compileToolSchema(schema);
  return compiled.ok ? undefined : compiled.reason;
};

/**
 * A call's arguments against the tool's parameter schema. A schema that does not compile is reported as a problem
 * of the tool (`(schema)`), not thrown.
 */
export function checkArguments(parameters: object | undefined, args: unknown): ArgumentCheck {
  if (!parameters) return { ok: true };
  const compiled = compileToolSchema(parameters);
  if (!compiled.ok)
    return { ok: false, problems: [{ parameter: '(schema)', rule: `the tool's parameter schema cannot be used: ${compiled.reason}` }] };
  return compiled.check(args);
}

export const describeProblems = (problems: readonly ArgumentProblem[]): string =>
  problems.map((p) => `${p.parameter} ${p.rule}`).join('; ');
