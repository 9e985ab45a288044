import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { loadConfigOrExit } from '@tenet/config';
import {
  agentDefinitionJsonSchema,
  DefinitionError,
  formatProblem,
  liveStatus,
  renderBehaviourDiff,
  renderJunit,
  renderPlan,
  renderReport,
  renderTurn,
  scenarioPassed,
} from '@tenet/cli-domain';
import {
  allAgentIds,
  applyPlans,
  CliError,
  connectionFrom,
  Conversation,
  exportAgents,
  loadDefinitions,
  loadScenarios,
  parseSessionFilter,
  planDefinitions,
  preflight,
  replay,
  runScenarios,
  TenetApi,
  withScratchServer,
} from '@tenet/cli-client';
import { completionScript } from './completion.js';

// The CLI's variables (docs/configuration.md), validated before any command runs: a bad one is named, and the CLI exits 78.
loadConfigOrExit('cli', process.env);

const SCHEMA_PATH = fileURLToPath(new URL('../schema/agent-definition.schema.json', import.meta.url));

const out = (text: string): void => {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
};

const program = new Command('tenet')
  .description("Tenet's command line: agents as code (apply, diff, export), chat, conversation tests and replay, over Tenet's REST API.")
  .addOption(new Option('--url <url>', 'Tenet server address').env('TENET_URL').default('http://127.0.0.1:8800'))
  .option('--workspace <id>', 'the workspace meant: uses TENET_API_KEY_<ID> if set, and refuses a key of another workspace')
  .showHelpAfterError()
  .addHelpText('after', '\nEnvironment: TENET_URL (server), TENET_API_KEY (Bearer key; TENET_API_KEY_<WORKSPACE> with --workspace).');

const api = (): TenetApi => new TenetApi(connectionFrom(process.env, program.opts<{ url?: string; workspace?: string }>()));

program
  .command('apply')
  .description('make the server match the definition files: create, update and (with --prune) delete, in dependency order')
  .requiredOption('-f, --file <path>', 'a definition file, or a directory of them (*.yaml, *.yml, *.json)')
  .option('--prune', "delete the agents' resources the files no longer name (never tool services)", false)
  .option('--dry-run', 'validate and print the plan without writing', false)
  .action(async (options: { file: string; prune: boolean; dryRun: boolean }) => {
    const client = api();
    await client.checkWorkspace();
    const plans = await planDefinitions(client, loadDefinitions(options.file, process.env), { prune: options.prune });
    if (options.dryRun) {
      await preflight(client, plans);
      for (const { definition, plan } of plans) out(`agent ${definition.agentId}:\n${renderPlan(plan)}`);
      return;
    }
    const reports = await applyPlans(client, plans);
    for (const [index, report] of reports.entries()) {
      const unmanaged = plans[index]?.plan.unmanaged ?? [];
      if (report.done.length === 0) out(`agent ${report.agentId}: no changes (the server already matches the definitions)`);
      else out(`agent ${report.agentId}: ${report.done.length} change(s)\n${report.done.map((line) => `  ${line}`).join('\n')}`);
      if (unmanaged.length > 0)
        out(`  not in the files (kept; --prune deletes them): ${unmanaged.map((u) => `${u.kind} ${u.key}`).join(', ')}`);
    }
  });

program
  .command('diff')
  .description('print what apply would change, field by field (exit code 0 either way; --exit-code: 1 when there are changes)')
  .requiredOption('-f, --file <path>', 'a definition file, or a directory of them')
  .option('--prune', 'include the deletions apply --prune would make', false)
  .option('--exit-code', 'exit with 1 when apply would change something', false)
  .action(async (options: { file: string; prune: boolean; exitCode: boolean }) => {
    const plans = await planDefinitions(api(), loadDefinitions(options.file, process.env), { prune: options.prune });
    for (const { definition, plan } of plans) out(`agent ${definition.agentId}:\n${renderPlan(plan)}`);
    if (options.exitCode && plans.some((p) => p.plan.changes.length > 0)) process.exitCode = 1;
  });

program
  .command('export')
  .description("write agents' current definitions as files that apply reproduces")
  .argument('[agents...]', 'agent ids')
  .option('--all', 'every agent of the workspace', false)
  .option('-o, --out <dir>', 'directory to write <agent id>.yaml (and knowledge/) into; default: print YAML')
  .option('--knowledge-from <dir...>', 'directories holding knowledge documents (matched by content)')
  .action(async (agents: string[], options: { all: boolean; out?: string; knowledgeFrom?: string[] }) => {
    const client = api();
    const ids = options.all ? await allAgentIds(client) : agents;
    if (ids.length === 0) throw new CliError('name the agents to export, or --all');
    const result = await exportAgents(client, ids, {
      ...(options.out ? { out: options.out } : {}),
      ...(options.knowledgeFrom ? { knowledgeFrom: options.knowledgeFrom } : {}),
      schemaPath: SCHEMA_PATH,
    });
    for (const warning of result.warnings) process.stderr.write(`warning: ${warning}\n`);
    for (const [agentId, value] of result.files) out(options.out ? `exported ${agentId} to ${value}` : value);
  });

