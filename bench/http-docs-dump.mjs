/**
 * What a built HTTP host answers on its API-description paths, to compare two builds byte for byte (ADR 0035: the
 * document is built on the first request; it must not change). Starts `node <dist>/apps/<app>/main.js`, waits for
 * `/healthz`, then requests /openapi.json, /docs-yaml, the /docs UI and its files, and writes into <out>:
 * `<app>.openapi.json`, `<app>.docs.yaml` and `<app>.summary.txt` (status, body hash and length, headers per path).
 *
 *   node bench/http-docs-dump.mjs /tmp/main/dist session-gateway /tmp/before TENET_MODE=distributed
 *   node bench/http-docs-dump.mjs dist session-gateway /tmp/after TENET_MODE=distributed && diff -r /tmp/before /tmp/after
 *
 * NAME=value arguments go into the process's environment (TENET_AUTH=off unless given; PORT is chosen here).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitForHealthz } from './wait-healthz.mjs';

const [dist, app, out, ...rest] = process.argv.slice(2);
if (!dist || !app || !out) throw new Error('usage: node bench/http-docs-dump.mjs <dist> <app> <out-dir> [NAME=value ...]');
const env = Object.fromEntries(rest.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const port = 19_900 + Math.floor(Math.random() * 90);
const dir = mkdtempSync(join(tmpdir(), 'tenet-http-docs-'));
const child = spawn(process.execPath, [resolve(dist, 'apps', app, 'main.js')], {
  env: { ...process.env, TENET_DATA_DIR: dir, TENET_AUTH: 'off', ...env, PORT: String(port) },
  stdio: ['ignore', 'ignore', 'inherit'],
});
/** Headers that differ from run to run. */
const VOLATILE = new Set(['date', 'keep-alive', 'connection']);
const PATHS = [
  '/openapi.json',
  '/docs-yaml',
  '/docs',
  '/docs/',
  '/docs/index.html',
  '/docs/swagger-ui-init.js',
  '/docs/docs/swagger-ui-init.js',
  '/docs/swagger-ui.css',
  '/docs/swagger-ui-bundle.js',
  '/docs/LICENSE',
  '/docs/nope',
  '/openapi.json',
];
mkdirSync(out, { recursive: true });
try {
  await waitForHealthz(child, port, app, 100);
  const summary = [];
  for (const path of PATHS) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    const body = Buffer.from(await response.arrayBuffer());
    const headers = [...response.headers]
      .filter(([name]) => !VOLATILE.has(name))
      .map(([name, value]) => `${name}: ${value}`)
      .join('; ');
    summary.push(`${path} ${response.status} ${createHash('sha256').update(body).digest('hex').slice(0, 16)} ${body.length} | ${headers}`);
    if (path === '/openapi.json') writeFileSync(join(out, `${app}.openapi.json`), body);
    if (path === '/docs-yaml') writeFileSync(join(out, `${app}.docs.yaml`), body);
  }
  writeFileSync(join(out, `${app}.summary.txt`), `${summary.join('\n')}\n`);
  console.log(summary.join('\n'));
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  rmSync(dir, { recursive: true, force: true });
}
