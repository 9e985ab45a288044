import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from '@tenet/testing';

const fixture = fileURLToPath(new URL('./close-on-signals.fixture.ts', import.meta.url));

describe('closeOnSignals: a process stops within its shutdown grace period', () => {
  it('exits 1 after the grace period when closing does not finish, naming the setting', async () => {
    let output = '';
    const child = spawn(process.execPath, ['--import', '@swc-node/register/esm-register', fixture], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await eventually(() => expect(output).toContain('fixture ready'), { timeoutMs: 60_000, intervalMs: 100 });
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(15_000);
    expect(output).toContain('shutdown did not finish within 1000 ms (TENET_SHUTDOWN_GRACE_MS)');
  }, 90_000);
});
