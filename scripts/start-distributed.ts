/**
 * `npm run start:distributed`: every Tenet service as its own process against NATS_URL, REDIS_URL and (when
 * set) MONGO_URL — the session gateway on PORT (default 8800), TENET_MATCHER_REPLICAS guideline-matcher
 * replicas (default 2), the metering service and TENET_TOOL_EXECUTOR_REPLICAS tool-executor replicas (default 1,
 * sharing one event log). Without MONGO_URL the gateway, metering and the tool executors each own a SQLite
 * log under TENET_DATA_DIR. Output is prefixed with the service's name; Ctrl-C (or SIGTERM) stops them all, and so
 * does the end of the npm process that started it (see below).
 *
 * A supervisor, not a fuse: a service that exits on its own (a crash, an OOM kill) is restarted after a backoff
 * (1 s doubling to 30 s; back to 1 s once it has run a minute) while the others keep serving, and each restart
 * is logged. The launcher's own exit takes its children with it.
 *
 * Compiled (`npm run build`, then `node dist/scripts/start-distributed.js`) it runs each service's
 * `dist/apps/<app>/main.js` with plain node; from source it runs the TypeScript through @swc-node.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { loadConfigOrExit } from '@tenet/config';
import { loadDemoAgent } from '@tenet/hosts/demo';

const root = resolve(import.meta.dirname, '..');
const compiled = import.meta.filename.endsWith('.js');
/** The command line that starts `apps/<app>`: compiled JavaScript in dist/, else its TypeScript source. */
const entry = (app: string): string[] =>
  compiled ? [`apps/${app}/main.js`] : ['--import', '@swc-node/register/esm-register', `apps/${app}/src/main.ts`];
/**
 * V8 heap flags the launcher was started with (`npm run start:distributed[:prod]` passes `--max-semi-space-size`,
 * ADR 0035), passed on to every service so each runs as it would alone.
 */
const nodeFlags = process.execArgv.filter((flag) => /^--max-(semi|old)-space-size=/.test(flag));
// The supervisor's own variables (docs/configuration.md); each service validates its own schema when it starts.
const settings = loadConfigOrExit('start-distributed', process.env);
const dataDir = resolve(
  process.env['TENET_DATA_DIR'] === undefined ? join(root, '.tenet-data') : settings.get('TENET_DATA_DIR'),
  'distributed',
);
const gatewayPort = settings.get('PORT');
const replicas = settings.get('TENET_MATCHER_REPLICAS');
const toolExecutors = settings.get('TENET_TOOL_EXECUTOR_REPLICAS');

interface Service {
  name: string;
  args: string[];
  env: Record<string, string>;
}

