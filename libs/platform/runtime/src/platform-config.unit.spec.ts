import { loadPlatformConfig, PlatformConfigError } from './platform-config.js';

describe('loadPlatformConfig', () => {
  it('defaults to the embedded mode on port 8800 with ./.tenet-data', () => {
    const config = loadPlatformConfig({});
    expect(config).toMatchObject({ mode: 'embedded', port: 8800, natsUrl: 'nats://127.0.0.1:4222', redisUrl: 'redis://127.0.0.1:6379' });
    expect(config.dataDir).toMatch(/\.tenet-data$/);
    expect(config.mongoUrl).toBeUndefined();
    expect(config.relayLeaseMs).toBe(10_000);
  });

  it('reads the distributed settings', () => {
    const config = loadPlatformConfig({ TENET_MODE: 'distributed', PORT: '9000', NATS_URL: 'nats://n:4222', REDIS_URL: 'redis://r:6379', MONGO_URL: 'mongodb://m:27017/tenet?replicaSet=rs0', TENET_DATA_DIR: '/tmp/x' });
    expect(config).toEqual({ mode: 'distributed', port: 9000, natsUrl: 'nats://n:4222', redisUrl: 'redis://r:6379', mongoUrl: 'mongodb://m:27017/tenet?replicaSet=rs0', dataDir: '/tmp/x', redisPrefix: 'tenet', serviceName: 'tenet', relayLeaseMs: 10_000 });
  });

  it('reads an optional subject namespace and refuses one that is not a subject token', () => {
    expect(loadPlatformConfig({ TENET_NAMESPACE: 'staging-1' }).namespace).toBe('staging-1');
    expect(loadPlatformConfig({}).namespace).toBeUndefined();
    expect(() => loadPlatformConfig({ TENET_NAMESPACE: 'a.b' })).toThrow('TENET_NAMESPACE must be 1-64 characters of [A-Za-z0-9_-], got "a.b"');
  });

  it('reads the relay leader lease and refuses one outside 500..300000 ms', () => {
    expect(loadPlatformConfig({ TENET_RELAY_LEASE_MS: '2500' }).relayLeaseMs).toBe(2_500);
    expect(loadPlatformConfig({ TENET_RELAY_LEASE_MS: '' }).relayLeaseMs).toBe(10_000);
    for (const bad of ['499', '300001', '10s', '-1', '1e4']) {
      expect(() => loadPlatformConfig({ TENET_RELAY_LEASE_MS: bad })).toThrow(`TENET_RELAY_LEASE_MS must be an integer from 500 to 300000 (milliseconds), got "${bad}"`);
    }
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
      'TENET_MODE must be "embedded" or "distributed", got "cluster"',
      'PORT must be an integer from 0 (any free port) to 65535, got "70000"',
      'NATS_URL must use nats: or tls:, got "http:"',
      'MONGO_URL must be a URL, got "not a url"',
    ]);
  });
});
