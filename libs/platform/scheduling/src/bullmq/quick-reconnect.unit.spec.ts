import { reconnectDelayMs, withQuickReconnect } from './quick-reconnect.js';

describe('withQuickReconnect', () => {
  it('waits 250 ms doubling between reconnect attempts, never more than 2 s', () => {
    expect([1, 2, 3, 4, 5, 10, 100].map(reconnectDelayMs)).toEqual([250, 500, 1_000, 2_000, 2_000, 2_000, 2_000]);
  });

  it('adds the strategy to the connection options and keeps one the caller set', () => {
    expect(withQuickReconnect({ host: 'cache', port: 6380 })).toEqual({ host: 'cache', port: 6380, retryStrategy: reconnectDelayMs });
    const own = (): number => 5;
    expect(withQuickReconnect({ host: 'cache', retryStrategy: own }).retryStrategy).toBe(own);
  });
});
