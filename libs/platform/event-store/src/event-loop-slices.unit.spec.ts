import { EventLoopSlices } from './event-loop-slices.js';

/** A synchronous call as the SQLite store makes it: enter, busy for `ms`, leave. */
async function gated(slices: EventLoopSlices, ms: number, log: string[], label: string): Promise<void> {
  const turn = slices.enter();
  if (turn) await turn;
  const started = performance.now();
  try {
    const until = started + ms;
    while (performance.now() < until);
    log.push(label);
  } finally {
    slices.leave(performance.now() - started);
  }
}

describe('EventLoopSlices', () => {
  it('runs calls at once while the slice has room', async () => {
    const slices = new EventLoopSlices(1_000);
    const log: string[] = [];
    await Promise.all([gated(slices, 0, log, 'a'), gated(slices, 0, log, 'b')]);
    expect(log).toEqual(['a', 'b']);
    expect(slices.waited).toBe(0);
  });

  it('lets pending I/O and timers run between slices of a long queue of calls, keeping the calls in order', async () => {
    const slices = new EventLoopSlices(2);
    const log: string[] = [];
    // 40 calls of 1 ms issued at once (as 40 turns would): without slices they all run before anything else.
    const calls = Array.from({ length: 40 }, (_, i) => gated(slices, 1, log, `call${i}`));
    setImmediate(() => log.push('io'));
    await Promise.all(calls);
    expect(log.filter((entry) => entry !== 'io')).toEqual(Array.from({ length: 40 }, (_, i) => `call${i}`));
    const served = log.indexOf('io');
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(10); // served after a slice or two, not after all 40 calls
    expect(slices.waited).toBeGreaterThan(0);
  });

  it('serves request work before queued background work', async () => {
    const slices = new EventLoopSlices(2);
    const log: string[] = [];
    const background = slices.inBackground(() => Array.from({ length: 20 }, (_, i) => gated(slices, 1, log, `turn${i}`)));
    const request = gated(slices, 0, log, 'request');
    await Promise.all([...background, request]);
    expect(log.indexOf('request')).toBeLessThan(5);
    expect(log.filter((entry) => entry.startsWith('turn'))).toEqual(Array.from({ length: 20 }, (_, i) => `turn${i}`));
  });

  it('runs a request call at once after background work used up the slice; the next background call waits', async () => {
    const slices = new EventLoopSlices(2);
    const log: string[] = [];
    await slices.inBackground(() => gated(slices, 5, log, 'turn')); // a turn's long store call fills the slice
    const waited = slices.waited;
    const request = gated(slices, 0, log, 'request');
    expect(slices.waited).toBe(waited); // a POST's store call is not made to wait for the turns' share of the loop
    const turn = slices.inBackground(() => gated(slices, 0, log, 'turn2'));
    expect(slices.waited).toBe(waited + 1);
    await Promise.all([request, turn]);
    expect(log).toEqual(['turn', 'request', 'turn2']);
  });

  it("slices a burst of request calls by the requests' own work, serving I/O in between", async () => {
    const slices = new EventLoopSlices(2);
    const log: string[] = [];
    const calls = Array.from({ length: 20 }, (_, i) => gated(slices, 1, log, `request${i}`));
    setImmediate(() => log.push('io'));
    await Promise.all(calls);
    expect(log.indexOf('io')).toBeGreaterThan(0);
    expect(log.indexOf('io')).toBeLessThan(6);
  });

  it('never makes a call wait when slicing is off (Infinity)', async () => {
    const slices = new EventLoopSlices(Infinity);
    const log: string[] = [];
    await Promise.all(Array.from({ length: 10 }, (_, i) => gated(slices, 1, log, `c${i}`)));
    expect(slices.waited).toBe(0);
  });

  it('runs idle-lane calls behind queued request and background calls', async () => {
    const slices = new EventLoopSlices(2);
    slices.idleQuietMs = 0;
    const log: string[] = [];
    // Turns fill the slice and queue; the re-arm's pages queue after them, a request arrives last.
    const turns = slices.inBackground(() => Array.from({ length: 10 }, (_, i) => gated(slices, 1, log, `turn${i}`)));
    const idle = slices.atIdle(() => Array.from({ length: 10 }, (_, i) => gated(slices, 1, log, `idle${i}`)));
    const request = gated(slices, 0, log, 'request');
    await Promise.all([...idle, ...turns, request]);
    expect(log.slice(0, 11).sort()).toEqual(['request', ...Array.from({ length: 10 }, (_, i) => `turn${i}`)].sort());
    expect(log.indexOf('request')).toBeLessThan(5);
    expect(log.filter((entry) => entry.startsWith('idle'))).toEqual(Array.from({ length: 10 }, (_, i) => `idle${i}`));
  });

  it('holds idle-lane calls while other lanes keep making calls, and runs them once those are quiet', async () => {
    const slices = new EventLoopSlices(1_000);
    // Quiet means no call for 5 s: far above how late a 2 ms timer fires on a loaded CI machine (seen: 2 s), so
    // the turn's steps below always count as busy; the re-arm page then runs 5 s after the last one.
    slices.idleQuietMs = 5_000;
    slices.idleMaxWaitMs = 60_000;
    const log: string[] = [];
    await gated(slices, 0, log, 'turn-step'); // a turn just made a store call
    const idle = slices.atIdle(() => gated(slices, 0, log, 'rearm-page'));
    // The turn's next store calls, a few ms apart (it awaits the bus in between): none waits for the re-arm.
    for (let step = 0; step < 5; step++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      await slices.inBackground(() => gated(slices, 0, log, 'turn-step'));
    }
    await idle;
    expect(log).toEqual([...Array.from({ length: 6 }, () => 'turn-step'), 'rearm-page']);
  }, 20_000);

  it('does not starve the idle lane under sustained load (an idle call runs after idleMaxWaitMs)', async () => {
    const slices = new EventLoopSlices(1_000);
    slices.idleQuietMs = 1_000_000;
    slices.idleMaxWaitMs = 30;
    const log: string[] = [];
    await gated(slices, 0, log, 'busy');
    await slices.atIdle(() => gated(slices, 0, log, 'idle'));
    expect(log).toEqual(['busy', 'idle']);
  });
});
