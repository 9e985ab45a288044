import { BackgroundArming } from './background-arming.js';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('BackgroundArming', () => {
  it('makes its first attempt on the next turn of the loop, after the caller and its microtasks have run', async () => {
    const arming = new BackgroundArming({ attempts: 1, attemptTimeoutMs: 1_000, log: quiet, whenLost: 'test' });
    const order: string[] = [];
    arming.armSoon('session s1', async () => void order.push('armed'));
    await Promise.resolve().then(() => order.push('caller microtask'));
    order.push('caller done');
    await arming.stop(); // waits for the attempt under way
    expect(order).toEqual(['caller microtask', 'caller done', 'armed']);
  });

  it('still retries a failed attempt, and gives up after the attempts it was given', async () => {
    const errors: string[] = [];
    const arming = new BackgroundArming({
      attempts: 2,
      attemptTimeoutMs: 1_000,
      log: { ...quiet, error: (m) => void errors.push(m) },
      whenLost: 'start-up re-arms them',
    });
    let calls = 0;
    arming.armSoon('session s2', async () => {
      calls++;
      throw new Error('store down');
    });
    await new Promise((resolve) => setImmediate(resolve));
    await arming.stop(); // cuts the backoff short; the second attempt runs and fails
    expect(calls).toBe(2);
    expect(errors).toEqual([expect.stringContaining('session s2: timers not armed (store down); start-up re-arms them')]);
  });
});
