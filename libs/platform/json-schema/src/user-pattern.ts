import { createRequire } from 'node:module';
import type { RE2JS as RE2JSClass } from 're2js';

// re2js (a 260 kB module) is required with the first pattern compiled (ADR 0035): every host that checks tool
// arguments or context variables imports this file, and few compile a user pattern while idle. Its CommonJS build,
// so the load stays synchronous; the package ships both builds of the same code.
const load = createRequire(import.meta.url);
let engine: typeof RE2JSClass | undefined;
const re2js = (): typeof RE2JSClass => (engine ??= (load('re2js') as { RE2JS: typeof RE2JSClass }).RE2JS);

/**
 * A regular expression written by an API user (a context variable's `validation.pattern`, a tool parameter's
 * JSON-Schema `pattern`). It runs on RE2 semantics (re2js, a port of Google's RE2), whose matching time is
 * linear in the input, so no pattern can stall the event loop the way `^(a+)+$` does with `RegExp`.
 *
 * re2js rather than the native `re2` binding: no node-gyp build in the image, identical on every platform.
 */
export interface UserPattern {
  /** JSON-Schema semantics: true when the pattern matches anywhere in `value` (anchor it to match all of it). */
  test(value: string): boolean;
  /** `/source/`, like a RegExp (ajv keys compiled patterns by it). */
  toString(): string;
}

export type CompiledPattern = { ok: true; pattern: UserPattern } | { ok: false; reason: string };

const LOOKAROUND = /\(\?<?[=!]/;
const BACKREFERENCE = /\\[1-9]|\\k</;

/** Compiles `source`, or says why RE2 refuses it (backreferences and lookaround need backtracking). */
export function compileUserPattern(source: string): CompiledPattern {
  const RE2JS = re2js(); // outside the try: a missing package is an error of its own, not a refused pattern
  try {
    const compiled = RE2JS.compile(source);
    return { ok: true, pattern: { test: (value) => compiled.matcher(value).find(), toString: () => `/${source}/` } };
  } catch (error) {
    if (LOOKAROUND.test(source))
      return { ok: false, reason: 'lookaround assertions ((?=, (?!, (?<=, (?<!) are not supported (patterns run on RE2, in linear time)' };
    if (BACKREFERENCE.test(source))
      return { ok: false, reason: 'backreferences (\\1, \\k<name>) are not supported (patterns run on RE2, in linear time)' };
    return { ok: false, reason: `not a valid RE2 regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * The same engine for ajv (`new Ajv({ code: { regExp: re2RegExp } })`): JSON-Schema `pattern` and
 * `patternProperties` of user-supplied schemas (tool parameters) then run in linear time too. A pattern RE2
 * cannot run fails the schema's compilation, with the reason.
 */
export const re2RegExp = Object.assign(
  (source: string): UserPattern => {
    const compiled = compileUserPattern(source);
    if (!compiled.ok) throw new SyntaxError(`pattern ${source}: ${compiled.reason}`);
    return compiled.pattern;
  },
  { code: 'compileUserPattern' },
);
