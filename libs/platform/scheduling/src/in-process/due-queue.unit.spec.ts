import { DueQueue, type Due } from './due-queue.js';

const item = (name: string): Due & { name: string } => ({ name, dueAt: 0, seq: 0, heapIndex: -1 });

describe('DueQueue', () => {
  it('gives items back earliest first, and in insertion order when due together', () => {
    const queue = new DueQueue<ReturnType<typeof item>>();
    const due: [string, number][] = [
      ['c', 30],
      ['a', 10],
      ['b1', 20],
      ['e', 50],
      ['b2', 20],
      ['d', 40],
    ];
    for (const [name, at] of due) queue.push(item(name), at);
    const order: string[] = [];
    for (let next = queue.pop(); next; next = queue.pop()) order.push(next.name);
    expect(order).toEqual(['a', 'b1', 'b2', 'c', 'd', 'e']);
  });

  it('takes out any item (a cancelled timer) and keeps the rest in order', () => {
    const queue = new DueQueue<ReturnType<typeof item>>();
    const items = Array.from({ length: 200 }, (_, i) => item(String(i)));
    // Due times in a scrambled order, so removals hit every level of the heap.
    items.forEach((it, i) => queue.push(it, (i * 37) % 200));
    const removed = items.filter((_, i) => i % 3 === 0);
    for (const it of removed) expect(queue.remove(it)).toBe(true);
    for (const it of removed) expect(queue.remove(it)).toBe(false);
    const left: number[] = [];
    for (let next = queue.pop(); next; next = queue.pop()) left.push(next.dueAt);
    expect(left).toEqual([...left].sort((a, b) => a - b));
    expect(left).toHaveLength(200 - removed.length);
    expect(queue.size).toBe(0);
  });
});
