import { startOwnRedis, type OwnServer } from './servers.js';

/** How long a close may take in these cases: past the 10 s grace and the 2 s forced close, with room for a loaded machine. */
const CLOSE_DEADLINE_MS = 25_000;

/**
 * Shutdown during and right after a Redis outage, on a redis-server of the suite's own: what `open` returns (a
 * scheduler, a work queue — anything holding BullMQ workers) must close within `CLOSE_DEADLINE_MS` while Redis is
 * down, and right after it came back. BullMQ's own close never resolved in either case (taskforcesh/bullmq#4656).
 */
export function closesDuringRedisOutage(name: string, open: (redisUrl: string) => Promise<{ close(): Promise<void> }>): void {
  describe(`${name} closing while Redis is down or just back (own redis-server)`, () => {
    let own: OwnServer;
    beforeAll(async () => {
      own = await startOwnRedis();
    });
    afterAll(async () => {
      await own?.dispose();
    });

    const closesInTime = async (closable: { close(): Promise<void> }): Promise<void> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_DEADLINE_MS)));
      expect(await Promise.race([closable.close().then(() => 'closed' as const), late]).finally(() => clearTimeout(timer))).toBe('closed');
    };
    const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

    it('closes within its grace period while Redis is down', async () => {
      const closable = await open(own.url);
      await own.kill();
      // Long enough for every client to have lost its socket and to wait for its next reconnect attempt.
      await pause(2_500);
      await closesInTime(closable);
      await own.start();
    }, 60_000);

    it('closes within its grace period right after Redis comes back', async () => {
      const closable = await open(own.url);
      await own.kill();
      await pause(6_000);
      await own.start();
      await closesInTime(closable);
    }, 60_000);
  });
}
