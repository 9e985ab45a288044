import { ConfigError, readSettings, type Settings, type VariableName } from '@tenet/config';
import { LlmConfigurationError } from './errors.js';

/** Variables read from the environment by their rules in `@tenet/config`; a bad one is `LLM.CONFIGURATION`, naming it. */
export function llmSettings<const N extends VariableName>(env: Record<string, string | undefined>, names: readonly N[]): Pick<Settings, N> {
  try {
    return readSettings(env, names);
  } catch (error) {
    throw error instanceof ConfigError ? new LlmConfigurationError(error.problems.join('; ')) : error;
  }
}

export const set = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value.trim();
