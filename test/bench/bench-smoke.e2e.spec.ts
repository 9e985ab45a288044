/**
 * `npm run bench:smoke` (run by CI) fails when a bench no longer runs: here on a package whose benches are a good
 * one, a broken one (exits non-zero), a silent one (prints nothing) and a hung one (past the time limit).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

function smoke(scripts: Record<string, string>, env: NodeJS.ProcessEnv = {}): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tenet-bench-smoke-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'benches', private: true, scripts }));
    const run = spawnSync(process.execPath, ['--import', '@swc-node/register/esm-register', 'bench/smoke.ts'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, BENCH_SMOKE_PACKAGE: join(dir, 'package.json'), ...env },
    });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('bench:smoke', () => {
  it('passes when every bench runs, and names the ones it cannot run here', () => {
    const result = smoke({ 'bench:good': 'node -e "console.log(1)"', 'bench:matching:compare': 'exit 1', build: 'exit 1' });
    expect(result.output).toMatch(/ran bench:good/);
    expect(result.output).toMatch(/not run here: bench:matching:compare/);
    expect(result.output).toMatch(/every bench ran \(1\)/);
    expect(result.status).toBe(0);
  });

  it('fails on a bench that exits non-zero, prints nothing or hangs, naming each', () => {
    const result = smoke(
      {
        'bench:good': 'node -e "console.log(1)"',
        'bench:broken': 'node -e "console.error(\'TypeError: x is not a function\'); process.exit(3)"',
        'bench:silent': 'node -e ""',
        'bench:hung': 'node -e "console.log(1); setInterval(() => {}, 1000)"',
      },
      { BENCH_SMOKE_TIMEOUT_MS: '3000' },
    );
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/BROKEN bench:broken: exited with 3/);
    expect(result.output).toMatch(/TypeError: x is not a function/);
    expect(result.output).toMatch(/BROKEN bench:silent: printed nothing/);
    expect(result.output).toMatch(/BROKEN bench:hung: ran past 3 s/);
    expect(result.output).toMatch(/3 of 4 benches broken: bench:broken, bench:silent, bench:hung/);
  });
});
