import { z } from 'zod';
import {
  digits,
  duration,
  integer,
  json,
  list,
  oneOf,
  optional,
  orWord,
  size,
  text,
  url,
  withDefault,
  type ProcessName,
  type Rule,
} from './variable.js';

// Who reads what. A Nest service process reads the platform's variables; the rest follow the modules its host
// composes (libs/hosts/src/hosts.module.ts): the all-in-one `tenet` host composes every module.
const SERVICES: readonly ProcessName[] = [
  'tenet',
  'session-gateway',
  'guideline-matcher',
  'journey-engine',
  'tool-executor',
  'memory-store',
  'metering',
  'channel-gateway',
];
/** Hosts that serve the gateway's HTTP edge (`configureGatewayHttp`: API keys, rate limits, CORS). */
const EDGE: readonly ProcessName[] = ['tenet', 'session-gateway', 'memory-store', 'channel-gateway'];
const GATEWAY: readonly ProcessName[] = ['tenet', 'session-gateway'];
const MATCHER: readonly ProcessName[] = ['tenet', 'guideline-matcher'];
/** Processes that build an embedding provider: the matcher's prefilter and the knowledge index. */
const EMBEDDINGS: readonly ProcessName[] = ['tenet', 'guideline-matcher', 'memory-store'];
/** Processes that build tool services (the executor, and the gateway's tool-service registration). */
const TOOLS: readonly ProcessName[] = ['tenet', 'session-gateway', 'tool-executor'];
const CHANNELS: readonly ProcessName[] = ['tenet', 'channel-gateway'];
/** Processes that open or seal stored secrets (tool-service credentials, channel connections). */
const SECRETS: readonly ProcessName[] = ['tenet', 'session-gateway', 'tool-executor', 'channel-gateway'];

const LLM_PROVIDERS = ['openai', 'anthropic', 'offline'] as const;
const HOST_ENTRY = /^(\*|\[[0-9A-Fa-f:.]+\](:\d{1,5})?|[A-Za-z0-9.-]+(:\d{1,5})?|[0-9A-Fa-f:]+)$/;
const SECRETS_KEY = text({
  trim: true,
  pattern: /^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/,
  rule: '32 random bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)',
});

/** A price table's entries over the built-in one: `"provider/model": { inputPerMillion, outputPerMillion }` (USD). */
export type PriceOverrides = Record<string, { inputPerMillion: number; outputPerMillion: number }>;
const priceOverrides: z.ZodType<PriceOverrides> = z.record(
  z.string().regex(/^[^/]+\/.+$/),
  z.object({ inputPerMillion: z.number(), outputPerMillion: z.number() }).loose(),
);

/**
 * Every environment variable a Tenet process reads: how it is read, its rule, default and description, and which
 * processes read it. The one place that knows them; `docs/configuration.md` is generated from it
 * (`npm run config:docs`).
 */
