/**
 * `npm run start:distributed`: every Tenet service as its own process against NATS_URL, REDIS_URL and (when
 * set) MONGO_URL — the session gateway on PORT (default 8800), TENET_MATCHER_REPLICAS guideline-matcher
 * replicas (default 2), the metering service and TENET_TOOL_EXECUTOR_REPLICAS tool-executor replicas (default 1,
 * sharing one event log). Without MONGO_URL the gateway, metering and the tool executors each own a SQLite
 * log under TENET_DATA_DIR. Output is prefixed with the service's name; Ctrl-C (or SIGTERM) stops them all,
 * and if one service dies the others are stopped and the command fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { loadDemoAgent } from '@tenet/hosts';

const root = resolve(import.meta.dirname, '..');
const dataDir = resolve(process.env['TENET_DATA_DIR'] ?? join(root, '.tenet-data'), 'distributed');
const gatewayPort = Number(process.env['PORT'] ?? 8800);
const replicas = Number(process.env['TENET_MATCHER_REPLICAS'] ?? 2);
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 16) {
  console.error(`TENET_MATCHER_REPLICAS must be an integer from 1 to 16, got "${process.env['TENET_MATCHER_REPLICAS']}"`);
  process.exit(2);
}

const toolExecutors = Number(process.env['TENET_TOOL_EXECUTOR_REPLICAS'] ?? 1);
if (!Number.isInteger(toolExecutors) || toolExecutors < 1 || toolExecutors > 16) {
  console.error(`TENET_TOOL_EXECUTOR_REPLICAS must be an integer from 1 to 16, got "${process.env['TENET_TOOL_EXECUTOR_REPLICAS']}"`);
  process.exit(2);
}

interface Service {
  name: string;
  entry: string;
  env: Record<string, string>;
}

const services: Service[] = [
  { name: 'gateway', entry: 'apps/session-gateway/src/main.ts', env: { PORT: String(gatewayPort), TENET_DATA_DIR: join(dataDir, 'gateway') } },
  ...Array.from({ length: replicas }, (_, i) => ({ name: `matcher-${i + 1}`, entry: 'apps/guideline-matcher/src/main.ts', env: { PORT: String(gatewayPort + 1 + i) } })),
  { name: 'metering', entry: 'apps/metering/src/main.ts', env: { PORT: String(gatewayPort + 1 + replicas), TENET_DATA_DIR: join(dataDir, 'metering') } },
  ...Array.from({ length: toolExecutors }, (_, i) => ({
    name: `tools-${i + 1}`,
    entry: 'apps/tool-executor/src/main.ts',
    // Health on PORT+20+i: clear of the matchers (at most 16) and metering, and of PORT+4 that tests use.
    env: { PORT: String(gatewayPort + 20 + i), TENET_DATA_DIR: join(dataDir, 'tool-executor') },
  })),
];

const children = new Map<string, ChildProcess>();
let stopping = false;

const prefixed = (name: string, stream: NodeJS.WritableStream) => {
  let pending = '';
  return (chunk: Buffer): void => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) stream.write(`[${name.padEnd(10)}] ${line}\n`);
  };
};

for (const service of services) {
  const child = spawn(process.execPath, ['--import', '@swc-node/register/esm-register', service.entry], {
    cwd: root,
    env: { ...process.env, TENET_MODE: 'distributed', ...service.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', prefixed(service.name, process.stdout));
  child.stderr?.on('data', prefixed(service.name, process.stderr));
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (!stopping) {
      console.error(`[${service.name}] exited (${signal ?? `code ${code}`}); stopping the other services`);
      void stopAll(1);
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
  children.set(service.name, child);
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  if (children.size === 0) process.exit(exitCode);
  for (const child of children.values()) child.kill('SIGTERM');
  // A service that does not finish its shutdown in time is killed; turns in flight are then retried by the client.
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, 15_000).unref();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll(0));

// Once the gateway answers, seed the demo agent through its API (TENET_DEMO=off skips it).
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const logger = new Logger('start:distributed');
for (let attempt = 0; attempt < 240 && !stopping; attempt++) {
  const healthy = await fetch(`${gatewayUrl}/healthz`).then((r) => r.ok, () => false);
  if (healthy) {
    logger.log(`all services started: gateway on ${gatewayUrl}, ${replicas} matcher replica(s), metering, ${toolExecutors} tool executor(s); Ctrl-C stops them all`);
    if (process.env['TENET_DEMO'] !== 'off') await loadDemoAgent(gatewayUrl, new URL('../examples/demo-agent.json', import.meta.url), logger).catch((error: unknown) => logger.error(`demo agent not loaded: ${String(error)}`));
    break;
  }
  await new Promise((r) => setTimeout(r, 250));
}
