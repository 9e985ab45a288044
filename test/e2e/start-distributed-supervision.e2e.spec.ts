import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  childrenOf,
  descendantsOf,
  eventually,
  freePortRange,
  isAlive,
  killGroup,
  runCommand,
  serviceProcess,
  startOwnNats,
  startOwnRedis,
  waitHealthy,
  type OwnServer,
  type RunningCommand,
} from '@tenet/testing';

const root = new URL('../../', import.meta.url).pathname;
const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

const MATCHER = 'apps/guideline-matcher/src/main.ts';

/**
 * docs/reliability.md#a-crashed-service-under-npm-run-startdistributed: `npm run start:distributed` supervises its services. A matcher killed with SIGKILL is restarted
 * (logged, with backoff) while the gateway keeps serving; SIGTERM still stops everything; and whatever happens, the
 * suite leaves no process behind (the launcher runs in its own process group, killed in afterAll).
 */
describe('npm run start:distributed restarts a crashed service and keeps the others serving (own NATS and Redis)', () => {
  let nats: OwnServer;
  let redis: OwnServer;
  let dataDir: string;
  let stack: RunningCommand | undefined;
  let viaNpm: RunningCommand | undefined;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startOwnNats(), startOwnRedis()]);
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-supervision-'));
  });

  const stackEnv = (port: number, dir: string): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      TENET_DATA_DIR: dir,
      TENET_NAMESPACE: `supervision-${randomUUID()}`,
      TENET_MATCHER_REPLICAS: '1',
      TENET_DEMO: 'off',
      TENET_LLM_PROVIDER: 'offline',
      TENET_AUTH: 'off',
    };
    delete env['TENET_MODE'];
    return env;
  };

  afterAll(async () => {
    if (stack) killGroup(stack);
    if (viaNpm) killGroup(viaNpm);
    await Promise.all([nats?.dispose(), redis?.dispose()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('restarts a killed matcher with backoff, serves turns throughout, and stops every child on SIGTERM', async () => {
    // gateway, matcher-1, metering at PORT..PORT+2; memory-store at PORT+18, the journey engine at PORT+19, the tool executor at PORT+20.
    const port = await freePortRange(21);
    stack = runCommand(scripts['start:distributed']!, { cwd: root, env: stackEnv(port, dataDir) });
    const running = stack;
    const gateway = `http://127.0.0.1:${port}`;
    await waitHealthy(gateway, running);
    await waitHealthy(`http://127.0.0.1:${port + 1}`, running); // matcher-1
    await waitHealthy(`http://127.0.0.1:${port + 2}`, running); // metering
    await waitHealthy(`http://127.0.0.1:${port + 18}`, running); // memory-store
    await waitHealthy(`http://127.0.0.1:${port + 19}`, running); // journey engine
    await waitHealthy(`http://127.0.0.1:${port + 20}`, running); // tools-1

    const launcher = running.child.pid!;
    const firstMatcher = serviceProcess(launcher, MATCHER);
    expect(firstMatcher).toBeDefined();
    process.kill(firstMatcher!, 'SIGKILL');

    // The gateway keeps serving while the matcher is down (requests that do not need it answer at once) ...
    const agent = (await (
      await fetch(`${gateway}/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Support' }),
      })
    ).json()) as { id: string };
    expect(agent.id).toBeDefined();
    // ... the launcher says what happened and restarts it ...
    await eventually(() => expect(running.output()).toMatch(/matcher-1 exited \(SIGKILL\); restarting it in 1000 ms \(restart 1\)/), {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    await eventually(() => expect(serviceProcess(launcher, MATCHER)).toEqual(expect.any(Number)), { timeoutMs: 30_000, intervalMs: 200 });
    expect(serviceProcess(launcher, MATCHER)).not.toBe(firstMatcher);
    await waitHealthy(`http://127.0.0.1:${port + 1}`, running);
    expect(running.child.exitCode).toBeNull();

    // ... and turns run again through the restarted matcher.
    const session = (await (
      await fetch(`${gateway}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agent.id }),
      })
    ).json()) as { id: string };
    await fetch(`${gateway}/sessions/${session.id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'message', source: 'customer', message: 'hello' }),
    });
    await eventually(
      async () => {
        const events = (await (await fetch(`${gateway}/sessions/${session.id}/events?kinds=status`)).json()) as {
          data: { status: string };
        }[];
        expect(events.map((e) => e.data.status)).toContain('ready');
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );

    // SIGTERM stops every service, then the launcher, cleanly.
    const children = childrenOf(launcher);
    expect(children).toHaveLength(7); // gateway, matcher-1, metering, memory-store, journey engine, tools-1, channel gateway
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(children.filter(isAlive)).toEqual([]);
  }, 300_000);
  it('stops every service when only npm gets SIGTERM (npm run start:distributed under a process manager)', async () => {
    const port = await freePortRange(21);
    viaNpm = runCommand('npm run start:distributed', { cwd: root, env: stackEnv(port, join(dataDir, 'via-npm')) });
    const running = viaNpm;
    await waitHealthy(`http://127.0.0.1:${port}`, running);
    await waitHealthy(`http://127.0.0.1:${port + 20}`, running); // tools-1, the last one started
    const below = descendantsOf(running.child.pid!); // npm's shell, the launcher and its six services
    expect(below.length).toBeGreaterThanOrEqual(8);

    // npm ends and its shell with it; the signal never reaches the launcher, which has to notice by itself.
    running.child.kill('SIGTERM');
    await running.exited;
    await eventually(() => expect(below.filter(isAlive)).toEqual([]), { timeoutMs: 30_000, intervalMs: 200 });
    expect(running.output()).toMatch(/npm \(parent pid \d+\) is gone; stopping every service/);
  }, 300_000);
});
