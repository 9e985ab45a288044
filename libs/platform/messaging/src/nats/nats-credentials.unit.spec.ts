import { credentialsFromUrls } from './nats-message-bus.js';

describe('NATS_URL credentials', () => {
  it('moves user and password (or a token) from the URLs into the connect options', () => {
    expect(credentialsFromUrls('nats://tenet:p%40ss@127.0.0.1:4222')).toEqual({
      servers: ['nats://127.0.0.1:4222'],
      auth: { user: 'tenet', pass: 'p@ss' },
    });
    expect(credentialsFromUrls('nats://s3cret-token@nats.internal:4222')).toEqual({
      servers: ['nats://nats.internal:4222'],
      auth: { token: 's3cret-token' },
    });
    expect(credentialsFromUrls(['nats://a:b@h1:4222', 'nats://a:b@h2:4222'])).toEqual({
      servers: ['nats://h1:4222', 'nats://h2:4222'],
      auth: { user: 'a', pass: 'b' },
    });
    expect(credentialsFromUrls('nats://127.0.0.1:4222')).toEqual({ servers: ['nats://127.0.0.1:4222'], auth: {} });
  });

  it('refuses URLs with different credentials', () => {
    expect(() => credentialsFromUrls('nats://a:b@h1:4222,nats://c:d@h2:4222')).toThrow(/same credentials/);
  });
});
