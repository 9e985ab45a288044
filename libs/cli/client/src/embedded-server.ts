import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from './api-client.js';

/** A scratch all-in-one Tenet the CLI started: its own data directory, no demo, loopback only. */
export interface EmbeddedServer {
  url: string;
  close(): Promise<void>;
}

const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/**
 * Starts the all-in-one host (apps/tenet, as `npm start` runs it) on a free loopback port with an empty data
 * directory that is removed on close, open (no API keys: it is reachable from this machine only and holds only
 * what the CLI puts in it), with the caller's environment otherwise — its LLM provider and keys, and
 * TENET_TOOL_ALLOWED_HOSTS for tool services on private addresses.
 */
export async function startEmbeddedServer(env: NodeJS.ProcessEnv, timeoutMs = 180_000): Promise<EmbeddedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tenet-scratch-'));
  const port = await freePort();
  let output = '';
  // From the sources (npx tenet in the repository) through swc; from a build (dist/), the compiled host.
  const sources = join(REPOSITORY, 'apps/tenet/src/main.ts');
  const args = existsSync(sources) ? ['--import', '@swc-node/register/esm-register', sources] : [join(REPOSITORY, 'apps/tenet/main.js')];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPOSITORY,
    env: {
      ...env,
      PORT: String(port),
      TENET_HOST: '127.0.0.1',
      TENET_DATA_DIR: dataDir,
      TENET_MODE: 'embedded',
      TENET_DEMO: 'off',
      TENET_AUTH: 'off',
      SWC_NODE_PROJECT: join(REPOSITORY, 'tsconfig.json'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const close = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const healthy = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) return { url, close };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await close();
  throw new CliError(`the scratch Tenet server did not start:\n${output}`);
}
