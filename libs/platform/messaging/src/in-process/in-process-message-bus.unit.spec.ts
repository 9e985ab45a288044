import { eventually } from '@tenet/testing';
import { messageBusConformance } from '../testing/index.js';
import { InProcessMessageBus } from './in-process-message-bus.js';

messageBusConformance('in-process', async () => {
  const bus = new InProcessMessageBus();
  return { bus, createStream: async (spec) => bus.ensureStream(spec), dispose: () => bus.close() };
});

describe('InProcessMessageBus memory bounds', () => {
  it('keeps at most maxMessages (oldest dropped), and a durable that starts later begins at the oldest kept', async () => {
    const bus = new InProcessMessageBus({ streams: [{ name: 'S', subjects: ['m.>'], maxMessages: 100 }] });
    for (let i = 0; i < 1_000; i++) await bus.publish('m.x', i, { msgId: `id-${i}` });
    const seen: number[] = [];
    await bus.consume<number>({ durable: 'late', filterSubject: 'm.>' }, async (m) => void seen.push(m.data));
    // Delivered in order: the newest arriving means all kept ones did (a fixed 50 ms was too short on a loaded CI).
    await eventually(() => expect(seen.at(-1)).toBe(999));
    await new Promise((resolve) => setTimeout(resolve, 20)); // a message past the bound would show up here
    expect(seen.length).toBeGreaterThanOrEqual(100);
    expect(seen.length).toBeLessThanOrEqual(110);
    expect(seen.at(-1)).toBe(999);
    await bus.close();
  });

  it('still drops a duplicate msgId inside the window after many distinct ids', async () => {
    const bus = new InProcessMessageBus({ streams: [{ name: 'S', subjects: ['d.>'] }] });
    for (let i = 0; i < 20_000; i++) await bus.publish('d.x', i, { msgId: `id-${i}` });
    await bus.publish('d.x', 'again', { msgId: 'id-5' });
    const seen: unknown[] = [];
    await bus.consume({ durable: 'all', filterSubject: 'd.>' }, async (m) => void seen.push(m.data));
    await eventually(() => expect(seen).toHaveLength(20_000), { timeoutMs: 50_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toHaveLength(20_000);
    expect(seen).not.toContain('again');
    await bus.close();
    // 20,000 publishes and deliveries: well under a second alone, but a loaded 2-core machine stretches them.
  }, 60_000);
});

describe('InProcessMessageBus notifications', () => {
  it("wakes listeners after notify() returns and before the loop turns: a woken long-poll is not behind the notifier's other work", async () => {
    const bus = new InProcessMessageBus();
    const order: string[] = [];
    await bus.listen('wake.*', (_data, subject) => void order.push(`woken ${subject}`));
    const nextTurn = new Promise<void>((resolve) => setImmediate(() => (order.push('next turn'), resolve())));
    const notified = bus.notify('wake.s1', { offset: 3 });
    order.push('notify returned');
    await notified;
    await nextTurn;
    expect(order).toEqual(['notify returned', 'woken wake.s1', 'next turn']);
    await bus.close();
  });
});
