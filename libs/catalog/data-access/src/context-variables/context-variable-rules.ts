import { isDeepStrictEqual } from 'node:util';
import { compileUserPattern, type UserPattern } from '@tenet/llm';
import { type ValidationDetail, violation } from '@tenet/edge';
import type { DataType, ValueRules } from './context-variable.dto.js';

export interface ValueDefinition {
  /** Absent: any JSON value. */
  data_type?: DataType | undefined;
  validation?: ValueRules | undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A variable's data types on JSON values; a Date is an ISO-8601 string (JSON has no date type). */
function hasType(type: DataType, value: unknown): boolean {
  switch (type) {
    case 'String':
      return typeof value === 'string';
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'Boolean':
      return typeof value === 'boolean';
    case 'Date':
      return (
        typeof value === 'string' &&
        /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) &&
        !Number.isNaN(Date.parse(value))
      );
    case 'Array':
      return Array.isArray(value);
    case 'Object':
      return isPlainObject(value);
  }
}

/** Why `value` may not be stored for a variable with this definition (empty when it may). */
export function valueProblems(definition: ValueDefinition, value: unknown, field: string): string[] {
  if (definition.data_type !== undefined && !hasType(definition.data_type, value))
    return [`${field} must be a ${definition.data_type} (the variable's data_type)`];
  const rules = definition.validation ?? {};
  const problems: string[] = [];
  if (rules.pattern !== undefined && typeof value === 'string' && !compiles(rules.pattern)?.test(value))
    problems.push(`${field} must match pattern ${rules.pattern}`);
  if (typeof value === 'number') {
    if (rules.min !== undefined && value < rules.min) problems.push(`${field} must not be less than ${rules.min}`);
    if (rules.max !== undefined && value > rules.max) problems.push(`${field} must not be greater than ${rules.max}`);
  }
  if (typeof value === 'string' || Array.isArray(value)) {
    if (rules.min_length !== undefined && value.length < rules.min_length)
      problems.push(`${field} must have a length of at least ${rules.min_length}`);
    if (rules.max_length !== undefined && value.length > rules.max_length)
      problems.push(`${field} must have a length of at most ${rules.max_length}`);
  }
  if (rules.allowed_values !== undefined && !rules.allowed_values.some((allowed) => isDeepStrictEqual(allowed, value)))
    problems.push(`${field} must be one of the allowed_values`);
  return problems;
}

/** User patterns run on RE2 (linear time): `^(a+)+$` cannot freeze the server. */
function compiles(pattern: string): UserPattern | undefined {
  const compiled = compileUserPattern(pattern);
  return compiled.ok ? compiled.pattern : undefined;
}

/** Rules that span fields (docs/data-model.md#context-variables): valid pattern, min <= max, min_length <= max_length, default_value fits. */
export function definitionProblems(definition: ValueDefinition & { default_value?: unknown }): ValidationDetail[] {
  const rules = definition.validation ?? {};
  const details: ValidationDetail[] = [];
  const pattern = rules.pattern === undefined ? undefined : compileUserPattern(rules.pattern);
  if (pattern && !pattern.ok)
    details.push(
      violation(['validation', 'pattern'], `pattern must be a valid regular expression: ${pattern.reason}`, 'value_error.regex'),
    );
  if (rules.min !== undefined && rules.max !== undefined && rules.min > rules.max) {
    details.push(violation(['validation', 'min'], 'min must be less than or equal to max', 'value_error.range'));
    details.push(violation(['validation', 'max'], 'max must be greater than or equal to min', 'value_error.range'));
  }
  if (rules.min_length !== undefined && rules.max_length !== undefined && rules.min_length > rules.max_length) {
    details.push(violation(['validation', 'min_length'], 'min_length must be less than or equal to max_length', 'value_error.range'));
    details.push(violation(['validation', 'max_length'], 'max_length must be greater than or equal to min_length', 'value_error.range'));
  }
  if (definition.default_value !== undefined && details.length === 0) {
    for (const msg of valueProblems(definition, definition.default_value, 'default_value'))
      details.push(violation(['default_value'], msg, 'value_error.default_value'));
  }
  return details;
}

/** Drops `null`s (JSON's "not set") so stored rules only hold what applies. */
export function normalizeRules(rules: Record<string, unknown> | null | undefined): ValueRules | undefined {
  if (!rules) return undefined;
  const kept = Object.fromEntries(Object.entries(rules).filter(([, value]) => value !== null && value !== undefined)) as ValueRules;
  return Object.keys(kept).length > 0 ? kept : undefined;
}
