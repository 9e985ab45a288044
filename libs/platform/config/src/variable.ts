import { z } from 'zod';

/** The processes Tenet runs; each has one configuration schema (the variables it reads). */
export const PROCESSES = [
  'tenet',
  'session-gateway',
  'guideline-matcher',
  'journey-engine',
  'tool-executor',
  'memory-store',
  'metering',
  'channel-gateway',
  'start-distributed',
  'cli',
] as const;
export type ProcessName = (typeof PROCESSES)[number];

/** What one environment variable is: how a set value is read, what it must be, and who reads it. */
export interface Variable<T> {
  /** Completes "NAME must be …" in the start-up error: `an integer ≥ 1000 (milliseconds)`. */
  readonly rule: string;
  /** Reads a set value; a failure means the value breaks `rule`. */
  readonly schema: z.ZodType<T, string>;
  /** The value when the variable is unset (and, unless `blankIsValue`, when it is empty). */
  readonly fallback: T;
  /** The default as the documentation states it (`—` when there is none). */
  readonly defaultText: string;
  readonly description: string;
  readonly readBy: readonly ProcessName[];
  /** An empty value is checked like any other (today's parsers refused it) instead of meaning "unset". */
  readonly blankIsValue: boolean;
  /** A secret: the start-up error never repeats its value. */
  readonly secret: boolean;
}

/** How a value is read (`schema`) and what the rule says; the builders below make the common ones. */
export interface Rule<T> {
  rule: string;
  schema: z.ZodType<T, string>;
}

interface Described {
  description: string;
  readBy: readonly ProcessName[];
  blankIsValue?: boolean;
  secret?: boolean;
}

/** A variable with a default: its value is always a `T`. */
export function withDefault<T>(rule: Rule<T>, fallback: T, spec: Described & { defaultText?: string }): Variable<T> {
  return {
    ...rule,
    fallback,
    defaultText: spec.defaultText ?? (typeof fallback === 'string' ? `\`${fallback}\`` : JSON.stringify(fallback)),
    description: spec.description,
    readBy: spec.readBy,
    blankIsValue: spec.blankIsValue ?? false,
    secret: spec.secret ?? false,
  };
}

/** A variable without a default: unset is `undefined` (the reader decides what that means, in `defaultText`). */
export function optional<T>(rule: Rule<T>, spec: Described & { defaultText?: string }): Variable<T | undefined> {
  return {
    ...rule,
    fallback: undefined,
    defaultText: spec.defaultText ?? '—',
    description: spec.description,
    readBy: spec.readBy,
    blankIsValue: spec.blankIsValue ?? false,
    secret: spec.secret ?? false,
  };
}

// ---- rules ---------------------------------------------------------------------------------------------------

const within = (value: number, min: number, max: number | undefined): boolean => value >= min && (max === undefined || value <= max);
const range = (min: number, max: number | undefined): string => (max === undefined ? `≥ ${min}` : `from ${min} to ${max}`);

/** A JavaScript number that is an integer (`Number(text)`: surrounding spaces and `1e3` pass), within bounds. */
export function integer(min: number, max?: number, unit = ''): Rule<number> {
  return {
    rule: `an integer ${range(min, max)}${unit ? ` (${unit})` : ''}`,
    schema: z.string().transform((text, ctx) => {
      const value = Number(text.trim());
      if (!Number.isInteger(value) || !within(value, min, max)) ctx.addIssue({ code: 'custom', message: 'out of rule' });
      return value;
    }),
  };
}

/** Decimal digits only (no sign, no spaces), within bounds. */
export function digits(min: number, max?: number, rule?: string): Rule<number> {
  return {
    rule: rule ?? `an integer ${range(min, max)}`,
    schema: z.string().transform((text, ctx) => {
      const value = Number(text);
      if (!/^\d+$/.test(text) || !within(value, min, max)) ctx.addIssue({ code: 'custom', message: 'out of rule' });
      return value;
    }),
  };
}

/** One of a few words; `loose` trims and ignores case. */
export function oneOf<const W extends string>(words: readonly W[], options: { loose?: boolean; rule?: string } = {}): Rule<W> {
  return {
    rule: options.rule ?? `one of ${words.join(', ')}`,
    schema: z.string().transform((text, ctx) => {
      const word = options.loose ? text.trim().toLowerCase() : text;
      if (!(words as readonly string[]).includes(word)) ctx.addIssue({ code: 'custom', message: 'out of rule' });
      return word as W;
    }),
  };
}

