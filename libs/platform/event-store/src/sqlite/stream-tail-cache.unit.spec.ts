import { type EventRow, StreamTailCache, type StreamTail } from './stream-tail-cache.js';

const row = (offset: number, text = 'x'.repeat(offset + 1)): EventRow => ({
  position: offset + 1,
  id: `e${offset}`,
  stream_id: 's',
  stream_offset: offset,
  type: 'message',
  data: JSON.stringify({ text }),
  metadata: '{}',
  recorded_at: '2026-11-27T00:00:00.000Z',
});
// The size the cache's bound counts, summed from scratch (what `chars` keeps up incrementally).
const summed = (tail: StreamTail): number => tail.rows.reduce((size, r) => size + r.data.length + r.metadata.length + 128, 64);

describe('StreamTailCache sizes', () => {
  it('keeps each tail size equal to its rows as it is filled, extended and trimmed', () => {
    const cache = new StreamTailCache({ streams: 10, eventsPerStream: 4, maxChars: 1_000_000 });
    const filled = cache.fill('s', [row(2), row(1), row(0)]);
    expect(filled.chars).toBe(summed(filled));
    cache.appended('s', [row(3)]);
    cache.appended('s', [row(4), row(5)]); // past eventsPerStream: the two oldest rows go
    const tail = cache.peek('s')!;
    expect(tail.rows.map((r) => r.stream_offset)).toEqual([2, 3, 4, 5]);
    expect(tail.chars).toBe(summed(tail));
    cache.appended('t', [row(7)]);
    expect(cache.peek('t')!.chars).toBe(summed(cache.peek('t')!));
    expect(cache.fill('empty', []).chars).toBe(64);
  });

  it('drops least recently used tails once their sizes pass maxChars', () => {
    const one = summed({ from: 0, version: 0, rows: [row(0, 'y'.repeat(400))], chars: 0 });
    const cache = new StreamTailCache({ streams: 10, eventsPerStream: 4, maxChars: one * 2 });
    for (const id of ['a', 'b', 'c']) cache.fill(id, [row(0, 'y'.repeat(400))]);
    expect(cache.size).toBe(2);
    expect(cache.peek('a')).toBeUndefined();
  });
});
