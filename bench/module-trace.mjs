/**
 * Which modules a process loads, by package (ADR 0035): starts `node <entry>` with the trace hook preloaded
 * (bench/module-trace-hook.mjs), waits for the first `GET /healthz` 200, waits TENET_TRACE_IDLE_MS (default 1000),
 * then prints the module count per package (node_modules packages by name, Tenet's own files as `tenet:<dir>`).
 *
 *   node bench/module-trace.mjs dist/apps/journey-engine/main.js TENET_MODE=distributed [--all]
 *
 * NAME=value arguments go into the process's environment (PORT is chosen here); `--all` also prints every URL;
 * `--why=<package or path part>` prints the chain of first importers that loaded it.
 * Uses NATS_URL/REDIS_URL like the services.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitForHealthz } from './wait-healthz.mjs';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) throw new Error('usage: node bench/module-trace.mjs <entry.js> [NAME=value ...] [--all]');
const env = Object.fromEntries(rest.filter((a) => a.includes('=')).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const port = 19_300 + Math.floor(Math.random() * 500);
const dir = mkdtempSync(join(tmpdir(), 'tenet-module-trace-'));
const out = join(dir, 'modules.txt');
const child = spawn(process.execPath, ['--import', resolve(import.meta.dirname, 'module-trace-hook.mjs'), resolve(entry)], {
  env: { ...process.env, TENET_DATA_DIR: dir, ...env, PORT: String(port), TENET_MODULE_TRACE_OUT: out },
  stdio: ['ignore', 'ignore', 'inherit'],
});
try {
  await waitForHealthz(child, port, entry, 50);
  await new Promise((r) => setTimeout(r, Number(process.env.TENET_TRACE_IDLE_MS ?? 1000)));
  child.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 500));
  const lines = readFileSync(out, 'utf8')
    .split('\n')
    .map((line) => line.split(' '));
  const urls = lines.map(([url]) => url);
  const parentOf = new Map(lines);
  const byPackage = new Map();
  for (const url of urls) {
    const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(
      url.split('node_modules/').length > 1 ? url.slice(url.lastIndexOf('node_modules/')) : '',
    );
    const name = inModules
      ? inModules[1]
      : url.startsWith('node:')
        ? 'node:'
        : `tenet:${/\/(?:dist\/)?((?:libs|apps)\/[^/]+(?:\/[^/]+)?)/.exec(url)?.[1] ?? url}`;
    byPackage.set(name, (byPackage.get(name) ?? 0) + 1);
  }
  console.log(`${urls.length} modules`);
  for (const [name, count] of [...byPackage].sort((a, b) => b[1] - a[1])) console.log(`${String(count).padStart(6)}  ${name}`);
  if (rest.includes('--all')) console.log(urls.join('\n'));
  // --why=<package>: the chain of first importers down to that package's first module.
  for (const why of rest.filter((a) => a.startsWith('--why=')).map((a) => a.slice(6))) {
    const first = urls.find((url) => url.includes(`node_modules/${why}/`)) ?? urls.find((url) => url.includes(why));
    console.log(`\nwhy ${why}:`);
    for (let url = first, depth = 0; url && depth < 40; url = parentOf.get(url), depth++)
      console.log(`  ${url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/')}`);
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  rmSync(dir, { recursive: true, force: true });
}