const services: Service[] = [
  { name: 'gateway', args: entry('session-gateway'), env: { PORT: String(gatewayPort), TENET_DATA_DIR: join(dataDir, 'gateway') } },
  ...Array.from({ length: replicas }, (_, i) => ({
    name: `matcher-${i + 1}`,
    args: entry('guideline-matcher'),
    env: { PORT: String(gatewayPort + 1 + i) },
  })),
  {
    name: 'metering',
    args: entry('metering'),
    env: { PORT: String(gatewayPort + 1 + replicas), TENET_DATA_DIR: join(dataDir, 'metering') },
  },
  ...Array.from({ length: toolExecutors }, (_, i) => ({
    name: `tools-${i + 1}`,
    args: entry('tool-executor'),
    // Health on PORT+20+i: clear of the matchers (at most 16) and metering, and of PORT+4 that tests use.
    env: { PORT: String(gatewayPort + 20 + i), TENET_DATA_DIR: join(dataDir, 'tool-executor') },
  })),
  // Health port clear of the matchers (PORT+1…+16), metering and the e2e's second gateway (PORT+4).
  { name: 'journeys', args: entry('journey-engine'), env: { PORT: String(gatewayPort + 19) } },
  // Knowledge sources and customer memory (REST on PORT+18, recall over NATS); it owns the knowledge index. It shares
  // the gateway's event log: its REST checks the same API keys and workspace ownership (ADR 0018).
  { name: 'memory', args: entry('memory-store'), env: { PORT: String(gatewayPort + 18), TENET_DATA_DIR: join(dataDir, 'gateway') } },
  // Bindings, channel connections and their inbound URLs on PORT+17; a client of the gateway above, on its log (ADR 0025).
  {
    name: 'channels',
    args: entry('channel-gateway'),
    env: {
      PORT: String(gatewayPort + 17),
      TENET_DATA_DIR: join(dataDir, 'gateway'),
      TENET_CHANNELS_GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`,
    },
  },
];

const children = new Map<string, ChildProcess>();
let stopping = false;
const logger = new Logger('start:distributed');

/** Restart backoff: 1 s doubling to 30 s; a service that ran for a minute starts again from 1 s. */
const RESTART_BACKOFF_MS = { first: 1_000, max: 30_000, resetAfterMs: 60_000 };

const prefixed = (name: string, stream: NodeJS.WritableStream) => {
  let pending = '';
  return (chunk: Buffer): void => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) stream.write(`[${name.padEnd(10)}] ${line}\n`);
  };
};

function supervise(service: Service): void {
  let backoffMs = RESTART_BACKOFF_MS.first;
  let restarts = 0;
  const start = (): void => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [...nodeFlags, ...service.args], {
      cwd: root,
      env: { ...process.env, TENET_MODE: 'distributed', ...service.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', prefixed(service.name, process.stdout));
    child.stderr?.on('data', prefixed(service.name, process.stderr));
    logger.log(`${service.name} started (pid ${child.pid})`);
    child.on('exit', (code, signal) => {
      children.delete(service.name);
      if (stopping) {
        if (children.size === 0) process.exit(process.exitCode ?? 0);
        return;
      }
      if (Date.now() - startedAt >= RESTART_BACKOFF_MS.resetAfterMs) backoffMs = RESTART_BACKOFF_MS.first;
      restarts++;
      logger.warn(
        `${service.name} exited (${signal ?? `code ${code}`}); restarting it in ${backoffMs} ms (restart ${restarts}); the other services keep serving`,
      );
      setTimeout(() => {
        if (!stopping) start();
      }, backoffMs);
      backoffMs = Math.min(RESTART_BACKOFF_MS.max, backoffMs * 2);
    });
    children.set(service.name, child);
  };
  start();
}

for (const service of services) supervise(service);

// However the launcher ends (an uncaught error included), it takes its children with it. (SIGKILL of the launcher
// cannot be caught: kill its process group, as the e2e tests do.)
process.on('exit', () => {
  for (const child of children.values()) child.kill('SIGKILL');
});

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

// Under `npm run`, npm starts this launcher through `sh -c`, and a SIGTERM sent to npm alone (a process manager, a
// CI script's `kill $!`, `timeout`) ends npm and that shell but never reaches this process: the launcher and every
// service would keep running, orphaned, holding their ports. So when started by npm, the launcher stops everything
// once its parent is gone. (Run directly — `node dist/scripts/start-distributed.js`, e.g. under nohup — it keeps
// running when its parent exits, as any server does.)
if (process.env['npm_lifecycle_event']?.startsWith('start:distributed')) {
  const launchedBy = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === launchedBy) return;
    clearInterval(watch); // once: stopAll takes a few seconds, and the warning need not repeat meanwhile
    logger.warn(`npm (parent pid ${launchedBy}) is gone; stopping every service`);
    void stopAll(0);
  }, 500).unref();
}

// Once the gateway answers, seed the demo agent through its API (TENET_DEMO=off skips it), as TENET_ADMIN_KEY when
// keys are required. A loaded machine may take minutes to start ten processes: wait as long as it takes, saying so.
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const waitingSince = Date.now();
let lastProgress = waitingSince;
while (!stopping) {
  const healthy = await fetch(`${gatewayUrl}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
  if (healthy) {
    logger.log(
      `all services started: gateway on ${gatewayUrl}, ${replicas} matcher replica(s), metering, ${toolExecutors} tool executor(s); Ctrl-C stops them all`,
    );
    if (settings.get('TENET_DEMO') !== 'off') {
      const demoFile = new URL('../examples/demo-agent.json', import.meta.url);
      await loadDemoAgent(
        gatewayUrl,
        demoFile,
        logger,
        {},
        { knowledgeUrl: `http://127.0.0.1:${gatewayPort + 18}`, adminKey: settings.get('TENET_ADMIN_KEY') },
      ).catch((error: unknown) => logger.error(`demo agent not loaded: ${error instanceof Error ? error.message : String(error)}`));
    }
    break;
  }
  if (Date.now() - lastProgress >= 10_000) {
    lastProgress = Date.now();
    logger.log(
      `waiting for the gateway on ${gatewayUrl} to answer /healthz (${Math.round((lastProgress - waitingSince) / 1000)} s so far)`,
    );
  }
  await new Promise((r) => setTimeout(r, 250));
}
