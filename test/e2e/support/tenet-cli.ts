import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { eventually, freePort, killGroup, runCommand, waitHealthy, type RunningCommand } from '@tenet/testing';

export const root = new URL('../../../', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the `tenet` bin as a user would (`npx tenet …` runs this file), in its own process. */
export function tenet(args: readonly string[], env: NodeJS.ProcessEnv, options: { cwd?: string; input?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${root}apps/cli/bin/tenet.mjs`, ...args], {
      cwd: options.cwd ?? root,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export interface TenetServer {
  url: string;
  running: RunningCommand;
}

/** The all-in-one host (`npm start`'s command) on a free port, the offline provider, with the given environment. */
export async function startTenet(dataDir: string, env: Record<string, string>): Promise<TenetServer> {
  const port = await freePort();
  const full: NodeJS.ProcessEnv = {
    ...process.env,
    TENET_MODE: 'embedded',
    PORT: String(port),
    TENET_DATA_DIR: dataDir,
    TENET_LLM_PROVIDER: 'offline',
    ...env,
  };
  delete full['OPENAI_API_KEY'];
  delete full['ANTHROPIC_API_KEY'];
  const running = runCommand('node --import @swc-node/register/esm-register apps/tenet/src/main.ts', { cwd: root, env: full });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, running, 300_000);
  return { url, running };
}

/** The environment of a CLI run: no provider keys, no stray TENET_* settings from the caller. */
export function cliEnv(url: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], TENET_URL: url, ...extra };
  return env;
}

/** Waits for the demo agent npm start seeds after it listens (its knowledge document comes last). */
export async function demoSeeded(url: string): Promise<void> {
  await eventually(
    async () => {
      const sources = (await (await fetch(`${url}/knowledge/sources`)).json()) as { id: string }[];
      expect(sources.map((s) => s.id)).toContain('acme-policies');
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

/** Kills the servers a spec started (their whole process groups) and removes its directory. */
export function stopAll(servers: readonly (TenetServer | undefined)[], dir: string): void {
  for (const server of servers) if (server) killGroup(server.running);
  rmSync(dir, { recursive: true, force: true });
}
