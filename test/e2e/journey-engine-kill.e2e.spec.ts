import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eventually,
  freePortRange,
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
const ENGINE = 'apps/journey-engine/src/main.ts';

interface Ready {
  journey_states?: { journey_id: string; status: string; step_id?: string; step_history: string[] }[];
  journey_events?: { event: string; from?: string; to?: string }[];
}

/**
 * ADR 0011: gateway, matcher, journey engine and tool executor as separate processes (`npm run start:distributed`
 * on its own NATS and Redis). Mid-journey the journey engine is killed with SIGKILL; the customer's next message
 * is answered once the supervisor has restarted it (the turn's request is retried within its deadline), and the
 * journey continues from the step recorded in the session's stream — the engine keeps no state of its own.
 */
describe('journey engine: kill -9 mid-journey (separate processes, own NATS and Redis)', () => {
  let nats: OwnServer;
  let redis: OwnServer;
  let dataDir: string;
  let stack: RunningCommand | undefined;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startOwnNats(), startOwnRedis()]);
    dataDir = mkdtempSync(join(tmpdir(), 'tenet-journey-kill-'));
  });

  afterAll(async () => {
    if (stack) killGroup(stack);
    await Promise.all([nats?.dispose(), redis?.dispose()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('continues the journey from the recorded step after the engine is restarted', async () => {
    const port = await freePortRange(21);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      TENET_DATA_DIR: dataDir,
      TENET_NAMESPACE: `journeykill-${randomUUID().slice(0, 8)}`,
      TENET_MATCHER_REPLICAS: '1',
      TENET_DEMO: 'off',
      TENET_AUTH: 'off',
      TENET_LLM_PROVIDER: 'offline',
    };
    delete env['TENET_MODE'];
    stack = runCommand(scripts['start:distributed']!, { cwd: root, env });
    const running = stack;
    const gateway = `http://127.0.0.1:${port}`;
    // Six processes transpile and boot at once: on a loaded 2-core machine that takes minutes, not seconds.
    const boot = 240_000;
    await waitHealthy(gateway, running, boot);
    await waitHealthy(`http://127.0.0.1:${port + 1}`, running, boot); // matcher-1
    await waitHealthy(`http://127.0.0.1:${port + 19}`, running, boot); // journey engine
    await waitHealthy(`http://127.0.0.1:${port + 20}`, running, boot); // tools-1

    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${gateway}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    const agent = await call<{ id: string }>('POST', '/agents', { name: 'Bistro' });
    await call('POST', '/journeys', {
      id: 'book-table',
      title: 'Book a table',
      description: 'Take a reservation',
      conditions: ['The customer wants to book a table'],
      tags: [`agent:${agent.id}`],
      steps: [
        { id: 'ask_party', name: 'Party size', kind: 'chat', instruction: 'Ask how many guests are coming' },
        { id: 'ask_time', name: 'Time', kind: 'chat', instruction: 'Ask for the date and time of the reservation' },
        { id: 'confirm', name: 'Confirm', kind: 'chat', instruction: 'Read back the reservation and ask the customer to confirm' },
        { id: 'booked', name: 'Booked', kind: 'final' },
      ],
      transitions: [
        { from: 'ask_party', to: 'ask_time', condition: 'The customer said how many guests are coming' },
        { from: 'ask_time', to: 'confirm', condition: 'The customer gave a date and time' },
        { from: 'confirm', to: 'booked', condition: 'The customer confirmed the reservation' },
      ],
      initial_step: 'ask_party',
    });
    const session = await call<{ id: string }>('POST', '/sessions', { agent_id: agent.id });
    const say = async (message: string): Promise<Ready> => {
      const posted = await call<{ correlation_id: string }>('POST', `/sessions/${session.id}/events`, {
        kind: 'message',
        source: 'customer',
        message,
      });
      return eventually(
        async () => {
          const events = await call<{ correlation_id: string; data: { status: string; data: Ready } }[]>(
            'GET',
            `/sessions/${session.id}/events?kinds=status`,
          );
          const end = events.find((e) => e.correlation_id === posted.correlation_id && ['ready', 'error'].includes(e.data.status));
          expect(end?.data.status).toBe('ready');
          return end!.data.data;
        },
        { timeoutMs: 120_000, intervalMs: 250 },
      );
    };
    const stepOf = (ready: Ready): string => ready.journey_states?.map((s) => `${s.status}@${s.step_id ?? ''}`).join(',') ?? '';

    expect(stepOf(await say('I want to book a table'))).toBe('Active@ask_party');
    expect(stepOf(await say('We are four guests coming'))).toBe('Active@ask_time');

    const launcher = running.child.pid!;
    const engine = serviceProcess(launcher, ENGINE);
    expect(engine).toBeDefined();
    process.kill(engine!, 'SIGKILL');

    // Asked while the engine is down: the turn waits for a replica within its deadline, the supervisor restarts it.
    const after = await say('The date and time is Friday at 8pm');
    expect(running.output()).toMatch(/journeys exited \(SIGKILL\); restarting it/);
    expect(serviceProcess(launcher, ENGINE)).not.toBe(engine);
    expect(stepOf(after)).toBe('Active@confirm');
    expect(after.journey_states?.[0]?.step_history).toEqual(['ask_party', 'ask_time', 'confirm']);
    expect(after.journey_events).toEqual([expect.objectContaining({ event: 'journey_transitioned', from: 'ask_time', to: 'confirm' })]);

    const last = await say('Yes I confirmed the reservation');
    expect(stepOf(last)).toBe('Completed@booked');
  }, 600_000);
});
