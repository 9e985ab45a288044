import { createRequire } from 'node:module';
import type * as IoRedis from 'ioredis';
import type { Redis, RedisOptions } from 'ioredis';

const load = createRequire(import.meta.url);

/**
 * A Redis client made on its first command (ADR 0035): every host provides a budget store and most a rate limiter,
 * but only the hosts that admit calls or requests use them, so the others neither load ioredis nor connect.
 * Connection errors are left to the commands (ioredis reconnects; the options bound retries).
 */
export class LazyRedis {
  private made: Redis | undefined;

  constructor(private readonly options: RedisOptions) {}

  get client(): Redis {
    if (!this.made) {
      this.made = new (load('ioredis') as typeof IoRedis).Redis(this.options);
      this.made.on('error', () => undefined);
    }
    return this.made;
  }

  async close(): Promise<void> {
    const client = this.made;
    if (client) await client.quit().catch(() => client.disconnect());
  }
}
