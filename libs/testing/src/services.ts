import { Socket } from 'node:net';

/**
 * Whether a backing service a suite needs can be reached, and what to do when it cannot.
 *
 * Outside CI an unreachable service skips its suite with the reason printed. With CI=true the
 * suite still runs and fails loudly: CI must never go green by silently skipping NATS or Redis.
 */
export interface ServiceGate {
  readonly name: string;
  readonly url: string;
  readonly available: boolean;
  readonly reason?: string;
}

export const isCi = (): boolean => /^(1|true|yes)$/i.test(process.env['CI'] ?? '');

export const natsUrl = (): string => process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
export const redisUrl = (): string => process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

function probeTcp(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (error?: string): void => {
      socket.destroy();
      resolve(error);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs} ms`));
    socket.once('error', (error) => done(error.message));
    socket.connect(port, host, () => done());
  });
}

export async function probeService(name: string, url: string, defaultPort: number): Promise<ServiceGate> {
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : defaultPort;
  const error = await probeTcp(parsed.hostname.replace(/^\[|\]$/g, ''), port, 1_000);
  return error === undefined
    ? { name, url, available: true }
    : { name, url, available: false, reason: `${name} unreachable at ${url}: ${error}` };
}

export const probeNats = (): Promise<ServiceGate> => probeService('NATS', natsUrl(), 4222);
export const probeRedis = (): Promise<ServiceGate> => probeService('Redis', redisUrl(), 6379);

/**
 * `describe` for a suite that needs real infrastructure. Runs it when the service answers; otherwise
 * skips with the reason in the suite title (visible in Jest's verbose output), or fails under CI.
 */
export function describeWithService(gate: ServiceGate, title: string, body: () => void): void {
  if (gate.available) {
    describe(title, body);
    return;
  }
  if (isCi()) {
    describe(title, () => {
      it(`requires ${gate.name} (CI=true never skips it)`, () => {
        throw new Error(`${gate.reason}. Start it (see .ci/run) — CI must not skip this suite.`);
      });
    });
    return;
  }
  process.stderr.write(`[tenet] skipping "${title}": ${gate.reason}\n`);
  describe.skip(`${title} — skipped: ${gate.reason}`, body);
}
