import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

/**
 * A NATS or Redis server a fault test owns: started on a free port (never the shared 4222/6379), killed with
 * SIGKILL to simulate an outage, started again on the same port (and, for NATS, the same JetStream store).
 */
export interface OwnServer {
  readonly url: string;
  readonly port: number;
  /** Its store directory (NATS: the JetStream store): removing it between `kill` and `start` is a restart that lost it. */
  readonly dir: string;
  /** SIGKILL, and wait until the port is closed. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store; waits until it accepts connections. */
  start(): Promise<void>;
  /** Kills it and removes its store directory. */
  dispose(): Promise<void>;
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => done(true));
  });

async function waitFor(port: number, up: boolean, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await accepts(port)) === up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} on port ${port} did not ${up ? 'start' : 'stop'} within 30 s:\n${output()}`);
}

async function ownServer(
  what: string,
  scheme: string,
  command: string,
  args: (port: number, dir: string) => string[],
  env?: Record<string, string>,
): Promise<OwnServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `tenet-own-${what.toLowerCase()}-`));
  let child: ChildProcess | undefined;
  let output = '';
  const start = async (): Promise<void> => {
    child = spawn(command, args(port, dir), { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env: { ...process.env, ...env } } : {}) });
    child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)));
    await waitFor(port, true, what, () => output);
  };
  const kill = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await waitFor(port, false, what, () => output);
  };
  await start();
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    dir,
    kill,
    start,
    dispose: async () => {
      await kill().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `nats-server -js` on a free port with its own store directory (kept across kill/start); with `config`, that
 * configuration file too (e.g. users and permissions), `env` holding what it references (passwords).
 */
export const startOwnNats = (options: { config?: string; env?: Record<string, string> } = {}): Promise<OwnServer> =>
  ownServer(
    'NATS',
    'nats',
    'nats-server',
    (port, dir) => [...(options.config ? ['-c', options.config] : []), '-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir],
    options.env,
  );

/** `redis-server` on a free port without persistence: a restart loses every key, as an outage without AOF/RDB does. */
export const startOwnRedis = (): Promise<OwnServer> =>
  ownServer('Redis', 'redis', 'redis-server', (port, dir) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ]);