const positive =
  (name: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new CliError(`${name} must be a positive integer`);
    return n;
  };

program
  .command('chat')
  .description('talk to an agent in the terminal: its reply, matched guidelines, tool calls, journey step and cited sources')
  .argument('<agent>', 'agent id')
  .option('-m, --message <text...>', 'send these messages in order and exit (default: read lines from the terminal or stdin)')
  .option('--customer <id>', 'customer id (default: the guest customer)')
  .option('--json', 'one JSON object per turn (for scripts)', false)
  .action(async (agent: string, options: { message?: string[]; customer?: string; json: boolean }) => {
    const client = api();
    const profile = await client.get<{ name: string }>(`/agents/${encodeURIComponent(agent)}`);
    const conversation = await Conversation.open(client, agent, options.customer ? { customerId: options.customer } : {});
    // The API has no partial messages (a reply is one event): while the turn runs, its status changes and tool calls
    // are shown on stderr as the long-poll returns them — in place on a terminal — and the reply with its report on stdout.
    const live = !options.json;
    const progress = (text: string): void => {
      if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K  ${profile.name}: ${text}`);
      else process.stderr.write(`  ${profile.name}: ${text}\n`);
    };
    const turn = async (message: string): Promise<void> => {
      const observed = await conversation.say(message, undefined, (event) => {
        const status = live ? liveStatus(event) : undefined;
        if (status) progress(status);
      });
      if (live && process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
      out(options.json ? JSON.stringify({ session_id: conversation.sessionId, ...observed }) : renderTurn(observed, profile.name));
    };
    if (!options.json) out(`session ${conversation.sessionId} with ${profile.name} — type a message, Ctrl-D to end`);
    if (options.message) {
      for (const message of options.message) await turn(message);
      return;
    }
    const lines = createInterface({ input: process.stdin, ...(process.stdin.isTTY ? { output: process.stdout, prompt: 'you> ' } : {}) });
    if (process.stdin.isTTY) lines.prompt();
    for await (const line of lines) {
      if (line.trim()) await turn(line.trim());
      if (process.stdin.isTTY) lines.prompt();
    }
  });

program
  .command('test')
  .description('run conversation scenarios (YAML) against a server; exit code 1 when any expectation fails')
  .argument('<path>', 'a scenario file, or a directory of them')
  .option('--repeat <n>', 'run each scenario n times and report flaky expectations', positive('--repeat'), 1)
  .option('--junit <file>', 'also write a JUnit XML report')
  .option('--timeout <secs>', 'seconds to wait for each reply', positive('--timeout'), 120)
  .option('--embedded <definitions>', 'start a scratch server, apply these definitions to it and test there (instead of TENET_URL)')
  .action(async (path: string, options: { repeat: number; junit?: string; timeout: number; embedded?: string }) => {
    const scenarios = loadScenarios(path);
    const run = (client: TenetApi) => runScenarios(client, scenarios, { repeat: options.repeat, timeoutMs: options.timeout * 1000 });
    const outcomes = options.embedded
      ? await withScratchServer(loadDefinitions(options.embedded, process.env), process.env, run)
      : await run(api());
    if (options.junit) writeFileSync(options.junit, renderJunit(outcomes));
    out(renderReport(outcomes));
    if (!outcomes.every(scenarioPassed)) process.exitCode = 1;
  });

program
  .command('replay')
  .description(
    "re-run live sessions' customer turns against changed definitions on a scratch server; report turns whose matched guidelines change",
  )
  .requiredOption('--sessions <filter>', 'agent:<agent id> (its most recent sessions) or session ids, comma-separated')
  .requiredOption('--against <path>', 'the changed definitions (file or directory)')
  .option('--limit <n>', 'at most this many sessions of an agent', positive('--limit'), 20)
  .option('--exit-code', 'exit with 1 when any turn would change', false)
  .action(async (options: { sessions: string; against: string; limit: number; exitCode: boolean }) => {
    const definitions = loadDefinitions(options.against, process.env);
    const result = await replay(api(), parseSessionFilter(options.sessions, options.limit), definitions, process.env, (line) =>
      process.stderr.write(`${line}\n`),
    );
    out(renderBehaviourDiff(result.differences, result.replayedTurns));
    if (options.exitCode && result.differences.length > 0) process.exitCode = 1;
  });

program
  .command('schema')
  .description('print the JSON Schema of definition files')
  .action(() => out(JSON.stringify(agentDefinitionJsonSchema(), null, 2)));

program
  .command('completion')
  .description('print a shell completion script: eval "$(tenet completion bash)" (or zsh)')
  .argument('<shell>', 'bash or zsh')
  .action((shell: string) => {
    if (shell !== 'bash' && shell !== 'zsh') throw new CliError('completion is available for bash and zsh');
    out(completionScript(program, shell));
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof DefinitionError) {
    const written = error.applied.length === 0 ? 'nothing was written' : `already applied before the refusal: ${error.applied.join(', ')}`;
    process.stderr.write(`refused (${written}):\n${error.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}\n`);
    process.exitCode = 4;
  } else if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else throw error;
}
