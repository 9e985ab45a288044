import { readFileSync } from 'node:fs';
import { renderConfigurationDoc } from './config-doc.js';
import { ConfigError, loadConfig, readSettings, schemaOf, variablesOf } from './config.js';
import { PROCESSES, type Variable } from './variable.js';
import { VARIABLES, type VariableName } from './variables.js';

const names = Object.keys(VARIABLES) as VariableName[];
const spec = (name: VariableName): Variable<unknown> => VARIABLES[name] as Variable<unknown>;

/** A value each variable's rule refuses. A variable that accepts any text is listed in ANY_TEXT instead. */
const BAD: Partial<Record<VariableName, string>> = {
  TENET_MODE: 'cluster',
  PORT: '70000',
  TENET_HOST: 'my host',
  NATS_URL: 'http://127.0.0.1:4222',
  REDIS_URL: 'localhost:6379',
  MONGO_URL: 'mysql://db',
  TENET_NAMESPACE: 'a.b',
  TENET_RELAY_LEASE_MS: '499',
  TENET_STREAM_MAX_AGE: '7 days',
  TENET_STREAM_MAX_BYTES: '0',
  TENET_STREAM_MAX_MSGS: '1.5',
  TENET_KNOWLEDGE_MAX_AGENT_IDS: '0',
  TENET_KNOWLEDGE_MAX_PARTITIONS: 'many',
  TENET_KNOWLEDGE_MAX_VECTOR_BYTES: '-1',
  TENET_MIN_FREE_DISK_MB: '1GB',
  TENET_LOG_FORMAT: 'yaml',
  TENET_LOG_STARTUP: 'loud',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
  TENET_SHUTDOWN_GRACE_MS: '999',
  TENET_AUTH: 'no',
  TENET_ADMIN_KEY: 'short',
  TENET_RATE_LIMIT_PER_KEY: '-5',
  TENET_RATE_LIMIT_PER_SESSION: '1.5',
  TENET_CORS_ORIGINS: 'https://ok.example.com,app.example.com/path',
  TENET_TURN_DEADLINE_MS: 'soon',
  TENET_MATCHER_ATTEMPT_TIMEOUT_MS: '999',
  TENET_TURN_LEASE_TTL_MS: 'abc',
  TENET_SESSION_CACHE_SIZE: '0',
  TENET_EVENT_TAIL_CACHE_STREAMS: 'many',
  TENET_RECALL_BUDGET_MS: '99',
  TENET_PRICES: '{"gpt-4o": {"inputPerMillion": 1, "outputPerMillion": 2}}',
  TENET_SECRETS_KEY: 'not-a-key',
  TENET_SECRETS_KEY_PREVIOUS: 'not-a-key',
  TENET_LLM_PROVIDER: 'gemini',
  TENET_LLM_FALLBACK_PROVIDER: 'gemini',
  OPENAI_BASE_URL: 'api.openai.com',
  ANTHROPIC_BASE_URL: 'ftp://anthropic',
  TENET_EMBEDDING_PROVIDER: 'anthropic',
  TENET_EMBEDDING_DIMENSIONS: '4',
  TENET_PREFILTER_ALWAYS_KEEP_CAP: '-1',
  TENET_PREFILTER_RANKING: 'bm25',
  TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES: '0',
  TENET_EMBEDDING_CACHE_MAX_ENTRIES: '0',
  TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES: '-1',
  TENET_EMBEDDING_TIMEOUT_MS: 'soon',
  TENET_EMBEDDING_BACKOFF_MS: '0',
  TENET_EMBEDDING_BACKOFF_MAX_MS: '1.5',
  TENET_TOOL_ALLOWED_HOSTS: 'http://x/',
  TENET_TOOL_MAX_RESPONSE_BYTES: '12',
  TENET_TOOL_EXECUTOR_CONCURRENCY: '0',
  TENET_TOOL_RESULT_TTL_SECS: '',
  TENET_TOOL_LOCK_MS: '999',
  TENET_KNOWLEDGE_INDEX: 'qdrant',
  TENET_KNOWLEDGE_GRAPH_THREADS: '-1',
  TENET_KNOWLEDGE_GRAPH_THREADS_FROM: 'many',
  TENET_CHANNELS_GATEWAY_URL: 'gateway:8800',
  TENET_PUBLIC_URL: 'tenet.example.com',
  TENET_CHANNELS_DELIVERY_ATTEMPTS: '0',
  TENET_CHANNELS_MAX_RETRY_AFTER_MS: 'never',
  TENET_CHANNELS_ALLOW_PRIVATE_TARGETS: 'yes',
  TENET_DEMO: 'yes',
  TENET_DEMO_TOOLS_PORT: 'any',
  TENET_MATCHER_REPLICAS: '17',
  TENET_TOOL_EXECUTOR_REPLICAS: '0',
  TENET_URL: 'tenet:8800',
  TENET_KNOWLEDGE_URL: 'memory-store',
};
/** Free text: names, keys, paths and prefixes Tenet passes on as they are. */
const ANY_TEXT: VariableName[] = [
  'TENET_DATA_DIR',
  'TENET_REDIS_PREFIX',
  'NODE_ENV',
  'TENET_LLM_MODEL',
  'TENET_LLM_FALLBACK_MODEL',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'TENET_EMBEDDING_MODEL',
  'TENET_TOOL_STDIO_COMMANDS',
  'TENET_CHANNELS_API_KEY',
  'TENET_API_KEY',
];