export const VARIABLES = {
  // ---- platform: every service process --------------------------------------------------------------------
  TENET_MODE: withDefault(oneOf(['embedded', 'distributed'] as const, { rule: '"embedded" or "distributed"' }), 'embedded', {
    blankIsValue: true,
    readBy: SERVICES,
    description:
      '`embedded`: SQLite event log, in-process bus and timers (one process). `distributed`: NATS JetStream, Redis (BullMQ), MongoDB or SQLite. The apps of `apps/` other than `tenet` default to `distributed`.',
  }),
  PORT: withDefault(digits(0, 65_535, 'an integer from 0 (any free port) to 65535'), 8800, {
    blankIsValue: true,
    readBy: [...SERVICES, 'start-distributed'],
    defaultText:
      '8800; the apps: matcher 8801, metering 8802, tool executor 8803, journey engine 8805, memory store 8806, channel gateway 8807',
    description:
      'HTTP port (REST, `/healthz`, `/metrics`). `npm run start:distributed` gives the gateway this port and the other services ports above it (README).',
  }),
  TENET_HOST: optional(text({ pattern: /^[A-Za-z0-9.:[\]-]+$/, rule: 'a host name or IP address to listen on (e.g. 0.0.0.0)' }), {
    blankIsValue: true,
    readBy: EDGE,
    defaultText: '127.0.0.1 (`npm start`); 0.0.0.0 (the gateway and channel gateway apps)',
    description: 'Address the HTTP server listens on. Beyond loopback, API keys are required unless `TENET_AUTH=off`.',
  }),
  TENET_DATA_DIR: withDefault(text({ rule: 'a directory path' }), '.tenet-data', {
    blankIsValue: true,
    readBy: [...SERVICES, 'start-distributed'],
    description: 'Where the SQLite event log, the knowledge index and other local state live (relative to the working directory).',
  }),
  NATS_URL: withDefault(url(['nats:', 'tls:']), 'nats://127.0.0.1:4222', {
    readBy: SERVICES,
    description: 'NATS server with JetStream (distributed mode).',
  }),
  REDIS_URL: withDefault(url(['redis:', 'rediss:']), 'redis://127.0.0.1:6379', {
    readBy: SERVICES,
    description: 'Redis for BullMQ queues, budgets and rate limits (distributed mode).',
  }),
  MONGO_URL: optional(url(['mongodb:', 'mongodb+srv:']), {
    readBy: SERVICES,
    defaultText: '— (a SQLite log in TENET_DATA_DIR)',
    description:
      'MongoDB replica set for the production event log (distributed mode); its database name is the URL path (default `tenet`).',
  }),
  TENET_REDIS_PREFIX: withDefault(text(), 'tenet', {
    readBy: SERVICES,
    description: "Key prefix of BullMQ's queues, token budgets and rate limits in Redis (lets several deployments share one Redis).",
  }),
  TENET_NAMESPACE: optional(text({ pattern: /^[A-Za-z0-9_-]{1,64}$/, rule: '1-64 characters of [A-Za-z0-9_-]' }), {
    readBy: SERVICES,
    description: "Prefix of this deployment's JetStream streams and core-NATS subjects on a shared NATS server (docs/nats-workspaces.md).",
  }),
  TENET_RELAY_LEASE_MS: withDefault(digits(500, 300_000, 'an integer from 500 to 300000 (milliseconds)'), 10_000, {
    readBy: SERVICES,
    description: "Distributed mode: lease of the event-log relay's leader in NATS KV; a crashed leader is replaced after about this long.",
  }),
  TENET_STREAM_MAX_AGE: optional(duration('a duration such as 7d, 12h, 30m or 0 (keep until the other limits)'), {
    readBy: SERVICES,
    defaultText: '7d (when the stream is created)',
    description:
      'JetStream stream limit: age of the oldest message kept. Set values are applied on every start; unset ones are left as they are.',
  }),
  TENET_STREAM_MAX_BYTES: optional(size('a positive size such as 1073741824, 512MB or 10GB, or -1 (unlimited)', { unlimited: true }), {
    readBy: SERVICES,
    defaultText: '-1 (unlimited, when the stream is created)',
    description: 'JetStream stream limit: bytes kept.',
  }),
  TENET_STREAM_MAX_MSGS: optional(numeric(text({ trim: true, pattern: /^(-1|[1-9]\d*)$/, rule: 'a positive integer or -1 (unlimited)' })), {
    readBy: SERVICES,
    defaultText: '-1 (unlimited, when the stream is created)',
    description: 'JetStream stream limit: messages kept.',
  }),
  TENET_KNOWLEDGE_MAX_AGENT_IDS: withDefault(digitsTrimmed('a positive whole number'), 100, {
    readBy: SERVICES,
    description: '`agent_ids` of one knowledge source (per request).',
  }),
  TENET_KNOWLEDGE_MAX_PARTITIONS: withDefault(digitsTrimmed('a positive whole number'), 200, {
    readBy: SERVICES,
    description: "Distinct agent tags over a workspace's knowledge sources (an untagged source counts as one).",
  }),
  TENET_KNOWLEDGE_MAX_VECTOR_BYTES: withDefault(size('a positive size such as 268435456, 256MB or 1GB'), 256 * 1024 ** 2, {
    readBy: SERVICES,
    defaultText: '256MB',
    description: "Bytes of stored vectors of a workspace's knowledge sources.",
  }),
  TENET_EVENT_TAIL_CACHE_STREAMS: withDefault(integer(1), 2_000, {
    readBy: SERVICES,
    description:
      "Streams whose newest events the SQLite event log keeps in memory for re-reads (a turn reads its session's streams again and again), least recently used dropped first.",
  }),
  TENET_MIN_FREE_DISK_MB: withDefault(digits(0, undefined, 'a whole number of MiB (0: no check)'), 64, {
    readBy: SERVICES,
    description: '`/readyz` reports `disk` down while less than this is free where the SQLite log lives.',
  }),
  TENET_LOG_FORMAT: optional(oneOf(['json', 'text'] as const, { rule: '"json" or "text"' }), {
    readBy: SERVICES,
    defaultText: 'json when NODE_ENV=production, else text',
    description: 'Log lines as JSON objects (with trace ids) or as text.',
  }),
  TENET_LOG_STARTUP: withDefault(oneOf(['summary', 'verbose'] as const, { rule: '"summary" or "verbose"' }), 'summary', {
    readBy: SERVICES,
    description: "`summary`: one line for Nest's module and route mapping at start; `verbose`: every line.",
  }),
  NODE_ENV: optional(text(), {
    readBy: SERVICES,
    description: 'Only `production` matters to Tenet: it makes JSON the default log format.',
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(url(['http:', 'https:'], { example: 'http://collector:4318' }), {
    readBy: SERVICES,
    defaultText: '— (no tracing)',
    description:
      'Turns OpenTelemetry tracing on: spans go there over OTLP/HTTP (the exporter also honours the other standard `OTEL_EXPORTER_OTLP_*` variables).',
  }),
  TENET_SHUTDOWN_GRACE_MS: withDefault(integer(1_000, undefined, 'milliseconds'), 25_000, {
    readBy: SERVICES,
    description: 'On SIGTERM/SIGINT, a close that has not finished within this is abandoned and the process exits 1.',
  }),

  // ---- the HTTP edge ----------------------------------------------------------------------------------------
  TENET_AUTH: optional(oneOf(['on', 'off'] as const, { rule: '"on" or "off"' }), {
    blankIsValue: true,
    readBy: EDGE,
    defaultText: 'on, except `npm start` on loopback',
    description:
      'API keys required (`on`) or every route open (`off`). Unset: required in distributed mode and beyond loopback (ADR 0018).',
  }),
  TENET_ADMIN_KEY: optional(text({ minLength: 32, rule: 'at least 32 characters (e.g. `openssl rand -base64 32`)' }), {
    secret: true,
    readBy: [...EDGE, 'start-distributed'],
    description:
      'An operator-chosen admin key of the `default` workspace, to create the first keys with; also what the demo loader and the channel gateway use when no other key is set.',
  }),
  TENET_RATE_LIMIT_PER_KEY: withDefault(digits(0, undefined, 'a whole number of requests per minute (0: no limit)'), 600, {
    readBy: EDGE,
    description: 'Requests a minute per API key.',
  }),
  TENET_RATE_LIMIT_PER_SESSION: withDefault(digits(0, undefined, 'a whole number of requests per minute (0: no limit)'), 120, {
    readBy: EDGE,
    description: 'Requests a minute per session token.',
  }),
  TENET_CORS_ORIGINS: withDefault(
    list(/^https?:\/\/[^/\s,]+$/, 'comma-separated origins such as https://app.example.com (scheme, host and port; no path)'),
    [],
    {
      defaultText: '— (no cross-site browser calls)',
      readBy: EDGE,
      description: 'Origins allowed to call the API from a browser on another site.',
    },
  ),

  // ---- the session gateway's turns --------------------------------------------------------------------------
  TENET_TURN_DEADLINE_MS: withDefault(integer(1_000, undefined, 'milliseconds'), 120_000, {
    readBy: GATEWAY,
    description: "A turn's whole budget: both matcher steps and their retries.",
  }),
  TENET_MATCHER_ATTEMPT_TIMEOUT_MS: withDefault(integer(1_000, undefined, 'milliseconds'), 30_000, {
    readBy: GATEWAY,
    description: 'One matcher attempt: a replica that has not answered by then is given up on and the step retried.',
  }),
  TENET_TURN_LEASE_TTL_MS: withDefault(integer(1_000), 15_000, {
    readBy: GATEWAY,
    description: 'A turn owner whose heartbeat is older than this is dead, and another gateway takes its turns over (ADR 0015).',
  }),
  TENET_SESSION_CACHE_SIZE: withDefault(integer(1), 2_000, {
    readBy: GATEWAY,
    description:
      'Sessions whose records a gateway keeps folded in memory, least recently used dropped first; a dropped one is folded from the event log again when next read (the session list keeps ~150 bytes per session besides).',
  }),
  TENET_RECALL_BUDGET_MS: withDefault(integer(100, undefined, 'milliseconds'), 5_000, {
    readBy: GATEWAY,
    description: 'How long a turn waits for memory recall before it replies without memory.',
  }),
  TENET_PRICES: withDefault(
    json(priceOverrides, 'JSON { "provider/model": { "inputPerMillion": number, "outputPerMillion": number } }'),
    {},
    {
      defaultText: '— (the built-in price table)',
      readBy: [...GATEWAY, 'guideline-matcher', 'memory-store'],
      description: 'USD prices per million tokens over the built-in table, for cost estimates and budgets.',
    },
  ),
  TENET_SECRETS_KEY: optional(SECRETS_KEY, {
    secret: true,
    readBy: SECRETS,
    defaultText: '— (storing a secret is refused)',
    description: 'Seals stored secrets (tool-service credentials, channel credentials) with AES-256-GCM.',
  }),
  TENET_SECRETS_KEY_PREVIOUS: optional(SECRETS_KEY, {
    secret: true,
    readBy: SECRETS,
    description: 'The key before a rotation: secrets sealed with it still open. Needs TENET_SECRETS_KEY.',
  }),

  // ---- language models and embeddings -----------------------------------------------------------------------
  TENET_LLM_PROVIDER: optional(oneOf(LLM_PROVIDERS, { loose: true, rule: 'openai, anthropic or offline' }), {
    readBy: MATCHER,
    defaultText: 'openai with OPENAI_API_KEY, else anthropic with ANTHROPIC_API_KEY, else offline',
    description: "The default language model provider (an agent's definition may choose its own). `offline` is the deterministic stand-in.",
  }),
  TENET_LLM_MODEL: optional(text({ trim: true }), {
    readBy: MATCHER,
    defaultText: "the provider's default model",
    description: 'Model of TENET_LLM_PROVIDER.',
  }),
  TENET_LLM_FALLBACK_PROVIDER: optional(oneOf(LLM_PROVIDERS, { loose: true, rule: 'openai, anthropic or offline' }), {
    readBy: MATCHER,
    defaultText: '— (no fallback; with TENET_LLM_FALLBACK_MODEL alone: the same provider)',
    description: 'Answers when the default provider fails.',
  }),
  TENET_LLM_FALLBACK_MODEL: optional(text({ trim: true }), { readBy: MATCHER, description: 'Model of the fallback provider.' }),
  OPENAI_API_KEY: optional(text({ trim: true }), {
    secret: true,
    readBy: EMBEDDINGS,
    description:
      "OpenAI key: the default provider's and embeddings' when set, and what an agent choosing `openai` without a key of its own uses.",
  }),
  OPENAI_BASE_URL: optional(url(['http:', 'https:']), {
    readBy: EMBEDDINGS,
    defaultText: "OpenAI's API",
    description: 'An OpenAI-compatible endpoint.',
  }),
  ANTHROPIC_API_KEY: optional(text({ trim: true }), {
    secret: true,
    readBy: MATCHER,
    description: 'Anthropic key (the default provider when OPENAI_API_KEY is not set).',
  }),
  ANTHROPIC_BASE_URL: optional(url(['http:', 'https:']), {
    readBy: MATCHER,
    defaultText: "Anthropic's API",
    description: 'An Anthropic-compatible endpoint.',
  }),
  TENET_EMBEDDING_PROVIDER: optional(
    oneOf(['openai', 'offline'] as const, { loose: true, rule: 'openai or offline (Anthropic has no embeddings API)' }),
    {
      readBy: EMBEDDINGS,
      defaultText: 'openai with OPENAI_API_KEY, else offline',
      description: 'Embeddings of the matching prefilter and the knowledge index; `offline` is a local hashing vectorizer.',
    },
  ),
  TENET_EMBEDDING_MODEL: optional(text({ trim: true }), {
    readBy: EMBEDDINGS,
    defaultText: 'text-embedding-3-small',
    description: 'OpenAI embedding model.',
  }),
  TENET_EMBEDDING_DIMENSIONS: optional(integer(8), {
    readBy: EMBEDDINGS,
    defaultText: "the model's (offline: 512)",
    description: "Vector length: shortened OpenAI vectors, or the offline vectorizer's size.",
  }),

  // ---- the guideline matcher ----------------------------------------------------------------------------------
  TENET_PREFILTER_ALWAYS_KEEP_CAP: optional(orWord('off', Infinity, integer(0), 'an integer ≥ 0, or off'), {
    readBy: MATCHER,
    defaultText: "what fits the turn's call budget, never below max(prefilter_k, 40)",
    description: 'Guidelines kept by an always-keep rule on top of `prefilter_k`; `off` keeps them all.',
  }),
  TENET_PREFILTER_RANKING: withDefault(oneOf(['hybrid', 'embedding', 'lexical'] as const, { loose: true }), 'hybrid', {
    readBy: MATCHER,
    description:
      'How the prefilter ranks: embedding similarity and BM25 fused by reciprocal rank (`hybrid`), embeddings alone, or BM25 alone (embeds nothing).',
  }),
  TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES: withDefault(integer(1), 256, {
    readBy: MATCHER,
    description: 'BM25 indexes kept (one per agent version), least recently used evicted first.',
  }),
  TENET_EMBEDDING_CACHE_MAX_ENTRIES: withDefault(integer(1), 50_000, {
    readBy: MATCHER,
    description: 'Guideline vectors kept by a matcher replica (about 300 MB of Float32 at 1536 dimensions).',
  }),
  TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES: withDefault(integer(0), 1_000, {
    readBy: MATCHER,
    description: 'Conversation vectors kept, in their own LRU (0 caches none).',
  }),
  TENET_EMBEDDING_TIMEOUT_MS: withDefault(integer(1), 10_000, {
    readBy: MATCHER,
    description: 'An embedding call not answered by then fails; the turn ranks lexically.',
  }),
  TENET_EMBEDDING_BACKOFF_MS: withDefault(integer(1), 5_000, {
    readBy: MATCHER,
    description: 'After a failed embedding call, none is made for this long (doubling per failed trial).',
  }),
  TENET_EMBEDDING_BACKOFF_MAX_MS: withDefault(integer(1), 300_000, { readBy: MATCHER, description: 'The longest embedding backoff.' }),

  // ---- tools ------------------------------------------------------------------------------------------------------
  TENET_TOOL_ALLOWED_HOSTS: withDefault(list(HOST_ENTRY, 'comma-separated entries of host, host:port or *', { lowercase: true }), [], {
    defaultText: '— (public addresses only)',
    readBy: [...TOOLS, 'cli'],
    description:
      'Tool-service targets allowed besides public addresses (loopback and private networks are refused otherwise); `*` allows every address.',
  }),
  TENET_TOOL_MAX_RESPONSE_BYTES: withDefault(digits(1024, 256 * 1024 * 1024), 1024 * 1024, {
    blankIsValue: true,
    readBy: TOOLS,
    description: 'Largest tool-service response read; a larger one fails the call.',
  }),
  TENET_TOOL_STDIO_COMMANDS: withDefault(list(/./, 'comma-separated commands (e.g. npx,node) or *'), [], {
    defaultText: '— (MCP stdio servers disabled)',
    readBy: TOOLS,
    description: 'Commands MCP stdio tool services may run.',
  }),
  TENET_TOOL_EXECUTOR_CONCURRENCY: withDefault(digits(1, 1000), 16, {
    blankIsValue: true,
    readBy: TOOLS,
    description: 'Tool calls one executor runs at once.',
  }),
  TENET_TOOL_RESULT_TTL_SECS: withDefault(digits(1, 7 * 24 * 3600), 3600, {
    blankIsValue: true,
    readBy: TOOLS,
    description: "How long a tool call's result is kept for the turn that asked (seconds).",
  }),
  TENET_TOOL_LOCK_MS: withDefault(digits(1000, 600_000), 5000, {
    blankIsValue: true,
    readBy: TOOLS,
    description: 'BullMQ lock of a running tool call; an executor that stops renewing it loses the job to another.',
  }),

  // ---- memory -------------------------------------------------------------------------------------------------------
  TENET_KNOWLEDGE_INDEX: withDefault(oneOf(['sqlite', 'mongodb'] as const), 'sqlite', {
    blankIsValue: true,
    readBy: ['tenet', 'memory-store'],
    description:
      "`sqlite` (`knowledge.sqlite` in TENET_DATA_DIR) or `mongodb` (Atlas Vector Search in the event log's database; needs distributed mode and MONGO_URL).",
  }),
  TENET_KNOWLEDGE_GRAPH_THREADS: optional(integer(0, 64), {
    readBy: ['tenet', 'memory-store'],
    defaultText: 'min(2, available cores)',
    description:
      "Worker threads of the embedded knowledge index's vector graphs (`sqlite`): each holds a shard of every graph, and a search runs on all of them. 0 keeps the graphs on the main thread. They start once the knowledge base holds TENET_KNOWLEDGE_GRAPH_THREADS_FROM vector rows (each costs ~17 MB of memory).",
  }),
  TENET_KNOWLEDGE_GRAPH_THREADS_FROM: withDefault(integer(0), 50_000, {
    readBy: ['tenet', 'memory-store'],
    description:
      'Vector rows (a chunk per agent tag) from which the embedded knowledge index moves its graphs to TENET_KNOWLEDGE_GRAPH_THREADS worker threads; below it they stay on the main thread.',
  }),

  // ---- channels -----------------------------------------------------------------------------------------------------
  TENET_CHANNELS_GATEWAY_URL: optional(url(['http:', 'https:'], { stripSlash: true }), {
    readBy: CHANNELS,
    defaultText: 'this process (all-in-one); the channel gateway app: http://127.0.0.1:8800',
    description: 'The session gateway the channel gateway calls (Parlant routes).',
  }),
  TENET_CHANNELS_API_KEY: optional(text(), {
    secret: true,
    readBy: CHANNELS,
    defaultText: 'TENET_ADMIN_KEY',
    description: "Key for the channel gateway's calls to the session gateway when keys are required.",
  }),
  TENET_PUBLIC_URL: optional(url(['http:', 'https:'], { stripSlash: true }), {
    readBy: CHANNELS,
    defaultText: "the request's own host",
    description: 'Base of the inbound URLs given to messaging platforms (what they can reach).',
  }),
  TENET_CHANNELS_DELIVERY_ATTEMPTS: withDefault(integer(1), 6, {
    readBy: CHANNELS,
    description: 'Deliveries of one agent message to a platform before it is given up on.',
  }),
  TENET_CHANNELS_MAX_RETRY_AFTER_MS: withDefault(integer(1, undefined, 'milliseconds'), 60_000, {
    readBy: CHANNELS,
    description: "Longest wait for a platform's retry-after before the attempt counts as failed.",
  }),
  TENET_CHANNELS_ALLOW_PRIVATE_TARGETS: withDefault(oneOf(['on', 'off'] as const, { rule: '"on" or "off"' }), 'off', {
    readBy: CHANNELS,
    description:
      'Lets the webhook channel deliver to loopback, private, link-local and metadata addresses (development and tests). Off: such an outbound_url is refused at registration and at delivery.',
  }),

  // ---- the all-in-one demo and the supervisor -----------------------------------------------------------------------
  TENET_DEMO: withDefault(oneOf(['on', 'off'] as const, { rule: '"on" or "off"' }), 'on', {
    readBy: ['tenet', 'start-distributed'],
    description: 'Loads the demo agent (examples/demo-agent.json) and, all-in-one, its order-status tool service at start.',
  }),
  TENET_DEMO_TOOLS_PORT: withDefault(digits(0, 65_535, 'an integer from 0 (any free port) to 65535'), 0, {
    readBy: ['tenet'],
    description: "Port of the demo's order-status tool service on 127.0.0.1.",
  }),
  TENET_MATCHER_REPLICAS: withDefault(integer(1, 16), 2, {
    blankIsValue: true,
    readBy: ['start-distributed'],
    description: 'Guideline-matcher processes `npm run start:distributed` runs.',
  }),
  TENET_TOOL_EXECUTOR_REPLICAS: withDefault(integer(1, 16), 1, {
    blankIsValue: true,
    readBy: ['start-distributed'],
    description: 'Tool-executor processes `npm run start:distributed` runs.',
  }),

  // ---- the CLI --------------------------------------------------------------------------------------------------------
  TENET_URL: withDefault(url(['http:', 'https:'], { stripSlash: true }), 'http://127.0.0.1:8800', {
    readBy: ['cli'],
    description: 'The Tenet server the CLI talks to (`--url` overrides it).',
  }),
  TENET_API_KEY: optional(text(), {
    secret: true,
    readBy: ['cli'],
    description:
      "The CLI's API key. With `--workspace <name>`, `TENET_API_KEY_<NAME>` (upper case, other characters as `_`) is used when set.",
  }),
  TENET_KNOWLEDGE_URL: optional(url(['http:', 'https:'], { stripSlash: true }), {
    readBy: ['cli'],
    defaultText: 'TENET_URL',
    description: 'Where the CLI sends knowledge requests when the memory store is not behind the gateway.',
  }),
};

/** Digits with surrounding spaces allowed, 1 to 999,999,999. */
function digitsTrimmed(rule: string): Rule<number> {
  return numeric(text({ trim: true, pattern: /^[1-9]\d{0,8}$/, rule }));
}

function numeric(base: Rule<string>): Rule<number> {
  return { rule: base.rule, schema: base.schema.transform(Number) };
}

export type VariableName = keyof typeof VARIABLES;
/** Every variable's value, as read. */
export type Settings = { readonly [N in VariableName]: (typeof VARIABLES)[N]['fallback'] };