/** Any text (trimmed when `trim`); `pattern` narrows it. */
export function text(options: { trim?: boolean; pattern?: RegExp; minLength?: number; rule?: string } = {}): Rule<string> {
  return {
    rule: options.rule ?? 'any text',
    schema: z.string().transform((raw, ctx) => {
      const value = options.trim ? raw.trim() : raw;
      if ((options.pattern && !options.pattern.test(value)) || value.length < (options.minLength ?? 0))
        ctx.addIssue({ code: 'custom', message: 'out of rule' });
      return value;
    }),
  };
}

/** A URL with one of `protocols` (`nats:`), trailing slashes removed when `stripSlash`. */
export function url(protocols: readonly string[], options: { stripSlash?: boolean; example?: string } = {}): Rule<string> {
  return {
    rule: `a URL with ${protocols.map((p) => p.replace(/:$/, '')).join(' or ')}${options.example ? ` (e.g. ${options.example})` : ''}`,
    schema: z.string().transform((raw, ctx) => {
      try {
        if (!protocols.includes(new URL(raw).protocol)) ctx.addIssue({ code: 'custom', message: 'out of rule' });
      } catch {
        ctx.addIssue({ code: 'custom', message: 'out of rule' });
      }
      return options.stripSlash ? raw.replace(/\/+$/, '') : raw;
    }),
  };
}

/** Comma-separated entries (trimmed, blanks dropped, duplicates kept once), each matching `entry`. */
export function list(entry: RegExp, rule: string, options: { lowercase?: boolean } = {}): Rule<string[]> {
  return {
    rule,
    schema: z.string().transform((raw, ctx) => {
      const entries = raw
        .split(',')
        .map((e) => (options.lowercase ? e.trim().toLowerCase() : e.trim()))
        .filter(Boolean);
      if (!entries.every((e) => entry.test(e))) ctx.addIssue({ code: 'custom', message: 'out of rule' });
      return [...new Set(entries)];
    }),
  };
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };

/** `512MB`, `10GB`, `2048`: a positive size in bytes, or undefined when the text is not one. */
export function sizeInBytes(raw: string): number | undefined {
  const match = /^(\d+)\s*([kmgt]?b?)$/i.exec(raw.trim());
  if (!match || Number(match[1]) <= 0) return undefined;
  return Number(match[1]) * (SIZE_UNITS[(match[2] ?? '').toLowerCase().replace(/^([kmgt])$/, '$1b')] ?? 1);
}

/** A positive size in bytes (`512MB`); `unlimited` also accepts -1. */
export function size(rule: string, options: { unlimited?: boolean } = {}): Rule<number> {
  return {
    rule,
    schema: z.string().transform((raw, ctx) => {
      if (options.unlimited && raw.trim() === '-1') return -1;
      const bytes = sizeInBytes(raw);
      if (bytes === undefined) ctx.addIssue({ code: 'custom', message: 'out of rule' });
      return bytes ?? 0;
    }),
  };
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `7d`, `12h`, `30m`, `500ms` or `0`, in milliseconds. */
export function duration(rule: string): Rule<number> {
  return {
    rule,
    schema: z.string().transform((raw, ctx) => {
      const match = /^(\d+)(ms|s|m|h|d)$/.exec(raw.trim()) ?? (raw.trim() === '0' ? ['0', '0', 'ms'] : null);
      if (!match) ctx.addIssue({ code: 'custom', message: 'out of rule' });
      return match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? 'ms'] ?? 1) : 0;
    }),
  };
}

/** JSON checked by a zod schema (`rule` says what it must hold). */
export function json<T>(shape: z.ZodType<T>, rule: string): Rule<T> {
  return {
    rule,
    schema: z.string().transform((raw, ctx) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not JSON' });
        return z.NEVER;
      }
      const result = shape.safeParse(parsed);
      if (!result.success) {
        ctx.addIssue({ code: 'custom', message: 'out of rule' });
        return z.NEVER;
      }
      return result.data;
    }),
  };
}

/** Either a word (`off`) meaning `value`, or what `base` reads. */
export function orWord<T, W>(word: string, value: W, base: Rule<T>, rule: string): Rule<T | W> {
  return {
    rule,
    schema: z.string().transform((raw, ctx) => {
      if (raw.trim().toLowerCase() === word) return value;
      const result = base.schema.safeParse(raw);
      if (!result.success) {
        ctx.addIssue({ code: 'custom', message: 'out of rule' });
        return z.NEVER;
      }
      return result.data;
    }),
  };
}