describe('the configuration schema', () => {
  it('describes every variable: a rule, a default, a description and the processes that read it', () => {
    for (const name of names) {
      const v = spec(name);
      expect({
        name,
        description: v.description.length > 10,
        rule: v.rule.length > 2,
        defaultText: v.defaultText.length > 0,
        readBy: v.readBy.length > 0,
      }).toEqual({
        name,
        description: true,
        rule: true,
        defaultText: true,
        readBy: true,
      });
    }
  });

  it('has one schema per process, each over the variables that process reads', () => {
    for (const processName of PROCESSES) expect(variablesOf(processName).length).toBeGreaterThan(0);
    expect(variablesOf('guideline-matcher')).toEqual(expect.arrayContaining(['TENET_PREFILTER_RANKING', 'TENET_LLM_PROVIDER', 'NATS_URL']));
    expect(variablesOf('guideline-matcher')).not.toContain('TENET_TURN_LEASE_TTL_MS');
    expect(variablesOf('session-gateway')).toEqual(expect.arrayContaining(['TENET_TURN_LEASE_TTL_MS', 'TENET_AUTH', 'TENET_CORS_ORIGINS']));
    expect(variablesOf('tenet')).toEqual(names.filter((n) => spec(n).readBy.includes('tenet')));
    expect(Object.keys(schemaOf('cli').parse({ TENET_API_KEY: 'key', TENET_KNOWLEDGE_URL: 'http://memory-store:8806' })).sort()).toEqual(
      variablesOf('cli').sort(),
    );
  });

  it('classifies every variable: either its rule refuses a value, or it is free text', () => {
    expect(names.filter((n) => BAD[n] === undefined && !ANY_TEXT.includes(n))).toEqual([]);
  });

  it.each(Object.entries(BAD) as [VariableName, string][])('refuses a bad %s, naming the variable and the rule', (name, bad) => {
    let error: unknown;
    try {
      readSettings({ [name]: bad }, [name]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const [problem] = (error as ConfigError).problems;
    expect(problem).toBe(
      `${name} must be ${spec(name).rule} (got ${spec(name).secret ? `${bad.length} characters` : JSON.stringify(bad)})`,
    );
  });

  it('keeps the defaults when nothing is set, and reads set values', () => {
    const matcher = loadConfig('guideline-matcher', {});
    expect(matcher.get('TENET_PREFILTER_RANKING')).toBe('hybrid');
    expect(matcher.get('TENET_PREFILTER_ALWAYS_KEEP_CAP')).toBeUndefined();
    expect(matcher.get('NATS_URL')).toBe('nats://127.0.0.1:4222');
    expect(
      loadConfig('guideline-matcher', { TENET_PREFILTER_ALWAYS_KEEP_CAP: 'OFF', TENET_PREFILTER_RANKING: ' Lexical ' }).pick([
        'TENET_PREFILTER_ALWAYS_KEEP_CAP',
        'TENET_PREFILTER_RANKING',
      ]),
    ).toEqual({
      TENET_PREFILTER_ALWAYS_KEEP_CAP: Infinity,
      TENET_PREFILTER_RANKING: 'lexical',
    });
    const gateway = loadConfig('session-gateway', {
      TENET_CORS_ORIGINS: ' https://a.example.com, ,http://b.example.com:8080',
      TENET_STREAM_MAX_BYTES: '512MB',
      TENET_STREAM_MAX_AGE: '12h',
    });
    expect(gateway.get('TENET_CORS_ORIGINS')).toEqual(['https://a.example.com', 'http://b.example.com:8080']);
    expect(gateway.get('TENET_STREAM_MAX_BYTES')).toBe(512 * 1024 ** 2);
    expect(gateway.get('TENET_STREAM_MAX_AGE')).toBe(12 * 3_600_000);
    expect(gateway.get('TENET_TURN_LEASE_TTL_MS')).toBe(15_000);
  });

  it('treats an empty value as unset, except where the rule refuses it', () => {
    expect(readSettings({ TENET_RATE_LIMIT_PER_KEY: '', TENET_NAMESPACE: '' }, ['TENET_RATE_LIMIT_PER_KEY', 'TENET_NAMESPACE'])).toEqual({
      TENET_RATE_LIMIT_PER_KEY: 600,
      TENET_NAMESPACE: undefined,
    });
    expect(() => readSettings({ TENET_AUTH: '' }, ['TENET_AUTH'])).toThrow('TENET_AUTH must be "on" or "off" (got "")');
    expect(() => readSettings({ TENET_HOST: '' }, ['TENET_HOST'])).toThrow('TENET_HOST must be');
  });

  it('reports every bad variable of a process at once, and never repeats a secret', () => {
    let error: unknown;
    try {
      loadConfig('tenet', { TENET_TURN_LEASE_TTL_MS: 'abc', TENET_ADMIN_KEY: 'hunter2', PORT: 'eighty' });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual([
      'PORT must be an integer from 0 (any free port) to 65535 (got "eighty")',
      'TENET_ADMIN_KEY must be at least 32 characters (e.g. `openssl rand -base64 32`) (got 7 characters)',
      'TENET_TURN_LEASE_TTL_MS must be an integer ≥ 1000 (got "abc")',
    ]);
    expect((error as ConfigError).message).not.toContain('hunter2');
  });

  it('checks the rules across variables: a previous secrets key needs a current one', () => {
    expect(() => loadConfig('tool-executor', { TENET_SECRETS_KEY_PREVIOUS: 'a'.repeat(64) })).toThrow(
      'TENET_SECRETS_KEY_PREVIOUS is set without TENET_SECRETS_KEY',
    );
  });

  it("ignores variables outside the process's schema, and refuses to hand one out", () => {
    const journeys = loadConfig('journey-engine', { TENET_TURN_LEASE_TTL_MS: 'abc' });
    expect(() => journeys.get('TENET_TURN_LEASE_TTL_MS')).toThrow(
      'TENET_TURN_LEASE_TTL_MS is not in the journey-engine configuration schema',
    );
  });
});

describe('docs/configuration.md (run `npm run config:docs` after changing the schema)', () => {
  it('is the rendering of the schema', () => {
    expect(readFileSync(new URL('../../../../docs/configuration.md', import.meta.url), 'utf8')).toBe(renderConfigurationDoc());
  });
});
