import { BackgroundArming } from './background-arming.js';
import type { Scheduler } from './scheduler.port.js';

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
  it('rebuilds when the scheduler says its store is back: one more run for restorations during a run, none after stop', async () => {
    const listeners = new Set<() => void>();
    const scheduler = {
      onRestored: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    } as unknown as Scheduler;
    const restore = () => listeners.forEach((listener) => listener());
    const arming = new BackgroundArming({ attempts: 1, attemptTimeoutMs: 1_000, log: quiet, whenLost: 'test' });
    let runs = 0;
    const finishes: (() => void)[] = [];
    arming.rebuildWhenRestored(scheduler, 'the timers', () => {
      runs++;
      return new Promise<void>((resolve) => finishes.push(resolve));
    });
    expect(runs).toBe(0); // nothing until the store comes back

    restore();
    expect(runs).toBe(1);
    restore(); // three restorations while the first rebuild runs: one more rebuild after it, not three
    restore();
    restore();
    expect(runs).toBe(1);
    finishes.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(2);
    finishes.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(2);

    await arming.stop();
    expect(listeners.size).toBe(0); // unsubscribed at shutdown
    restore();
    expect(runs).toBe(2);
  });
});
