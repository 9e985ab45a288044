import { createRequire } from 'node:module';
import type * as ClassTransformer from 'class-transformer';
import type { ValidationError } from 'class-validator';
import { classValidatorCore, ValidationError as ValidationErrorClass } from './validation-rules.js';

// class-transformer (CommonJS only: the same instance the DTOs import) is loaded at the first PATCH checked, not by
// every process that imports the platform runtime; class-validator's core comes from validation-rules.ts (ADR 0035).
const load = createRequire(import.meta.url);

type DtoClass = abstract new (...args: never[]) => object;

export interface PatchRules {
  creation: DtoClass;
  /** Fields whose PATCH form is not the create form (`tags: {add, remove}`, `metadata: {set, unset}`): own rules only. */
  differs: ReadonlySet<string>;
  /** Fields a PATCH may clear with `null` (the stored resource then lacks them, as a create that left them out). */
  clears: ReadonlySet<string>;
}

const RULES = new WeakMap<object, PatchRules>();

/**
 * Declares a resource's PATCH DTO: every field a PATCH body gives is held to the create DTO's rules for that field
 * too — the same `loc` and `msg` as POST — so a PATCH can never store what a create would refuse (a
 * `null` where create demands an array once broke every turn; ADR 0023). Fields whose PATCH form differs are listed in `differs`;
 * fields that `null` clears in `clears`. test/api/patch-parity.int.spec.ts checks every PATCH route has one. Here, in the platform, so every service's DTOs (the gateway's, the channel gateway's) can declare it.
 */
export function PatchOf(creation: DtoClass, options: { differs?: readonly string[]; clears?: readonly string[] } = {}): ClassDecorator {
  return (target) => {
    RULES.set(target, { creation, differs: new Set(options.differs ?? []), clears: new Set(options.clears ?? []) });
  };
}

/** The create DTO a PATCH DTO is held to, and its declared exceptions, if it declared one. */
export const patchRulesOf = (update: unknown): Readonly<PatchRules> | undefined =>
  typeof update === 'function' ? RULES.get(update) : undefined;

/** The create rules a PATCH body breaks (empty when none, or when its DTO declares no `PatchOf`). */
export function createRuleErrors(update: unknown, body: unknown): ValidationError[] {
  const { plainToInstance } = load('class-transformer') as typeof ClassTransformer;
  const rules = typeof update === 'function' ? RULES.get(update) : undefined;
  if (!rules || typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const entries = Object.entries(body as Record<string, unknown>).filter(
    ([field, value]) => value !== undefined && !(value === null && rules.clears.has(field)),
  );
  // A PATCH form (`{add, remove}`) is an object: `null` is none of them, and clears nothing that is not declared so.
  const nulls: ValidationError[] = entries
    .filter(([field, value]) => value === null && rules.differs.has(field))
    .map(([field]) =>
      Object.assign(new ValidationErrorClass(), { property: field, constraints: { isNotNull: `${field} must not be null` }, children: [] }),
    );
  const given = entries.filter(([field]) => !rules.differs.has(field));
  if (given.length === 0) return nulls;
  const fields = new Set(given.map(([field]) => field));
  const candidate = plainToInstance(rules.creation as new () => object, Object.fromEntries(given));
  return [
    ...nulls,
    ...classValidatorCore
      .validateSync(candidate, { validationError: { target: false, value: false }, forbidUnknownValues: false })
      .filter((error) => fields.has(error.property)),
  ];
}
