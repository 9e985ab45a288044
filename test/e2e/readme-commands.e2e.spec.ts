/**
 * The README's front-door commands, run as written against `npm start` (only the port changed): the curl flow
 * must end with the demo agent's reply and a `ready` status, not return at `acknowledged`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort } from '@tenet/testing';

const root = new URL('../../', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The fenced bash blocks of a Markdown text. */
function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe("the README's commands", () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  let output = '';
  let port: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-readme-'));
    port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      TENET_DATA_DIR: dataDir,
      TENET_MODE: 'embedded',
      TENET_LLM_PROVIDER: 'offline',
    };
    delete env['TENET_DEMO'];
    delete env['TENET_AUTH'];
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    child = spawn('sh', ['-c', `exec ${scripts['start']}`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(async () => expect(output).toContain('demo agent "'), { timeoutMs: 90_000, intervalMs: 250 }).catch(
      (error: unknown) => {
        throw new Error(`npm start did not seed the demo: ${String(error)}\n--- output ---\n${output}`);
      },
    );
  });

  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the curl flow against the demo agent prints its reply and the turn statuses up to ready', () => {
    const flow = bashBlocks(readme).find((block) => block.includes('S=$(curl'));
    expect(flow).toBeDefined();
    const script = flow!.replaceAll('localhost:8800', `localhost:${port}`);
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const lines = run.stdout.trim().split('\n');
    // The customer asked for a refund: the demo's refund guideline answers it.
    expect(lines[0]).toMatch(/refund/i);
    expect(lines).toContain('ready');
  });

  it('npm start says it answers with the offline stand-in and sums up its routes in one line', () => {
    expect(output).toMatch(/replies come from the offline stand-in/);
    const mapped = /(\d+) routes in (\d+) controllers mapped/.exec(output);
    expect(Number(mapped?.[1])).toBeGreaterThan(50);
    expect(Number(mapped?.[2])).toBeGreaterThan(10);
    expect(output).toMatch(/[1-9]\d* modules initialised/);
    expect(output).not.toMatch(/Mapped \{/);
  });
});
