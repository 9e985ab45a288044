import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A command a test started: its output so far, and its exit code once it has exited. */
export interface RunningCommand {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Runs `command` (through `sh -c exec`) as the leader of its own process group, so that `killGroup` also reaches
 * every process it started — a launcher killed alone would leave its services running after the suite.
 */
export function runCommand(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): RunningCommand {
  let output = '';
  const child = spawn('sh', ['-c', `exec ${command}`], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** SIGKILL to the command's whole process group (for afterAll: nothing a test started outlives the suite). */
export function killGroup(running: RunningCommand): void {
  if (running.child.pid === undefined) return;
  try {
    process.kill(-running.child.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** The direct children of a process, from /proc (Linux). */
export const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/** Every process below `pid` (children, their children, …) right now, from /proc (Linux). */
export const descendantsOf = (pid: number): number[] =>
  childrenOf(pid).flatMap((child) => {
    try {
      return [child, ...descendantsOf(child)];
    } catch {
      return [child]; // exited meanwhile
    }
  });

/** The launcher's child process running `entry` right now, found in /proc (Linux), not in the launcher's own words. */
export const serviceProcess = (launcherPid: number, entry: string): number | undefined =>
  childrenOf(launcherPid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(entry);
    } catch {
      return false; // exited meanwhile
    }
  });

/** Whether a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until `url`/healthz answers 200 and returns its body; fails with the command's output if it never does.
 * The default allows a slow boot: several processes transpiling at once on a loaded 2-core machine take minutes.
 */
export async function waitHealthy(url: string, running: RunningCommand, timeoutMs = 240_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) break;
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return (await response.json()) as Record<string, unknown>;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const output = running.output();
  // Long outputs are shortened in the middle by CI logs: the lines that say why (exits, restarts, errors) come first.
  const telling = output
    .split('\n')
    .filter((line) => /exited|restart|error|fail|EADDRINUSE|refused|timed? ?out/i.test(line))
    .slice(-40);
  throw new Error(
    `${url} did not become healthy (${last})\n--- errors, exits and restarts (${telling.length} lines) ---\n${telling.join('\n')}\n--- output ---\n${output}`,
  );
}
