import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  checkTurn,
  compileSchema,
  DefinitionError,
  parseChecked,
  ScenarioFileSchema,
  type DefinitionProblem,
  type Scenario,
  type ScenarioFile,
  type ScenarioOutcome,
  type ScenarioRun,
} from '@tenet/cli-domain';
import { CliError, type TenetApi } from './api-client.js';
import { Conversation } from './conversation.js';

const validateScenarios = compileSchema<ScenarioFile>(ScenarioFileSchema);

export interface LoadedScenario {
  file: string;
  scenario: Scenario;
  agent: string;
}

/** Every scenario under `path` (a file, or *.yaml / *.yml / *.json in a directory tree), checked before any runs. */
export function loadScenarios(path: string): LoadedScenario[] {
  const full = resolve(path);
  const files = statSync(full, { throwIfNoEntry: false })?.isDirectory()
    ? walk(full)
    : statSync(full, { throwIfNoEntry: false })
      ? [full]
      : [];
  if (files.length === 0) throw new CliError(`${path} holds no scenario files (*.yaml, *.yml, *.json)`);
  const problems: DefinitionProblem[] = [];
  const loaded: LoadedScenario[] = [];
  for (const file of files) {
    const name = relative(process.cwd(), file) || file;
    try {
      const { value, lineOf } = parseChecked(readFileSync(file, 'utf8'), name, validateScenarios);
      value.scenarios.forEach((scenario, index) => {
        const agent = scenario.agent ?? value.agent;
        if (!agent)
          problems.push({
            file: name,
            line: lineOf(['scenarios', index]),
            path: `scenarios.${index}`,
            message: 'agent is required (on the scenario or the file)',
          });
        else loaded.push({ file: name, scenario, agent });
      });
    } catch (error) {
      if (error instanceof DefinitionError) problems.push(...error.problems);
      else throw error;
    }
  }
  if (problems.length > 0) throw new DefinitionError(problems);
  return loaded;
}

function walk(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) =>
      entry.isDirectory() ? walk(join(directory, entry.name)) : /\.(ya?ml|json)$/i.test(entry.name) ? [join(directory, entry.name)] : [],
    );
}

/** Runs one scenario once: a new session, each customer turn in order, each turn's expectations checked. */
export async function runScenario(api: TenetApi, loaded: LoadedScenario, timeoutMs: number): Promise<ScenarioRun> {
  const started = Date.now();
  const run: ScenarioRun = { turns: [], durationMs: 0 };
  try {
    const conversation = await Conversation.open(api, loaded.agent, {
      ...(loaded.scenario.customer ? { customerId: loaded.scenario.customer } : {}),
      title: `tenet test: ${loaded.scenario.name}`,
    });
    for (const turn of loaded.scenario.turns) {
      const observed = await conversation.say(turn.customer, timeoutMs);
      const variable = turn.expect?.variable ? await conversation.variable(turn.expect.variable.id) : undefined;
      run.turns.push({ customer: turn.customer, results: checkTurn(turn.expect, observed, variable) });
    }
  } catch (error) {
    if (!(error instanceof CliError) || error.exitCode !== 1) throw error; // connection and auth problems stop the suite
    run.error = error.message;
  }
  run.durationMs = Date.now() - started;
  return run;
}

/** Runs every scenario `repeat` times (repeats show which expectations are flaky with a real model). */
export async function runScenarios(
  api: TenetApi,
  scenarios: readonly LoadedScenario[],
  options: { repeat: number; timeoutMs: number },
): Promise<ScenarioOutcome[]> {
  const outcomes: ScenarioOutcome[] = [];
  for (const loaded of scenarios) {
    const runs: ScenarioRun[] = [];
    for (let i = 0; i < options.repeat; i++) runs.push(await runScenario(api, loaded, options.timeoutMs));
    outcomes.push({ file: loaded.file, name: loaded.scenario.name, runs });
  }
  return outcomes;
}
