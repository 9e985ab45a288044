import { z } from 'zod';
import { PROCESSES, type ProcessName, type Variable } from './variable.js';
import { VARIABLES, type Settings, type VariableName } from './variables.js';

export type Env = Record<string, string | undefined>;

/** A configuration that breaks the rules: every problem, each naming the variable and its rule. */
export class ConfigError extends Error {
  readonly code = 'CONFIG.INVALID';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

const variable = (name: VariableName): Variable<unknown> => VARIABLES[name] as Variable<unknown>;

/** What a value looked like, for the error: a secret's value is never repeated. */
const shown = (name: VariableName, raw: string): string => (variable(name).secret ? `${raw.length} characters` : JSON.stringify(raw));

/** The zod schema of one variable: the raw environment text (or its absence) to its value. */
function entry(name: VariableName): z.ZodType<unknown, string | undefined> {
  const spec = variable(name);
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || (raw === '' && !spec.blankIsValue)) return spec.fallback;
      const result = spec.schema.safeParse(raw);
      if (result.success) return result.data;
      ctx.addIssue({ code: 'custom', message: `${name} must be ${spec.rule} (got ${shown(name, raw)})` });
      return z.NEVER;
    });
}

/** Cross-variable rules (each problem names the variables). */
function crossChecks(values: Partial<Record<VariableName, unknown>>, names: ReadonlySet<VariableName>): string[] {
  const problems: string[] = [];
  if (
    names.has('TENET_SECRETS_KEY_PREVIOUS') &&
    values.TENET_SECRETS_KEY_PREVIOUS !== undefined &&
    values.TENET_SECRETS_KEY === undefined
  ) {
    problems.push('TENET_SECRETS_KEY_PREVIOUS is set without TENET_SECRETS_KEY');
  }
  return problems;
}

/** The variables a process reads: its configuration schema. */
export function variablesOf(processName: ProcessName): VariableName[] {
  return (Object.keys(VARIABLES) as VariableName[]).filter((name) => variable(name).readBy.includes(processName));
}

/** One zod object schema per process, over the variables it reads. */
export function schemaOf(processName: ProcessName): z.ZodType<Partial<Settings>, Env> {
  return schemaFor(variablesOf(processName));
}

function schemaFor(names: readonly VariableName[]): z.ZodType<Partial<Settings>, Env> {
  return z.object(Object.fromEntries(names.map((name) => [name, entry(name)]))) as unknown as z.ZodType<Partial<Settings>, Env>;
}

function parse<N extends VariableName>(names: readonly N[], env: Env): Pick<Settings, N> {
  const picked = Object.fromEntries(names.map((name) => [name, env[name]]));
  const result = schemaFor(names).safeParse(picked);
  const problems = result.success ? crossChecks(result.data, new Set(names)) : result.error.issues.map((issue) => issue.message);
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data as Pick<Settings, N>;
}

/**
 * Reads some variables (their rules and defaults from the one schema); throws `ConfigError` naming every bad one.
 * How the older `*From(env)` parsers of the libs read the environment.
 */
export function readSettings<const N extends VariableName>(env: Env, names: readonly N[]): Pick<Settings, N> {
  return parse(names, env);
}

/**
 * A process's validated configuration: the value of every variable its schema holds. Asking for a variable the
 * process's schema does not list fails loudly, so a module composed into the wrong host is found at start.
 */
export class TenetConfig {
  private readonly names: ReadonlySet<VariableName>;

  constructor(
    readonly processName: ProcessName,
    private readonly values: Partial<Settings>,
  ) {
    this.names = new Set(variablesOf(processName));
  }

  get<N extends VariableName>(name: N): Settings[N] {
    if (!this.names.has(name))
      throw new ConfigError([`${name} is not in the ${this.processName} configuration schema (libs/platform/config/src/variables.ts)`]);
    return this.values[name] as Settings[N];
  }

  /** Several variables at once (each as `get` gives it). */
  pick<const N extends VariableName>(names: readonly N[]): Pick<Settings, N> {
    return Object.fromEntries(names.map((name) => [name, this.get(name)])) as Pick<Settings, N>;
  }
}

/** Validates the environment against a process's schema, once at start; throws `ConfigError` naming every bad variable. */
export function loadConfig(processName: ProcessName, env: Env): TenetConfig {
  if (!PROCESSES.includes(processName)) throw new ConfigError([`no configuration schema for process "${String(processName)}"`]);
  return new TenetConfig(processName, parse(variablesOf(processName), env));
}

/**
 * `loadConfig` for a process's entry point: a bad configuration is printed, one variable a line, and the process
 * exits with status 78 (EX_CONFIG) before it opens anything.
 */
export function loadConfigOrExit(processName: ProcessName, env: Env): TenetConfig {
  try {
    return loadConfig(processName, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(
      `${processName}: invalid configuration (docs/configuration.md)\n${error.problems.map((p) => `  ${p}\n`).join('')}`,
    );
    process.exit(78);
  }
}
