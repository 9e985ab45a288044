import { redisOptionsFromUrl } from './bullmq-scheduler.js';

describe('redisOptionsFromUrl', () => {
  it('takes host and port, defaulting the port to 6379', () => {
    expect(redisOptionsFromUrl('redis://127.0.0.1:6380')).toEqual({ host: '127.0.0.1', port: 6380 });
    expect(redisOptionsFromUrl('redis://cache')).toEqual({ host: 'cache', port: 6379 });
  });

  it('takes credentials (percent-decoded), the database number and TLS for rediss://', () => {
    expect(redisOptionsFromUrl('rediss://tenet:p%40ss@cache.internal:6390/2')).toEqual({
      host: 'cache.internal',
      port: 6390,
      username: 'tenet',
      password: 'p@ss',
      db: 2,
      tls: {},
    });
  });

  it('unwraps IPv6 hosts', () => {
    expect(redisOptionsFromUrl('redis://[::1]:6379')).toMatchObject({ host: '::1' });
  });

  it('rejects other schemes', () => {
    expect(() => redisOptionsFromUrl('http://localhost:6379')).toThrow(/redis:\/\//);
  });
});
