/** What the queue orders: its due time, and its place in the heap (kept by the queue; -1 when not queued). */
export interface Due {
  dueAt: number;
  /** Insertion order: of two items due at the same moment, the one queued first comes first (as timers fire). */
  seq: number;
  heapIndex: number;
}

const before = (a: Due, b: Due): boolean => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);

/**
 * Delayed items by due time: a binary min-heap whose items know their index, so one can be taken out in
 * O(log n) (a cancelled timer). The in-process scheduler keeps one Node timer for the earliest item instead of
 * one per job: a pending job costs its few fields here, not a Timeout, its closure and a timer-list node.
 */
export class DueQueue<T extends Due> {
  private readonly heap: T[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** The earliest item, without taking it out. */
  peek(): T | undefined {
    return this.heap[0];
  }

  push(item: T, dueAt: number): void {
    item.dueAt = dueAt;
    item.seq = this.nextSeq++;
    item.heapIndex = this.heap.length;
    this.heap.push(item);
    this.up(item.heapIndex);
  }

  /** Takes the earliest item out. */
  pop(): T | undefined {
    const top = this.heap[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Takes `item` out if it is queued; false when it was not. */
  remove(item: T): boolean {
    const index = item.heapIndex;
    if (index < 0 || this.heap[index] !== item) return false;
    const last = this.heap.pop() as T;
    item.heapIndex = -1;
    if (last !== item) {
      this.heap[index] = last;
      last.heapIndex = index;
      this.down(index);
      this.up(last.heapIndex);
    }
    return true;
  }

  clear(): void {
    for (const item of this.heap) item.heapIndex = -1;
    this.heap.length = 0;
  }

  private up(index: number): void {
    const heap = this.heap;
    const item = heap[index] as T;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex] as T;
      if (!before(item, parent)) break;
      heap[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    heap[index] = item;
    item.heapIndex = index;
  }

  private down(index: number): void {
    const heap = this.heap;
    const item = heap[index] as T;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right] as T, heap[left] as T) ? right : left;
      const smaller = heap[child] as T;
      if (!before(smaller, item)) break;
      heap[index] = smaller;
      smaller.heapIndex = index;
      index = child;
    }
    heap[index] = item;
    item.heapIndex = index;
  }
}
