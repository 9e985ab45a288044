import { resolve } from 'node:path';
import { ConfigError, readSettings, VARIABLES, type Settings, type TenetConfig } from '@tenet/config';

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
  /** Streams whose newest events the SQLite log keeps in memory (TENET_EVENT_TAIL_CACHE_STREAMS; its StreamTailCache). */
  eventTailCacheStreams: number;
  /**
   * The process's whole validated configuration (`@tenet/config`), provided to its modules as `TENET_CONFIG`.
   * Absent when a test loads only the platform's variables: `PlatformModule` then validates the process
   * environment when the app is created (the all-in-one schema), which the test may have set for it.
   */
  settings?: TenetConfig;
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

export const DEFAULT_KNOWLEDGE_LIMITS: KnowledgeLimits = {
  maxAgentIdsPerSource: VARIABLES.TENET_KNOWLEDGE_MAX_AGENT_IDS.fallback,
  maxPartitionsPerWorkspace: VARIABLES.TENET_KNOWLEDGE_MAX_PARTITIONS.fallback,
  maxVectorBytesPerWorkspace: VARIABLES.TENET_KNOWLEDGE_MAX_VECTOR_BYTES.fallback,
};

// Bytes and messages are unlimited by default: JetStream reserves a stream's max_bytes against the server's storage
// up front, so a default there would make every namespace hold a share of the disk whether it uses it or not.
/** Limits a newly created stream gets where TENET_STREAM_* says nothing. */
export const DEFAULT_STREAM_LIMITS = { maxAgeMs: 7 * 24 * 3_600_000, maxBytes: -1, maxMessages: -1 } as const;

export class PlatformConfigError extends Error {
  readonly code = 'CONFIG.INVALID';
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'PlatformConfigError';
  }
}

/** The variables `loadPlatformConfig` reads (rules and defaults: libs/platform/config). */
const PLATFORM_VARIABLES = [
  'TENET_MODE',
  'PORT',
  'NATS_URL',
  'REDIS_URL',
  'MONGO_URL',
  'TENET_NAMESPACE',
  'TENET_RELAY_LEASE_MS',
  'TENET_STREAM_MAX_AGE',
  'TENET_STREAM_MAX_BYTES',
  'TENET_STREAM_MAX_MSGS',
  'TENET_KNOWLEDGE_MAX_AGENT_IDS',
  'TENET_KNOWLEDGE_MAX_PARTITIONS',
  'TENET_KNOWLEDGE_MAX_VECTOR_BYTES',
  'TENET_MIN_FREE_DISK_MB',
  'TENET_EVENT_TAIL_CACHE_STREAMS',
  'TENET_DATA_DIR',
  'TENET_REDIS_PREFIX',
] as const;

/**
 * Reads and validates the platform's variables (rules and defaults: `@tenet/config`; every problem is reported at
 * once, naming the variable and rule). An entry point passes the process's whole validated configuration as
 * `settings` (`loadConfigOrExit`), which its modules get as `TENET_CONFIG`.
 */
export function loadPlatformConfig(
  env: Record<string, string | undefined> = process.env,
  serviceName = 'tenet',
  settings?: TenetConfig,
): PlatformConfig {
  let platform: Pick<Settings, (typeof PLATFORM_VARIABLES)[number]>;
  try {
    platform = readSettings(env, PLATFORM_VARIABLES);
  } catch (error) {
    throw error instanceof ConfigError ? new PlatformConfigError([...error.problems]) : error;
  }
  const streamLimits: PlatformConfig['streamLimits'] = {};
  if (platform.TENET_STREAM_MAX_AGE !== undefined) streamLimits.maxAgeMs = platform.TENET_STREAM_MAX_AGE;
  if (platform.TENET_STREAM_MAX_BYTES !== undefined) streamLimits.maxBytes = platform.TENET_STREAM_MAX_BYTES;
  if (platform.TENET_STREAM_MAX_MSGS !== undefined) streamLimits.maxMessages = platform.TENET_STREAM_MAX_MSGS;
  const config: PlatformConfig = {
    mode: platform.TENET_MODE,
    port: platform.PORT,
    dataDir: resolve(platform.TENET_DATA_DIR),
    natsUrl: platform.NATS_URL,
    redisUrl: platform.REDIS_URL,
    redisPrefix: platform.TENET_REDIS_PREFIX,
    serviceName,
    relayLeaseMs: platform.TENET_RELAY_LEASE_MS,
    streamLimits,
    knowledgeLimits: {
      maxAgentIdsPerSource: platform.TENET_KNOWLEDGE_MAX_AGENT_IDS,
      maxPartitionsPerWorkspace: platform.TENET_KNOWLEDGE_MAX_PARTITIONS,
      maxVectorBytesPerWorkspace: platform.TENET_KNOWLEDGE_MAX_VECTOR_BYTES,
    },
    minFreeDiskBytes: platform.TENET_MIN_FREE_DISK_MB * 1024 ** 2,
    eventTailCacheStreams: platform.TENET_EVENT_TAIL_CACHE_STREAMS,
  };
  if (settings !== undefined) config.settings = settings;
  if (platform.MONGO_URL !== undefined) config.mongoUrl = platform.MONGO_URL;
  if (platform.TENET_NAMESPACE !== undefined) config.namespace = platform.TENET_NAMESPACE;
  return config;
}
