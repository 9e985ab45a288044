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
  /**
   * Limits of the JetStream stream set by TENET_STREAM_MAX_AGE/_MAX_BYTES/_MAX_MSGS. Only the ones set are here:
   * they are applied on every start; the others take their defaults when the stream is created and are left
   * alone afterwards (an operator may have changed them).
   */
  streamLimits: { maxAgeMs?: number; maxBytes?: number; maxMessages?: number };
  /** What one request and one workspace may put into the knowledge index (docs/reliability.md, "Resource limits"). */
  knowledgeLimits: KnowledgeLimits;
  /** `/readyz` reports `disk` down while less than this is free where the SQLite log lives (TENET_MIN_FREE_DISK_MB; 0: never). */
  minFreeDiskBytes: number;
}

/**
 * Knowledge-index limits: each agent tag of a source is a partition of the vector index with a vector per chunk,
 * so tags and chunks are what grow the disk. TENET_KNOWLEDGE_MAX_AGENT_IDS, _MAX_PARTITIONS, _MAX_VECTOR_BYTES.
 */
export interface KnowledgeLimits {
  /** `agent_ids` of one source (per request). Default 100. */
  maxAgentIdsPerSource: number;
  /** Distinct agent tags over a workspace's sources, an untagged source counting as one. Default 200. */
  maxPartitionsPerWorkspace: number;
  /** Bytes of stored vectors of a workspace's sources (a vector per chunk and agent tag). Default 256 MB. */
  maxVectorBytesPerWorkspace: number;
}

export const DEFAULT_KNOWLEDGE_LIMITS: KnowledgeLimits = { maxAgentIdsPerSource: 100, maxPartitionsPerWorkspace: 200, maxVectorBytesPerWorkspace: 256 * 1024 ** 2 };

// Bytes and messages are unlimited by default: JetStream reserves a stream's max_bytes against the server's storage
// up front, so a default there would make every namespace hold a share of the disk whether it uses it or not.
/** Limits a newly created stream gets where TENET_STREAM_* says nothing. */
export const DEFAULT_STREAM_LIMITS = { maxAgeMs: 7 * 24 * 3_600_000, maxBytes: -1, maxMessages: -1 } as const;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };

/** `512MB`, `10GB`, `2048`: a positive size in bytes, or undefined when the text is not one. */
function sizeInBytes(text: string): number | undefined {
  const match = /^(\d+)\s*([kmgt]?b?)$/i.exec(text.trim());
  if (!match || Number(match[1]) <= 0) return undefined;
  return Number(match[1]) * (SIZE_UNITS[(match[2] ?? '').toLowerCase().replace(/^([kmgt])$/, '$1b')] ?? 1);
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

  const streamLimits: PlatformConfig['streamLimits'] = {};
  const maxAge = env['TENET_STREAM_MAX_AGE'];
  if (maxAge) {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(maxAge.trim()) ?? (maxAge.trim() === '0' ? ['0', '0', 'ms'] : null);
    if (match) streamLimits.maxAgeMs = Number(match[1]) * (DURATION_UNITS[match[2] ?? 'ms'] ?? 1);
    else problems.push(`TENET_STREAM_MAX_AGE must be a duration such as 7d, 12h, 30m or 0 (keep until the other limits), got "${maxAge}"`);
  }
  const maxBytes = env['TENET_STREAM_MAX_BYTES'];
  if (maxBytes) {
    const size = sizeInBytes(maxBytes);
    if (maxBytes.trim() === '-1') streamLimits.maxBytes = -1;
    else if (size !== undefined) streamLimits.maxBytes = size;
    else problems.push(`TENET_STREAM_MAX_BYTES must be a positive size such as 1073741824, 512MB or 10GB, or -1 (unlimited), got "${maxBytes}"`);
  }
  const maxMsgs = env['TENET_STREAM_MAX_MSGS'];
  if (maxMsgs) {
    if (/^(-1|[1-9]\d*)$/.test(maxMsgs.trim())) streamLimits.maxMessages = Number(maxMsgs.trim());
    else problems.push(`TENET_STREAM_MAX_MSGS must be a positive integer or -1 (unlimited), got "${maxMsgs}"`);
  }

  const knowledgeLimits = { ...DEFAULT_KNOWLEDGE_LIMITS };
  const count = (name: string, key: 'maxAgentIdsPerSource' | 'maxPartitionsPerWorkspace'): void => {
    const text = env[name];
    if (!text) return;
    if (/^[1-9]\d{0,8}$/.test(text.trim())) knowledgeLimits[key] = Number(text.trim());
    else problems.push(`${name} must be a positive whole number, got "${text}"`);
  };
  count('TENET_KNOWLEDGE_MAX_AGENT_IDS', 'maxAgentIdsPerSource');
  count('TENET_KNOWLEDGE_MAX_PARTITIONS', 'maxPartitionsPerWorkspace');
  const vectorBytes = env['TENET_KNOWLEDGE_MAX_VECTOR_BYTES'];
  if (vectorBytes) {
    const size = sizeInBytes(vectorBytes);
    if (size !== undefined) knowledgeLimits.maxVectorBytesPerWorkspace = size;
    else problems.push(`TENET_KNOWLEDGE_MAX_VECTOR_BYTES must be a positive size such as 268435456, 256MB or 1GB, got "${vectorBytes}"`);
  }
  const minFreeText = env['TENET_MIN_FREE_DISK_MB'] || '64';
  if (!/^\d+$/.test(minFreeText)) problems.push(`TENET_MIN_FREE_DISK_MB must be a whole number of MiB (0: no check), got "${minFreeText}"`);

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
    streamLimits,
    knowledgeLimits,
    minFreeDiskBytes: Number(minFreeText) * 1024 ** 2,
  };
  if (mongoUrl !== undefined) config.mongoUrl = mongoUrl;
  if (namespace !== undefined) config.namespace = namespace;
  return config;
}
