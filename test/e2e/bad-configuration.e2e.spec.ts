import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

/** Runs a command line to its end (or kills it after `timeoutMs`): exit code and everything it printed. */
function run(command: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `exec ${command}`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${timeoutMs} ms (a bad variable must stop the start):\n${output}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A bad value of any variable stops the process at start, naming the variable and its rule (docs/configuration.md). */
describe('a process started with a bad configuration', () => {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-bad-config-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('npm start exits 78 before opening anything, naming every bad variable and its rule', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TENET_DATA_DIR: dataDir,
      PORT: '0',
      TENET_TURN_LEASE_TTL_MS: 'abc',
      TENET_PREFILTER_RANKING: 'bm25',
      TENET_ADMIN_KEY: 'too-short-secret',
    };
    const { code, output } = await run(scripts['start']!, env);
    expect(code).toBe(78);
    expect(output).toContain('tenet: invalid configuration (docs/configuration.md)');
    expect(output).toContain('TENET_TURN_LEASE_TTL_MS must be an integer ≥ 1000 (got "abc")');
    expect(output).toContain('TENET_PREFILTER_RANKING must be one of hybrid, embedding, lexical (got "bm25")');
    expect(output).toContain('TENET_ADMIN_KEY must be at least 32 characters');
    expect(output).not.toContain('too-short-secret');
    // Nothing was opened: no event log in the data directory.
    expect(existsSync(join(dataDir, 'events.sqlite'))).toBe(false);
  }, 90_000);

  it('a distributed service checks its own schema: the matcher refuses a bad TENET_EMBEDDING_TIMEOUT_MS', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, TENET_DATA_DIR: dataDir, TENET_EMBEDDING_TIMEOUT_MS: 'soon' };
    const { code, output } = await run('node --import @swc-node/register/esm-register apps/guideline-matcher/src/main.ts', env);
    expect(code).toBe(78);
    expect(output).toContain('guideline-matcher: invalid configuration');
    expect(output).toContain('TENET_EMBEDDING_TIMEOUT_MS must be an integer ≥ 1 (got "soon")');
  }, 90_000);
});
