import { resolve } from 'node:path';

/** How a Tenet process finds its infrastructure; read once from the environment at start-up. */
export interface PlatformConfig {
  /** `embedded`: SQLite log, in-process bus and timers. `distributed`: NATS, Redis, MongoDB or SQLite. */
  mode: 'embedded' | 'distributed';
  port: number;
  dataDir: string;
  natsUrl: string;
  redisUrl: string;
  /** Production event log; without it a distributed process keeps a SQLite log in `dataDir`. */
  mongoUrl?: string;
  /** Key prefix of BullMQ's queues in Redis (lets several deployments or test runs share one Redis). */
  redisPrefix: string;
  /** Names durable consumers, queue groups and connections. */
  serviceName: string;
  /** Prefix of this deployment's core-NATS subjects (requests, notifications) on a shared NATS server. */
  namespace?: string;
  /**
   * Distributed mode: lease of the event-log relay's leader in NATS KV. Of the processes sharing one event log,
   * only the lease holder publishes; a crashed holder is replaced after about this long. Default 10 000 ms.
   */
  relayLeaseMs: number;
}

export class PlatformConfigError extends Error {
  readonly code = 'CONFIG.INVALID';
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'PlatformConfigError';
  }
}

/** Reads and validates the environment; every problem is reported at once, naming the variable and rule. */
export function loadPlatformConfig(env: Record<string, string | undefined> = process.env, serviceName = 'tenet'): PlatformConfig {
  const problems: string[] = [];
  const mode = env['TENET_MODE'] ?? 'embedded';
  if (mode !== 'embedded' && mode !== 'distributed') problems.push(`TENET_MODE must be "embedded" or "distributed", got "${mode}"`);

  const portText = env['PORT'] ?? '8800';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) problems.push(`PORT must be an integer from 0 (any free port) to 65535, got "${portText}"`);

  const url = (name: string, fallback: string | undefined, protocols: string[]): string | undefined => {
    const value = env[name] ?? fallback;
    if (value === undefined || value === '') return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    } catch {
      problems.push(`${name} must be a URL, got "${value}"`);
    }
    return value;
  };
  const natsUrl = url('NATS_URL', 'nats://127.0.0.1:4222', ['nats:', 'tls:']) ?? '';
  const redisUrl = url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']) ?? '';
  const mongoUrl = url('MONGO_URL', undefined, ['mongodb:', 'mongodb+srv:']);

  const namespace = env['TENET_NAMESPACE'] || undefined;
  if (namespace !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(namespace)) problems.push(`TENET_NAMESPACE must be 1-64 characters of [A-Za-z0-9_-], got "${namespace}"`);

  const leaseText = env['TENET_RELAY_LEASE_MS'] || '10000';
  const relayLeaseMs = Number(leaseText);
  if (!/^\d+$/.test(leaseText) || relayLeaseMs < 500 || relayLeaseMs > 300_000) problems.push(`TENET_RELAY_LEASE_MS must be an integer from 500 to 300000 (milliseconds), got "${leaseText}"`);

  if (problems.length > 0) throw new PlatformConfigError(problems);
  const config: PlatformConfig = {
    mode: mode as PlatformConfig['mode'],
    port,
    dataDir: resolve(env['TENET_DATA_DIR'] ?? '.tenet-data'),
    natsUrl,
    redisUrl,
    redisPrefix: env['TENET_REDIS_PREFIX'] || 'tenet',
    serviceName,
    relayLeaseMs,
  };
  if (mongoUrl !== undefined) config.mongoUrl = mongoUrl;
  if (namespace !== undefined) config.namespace = namespace;
  return config;
}
