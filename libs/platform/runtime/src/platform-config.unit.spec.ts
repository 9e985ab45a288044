import { DEFAULT_KNOWLEDGE_LIMITS, loadPlatformConfig, PlatformConfigError } from './platform-config.js';

describe('loadPlatformConfig', () => {
  it('defaults to the embedded mode on port 8800 with ./.tenet-data', () => {
    const config = loadPlatformConfig({});
    expect(config).toMatchObject({ mode: 'embedded', port: 8800, natsUrl: 'nats://127.0.0.1:4222', redisUrl: 'redis://127.0.0.1:6379' });
    expect(config.dataDir).toMatch(/\.tenet-data$/);
    expect(config.mongoUrl).toBeUndefined();
    expect(config.relayLeaseMs).toBe(10_000);
  });

  it('reads the distributed settings', () => {
    const config = loadPlatformConfig({
      TENET_MODE: 'distributed',
      PORT: '9000',
      NATS_URL: 'nats://n:4222',
      REDIS_URL: 'redis://r:6379',
      MONGO_URL: 'mongodb://m:27017/tenet?replicaSet=rs0',
      TENET_DATA_DIR: '/tmp/x',
    });
    expect(config).toEqual({
      mode: 'distributed',
      port: 9000,
      natsUrl: 'nats://n:4222',
      redisUrl: 'redis://r:6379',
      mongoUrl: 'mongodb://m:27017/tenet?replicaSet=rs0',
      dataDir: '/tmp/x',
      redisPrefix: 'tenet',
      serviceName: 'tenet',
      relayLeaseMs: 10_000,
      streamLimits: {},
      knowledgeLimits: DEFAULT_KNOWLEDGE_LIMITS,
      minFreeDiskBytes: 64 * 1024 ** 2,
      eventTailCacheStreams: 2_000,
    });
  });

  it("reads the bound of the SQLite log's stream tail cache, and refuses a non-integer", () => {
    expect(loadPlatformConfig({ TENET_EVENT_TAIL_CACHE_STREAMS: '50' }).eventTailCacheStreams).toBe(50);
    expect(() => loadPlatformConfig({ TENET_EVENT_TAIL_CACHE_STREAMS: '0' })).toThrow('TENET_EVENT_TAIL_CACHE_STREAMS');
  });

  it('reads the free disk space readiness asks for, in MiB (0: no check), and refuses anything else', () => {
    expect(loadPlatformConfig({ TENET_MIN_FREE_DISK_MB: '0' }).minFreeDiskBytes).toBe(0);
    expect(loadPlatformConfig({ TENET_MIN_FREE_DISK_MB: '500' }).minFreeDiskBytes).toBe(500 * 1024 ** 2);
    for (const bad of ['-1', '1.5', '1GB'])
      expect(() => loadPlatformConfig({ TENET_MIN_FREE_DISK_MB: bad })).toThrow(
        `TENET_MIN_FREE_DISK_MB must be a whole number of MiB (0: no check) (got "${bad}")`,
      );
  });

  it('reads an optional subject namespace and refuses one that is not a subject token', () => {
    expect(loadPlatformConfig({ TENET_NAMESPACE: 'staging-1' }).namespace).toBe('staging-1');
    expect(loadPlatformConfig({}).namespace).toBeUndefined();
    expect(() => loadPlatformConfig({ TENET_NAMESPACE: 'a.b' })).toThrow(
      'TENET_NAMESPACE must be 1-64 characters of [A-Za-z0-9_-] (got "a.b")',
    );
  });

  it('reads the relay leader lease and refuses one outside 500..300000 ms', () => {
    expect(loadPlatformConfig({ TENET_RELAY_LEASE_MS: '2500' }).relayLeaseMs).toBe(2_500);
    expect(loadPlatformConfig({ TENET_RELAY_LEASE_MS: '' }).relayLeaseMs).toBe(10_000);
    for (const bad of ['499', '300001', '10s', '-1', '1e4']) {
      expect(() => loadPlatformConfig({ TENET_RELAY_LEASE_MS: bad })).toThrow(
        `TENET_RELAY_LEASE_MS must be an integer from 500 to 300000 (milliseconds) (got "${bad}")`,
      );
    }
  });

  it('reads the stream limits that are set (only those: the others are left to the stream), with units', () => {
    expect(loadPlatformConfig({}).streamLimits).toEqual({});
    expect(
      loadPlatformConfig({ TENET_STREAM_MAX_AGE: '12h', TENET_STREAM_MAX_BYTES: '512MB', TENET_STREAM_MAX_MSGS: '1000000' }).streamLimits,
    ).toEqual({ maxAgeMs: 12 * 3_600_000, maxBytes: 512 * 1024 ** 2, maxMessages: 1_000_000 });
    expect(
      loadPlatformConfig({ TENET_STREAM_MAX_AGE: '0', TENET_STREAM_MAX_BYTES: '-1', TENET_STREAM_MAX_MSGS: '-1' }).streamLimits,
    ).toEqual({ maxAgeMs: 0, maxBytes: -1, maxMessages: -1 });
    expect(loadPlatformConfig({ TENET_STREAM_MAX_AGE: '7d', TENET_STREAM_MAX_BYTES: '2048' }).streamLimits).toEqual({
      maxAgeMs: 7 * 86_400_000,
      maxBytes: 2048,
    });
    expect(() => loadPlatformConfig({ TENET_STREAM_MAX_AGE: '7 days' })).toThrow(
      'TENET_STREAM_MAX_AGE must be a duration such as 7d, 12h, 30m or 0',
    );
    expect(() => loadPlatformConfig({ TENET_STREAM_MAX_BYTES: '0' })).toThrow('TENET_STREAM_MAX_BYTES must be a positive size');
    expect(() => loadPlatformConfig({ TENET_STREAM_MAX_MSGS: '1.5' })).toThrow('TENET_STREAM_MAX_MSGS must be a positive integer or -1');
  });

  it('reads the knowledge limits, each checked', () => {
    expect(loadPlatformConfig({}).knowledgeLimits).toEqual({
      maxAgentIdsPerSource: 100,
      maxPartitionsPerWorkspace: 200,
      maxVectorBytesPerWorkspace: 256 * 1024 ** 2,
    });
    expect(
      loadPlatformConfig({
        TENET_KNOWLEDGE_MAX_AGENT_IDS: '5',
        TENET_KNOWLEDGE_MAX_PARTITIONS: '7',
        TENET_KNOWLEDGE_MAX_VECTOR_BYTES: '1GB',
      }).knowledgeLimits,
    ).toEqual({ maxAgentIdsPerSource: 5, maxPartitionsPerWorkspace: 7, maxVectorBytesPerWorkspace: 1024 ** 3 });
    expect(() => loadPlatformConfig({ TENET_KNOWLEDGE_MAX_AGENT_IDS: '0' })).toThrow(
      'TENET_KNOWLEDGE_MAX_AGENT_IDS must be a positive whole number (got "0")',
    );
    expect(() => loadPlatformConfig({ TENET_KNOWLEDGE_MAX_PARTITIONS: 'many' })).toThrow(
      'TENET_KNOWLEDGE_MAX_PARTITIONS must be a positive whole number',
    );
    expect(() => loadPlatformConfig({ TENET_KNOWLEDGE_MAX_VECTOR_BYTES: '-1' })).toThrow(
      'TENET_KNOWLEDGE_MAX_VECTOR_BYTES must be a positive size',
    );
  });

  it('reports every invalid variable with its rule', () => {
    let error: unknown;
    try {
      loadPlatformConfig({ TENET_MODE: 'cluster', PORT: '70000', NATS_URL: 'http://x', MONGO_URL: 'not a url' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PlatformConfigError);
    expect((error as PlatformConfigError).problems).toEqual([
      'TENET_MODE must be "embedded" or "distributed" (got "cluster")',
      'PORT must be an integer from 0 (any free port) to 65535 (got "70000")',
      'NATS_URL must be a URL with nats or tls (got "http://x")',
      'MONGO_URL must be a URL with mongodb or mongodb+srv (got "not a url")',
    ]);
  });
});
