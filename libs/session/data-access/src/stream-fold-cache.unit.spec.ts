import { InMemoryEventStore, type ReadStreamOptions, type StoredEvent } from '@tenet/event-store';
import { decide, defaultSessionConfig } from '@tenet/session-domain';
import { SessionsRepository } from './sessions.repository.js';
import { crudEvolve, ResourceStreams, StreamFoldCache } from '@tenet/edge';

interface Item {
  id: string;
  name: string;
  count?: number;
}

/** Records the `fromOffset` of every stream read. */
class RecordingStore extends InMemoryEventStore {
  readonly reads: { streamId: string; fromOffset: number; returned: number }[] = [];
  override async readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    const events = await super.readStream(streamId, options);
    this.reads.push({ streamId, fromOffset: options?.fromOffset ?? 0, returned: events.length });
    return events;
  }
  override openHandle(): RecordingStore {
    return new RecordingStore(this.log);
  }
}

const sessionView = (id: string) => ({
  id,
  agent_id: 'a1',
  customer_id: 'guest',
  creation_utc: '2026-01-01T00:00:00.000Z',
  mode: 'auto' as const,
  consumption_offsets: { client: 0 },
  metadata: {},
  labels: [],
  config: { ...defaultSessionConfig },
});

describe('StreamFoldCache', () => {
  it('folds only the events appended since the cached version', async () => {
    const store = new RecordingStore();
    const cache = new StreamFoldCache<Item>(store, crudEvolve<Item>('Item'));
    await store.append('item-1', [{ type: 'ItemCreated', data: { id: '1', name: 'one' } }]);
    for (let i = 0; i < 200; i++) await store.append('item-1', [{ type: 'ItemUpdated', data: { count: i } }]);
    expect(await cache.read('item-1')).toEqual({ state: { id: '1', name: 'one', count: 199 }, version: 200 });
    await store.append('item-1', [{ type: 'ItemUpdated', data: { name: 'uno' } }]);
    expect(await cache.read('item-1')).toEqual({ state: { id: '1', name: 'uno', count: 199 }, version: 201 });
    expect(await cache.read('item-1')).toEqual({ state: { id: '1', name: 'uno', count: 199 }, version: 201 });
    expect(store.reads.map((r) => [r.fromOffset, r.returned])).toEqual([
      [0, 201],
      [201, 1],
      [202, 0],
    ]);
  });

  it('keeps at most `capacity` streams, least recently read evicted first, and refolds an evicted one correctly', async () => {
    const store = new RecordingStore();
    const cache = new StreamFoldCache<Item>(store, crudEvolve<Item>('Item'), 3);
    for (const id of ['a', 'b', 'c', 'd']) await store.append(`item-${id}`, [{ type: 'ItemCreated', data: { id, name: id } }]);
    for (const id of ['a', 'b', 'c']) await cache.read(`item-${id}`);
    await cache.read('item-a'); // a is now the most recently read; b the least
    await cache.read('item-d');
    expect(cache.size).toBe(3);
    store.reads.length = 0;
    for (const id of ['a', 'c', 'd', 'b']) expect((await cache.read(`item-${id}`)).state).toEqual({ id, name: id });
    expect(store.reads.map((r) => [r.streamId, r.fromOffset])).toEqual([
      ['item-a', 1],
      ['item-c', 1],
      ['item-d', 1],
      ['item-b', 0],
    ]);
    expect(cache.size).toBe(3);
  });

  it('does not cache a stream that does not exist, and never goes back to an older version', async () => {
    const store = new RecordingStore();
    const cache = new StreamFoldCache<Item>(store, crudEvolve<Item>('Item'));
    expect(await cache.read('item-x')).toEqual({ state: undefined, version: -1 });
    expect(cache.size).toBe(0);
    await store.append('item-x', [{ type: 'ItemCreated', data: { id: 'x', name: 'x' } }]);
    const [first, second] = await Promise.all([
      cache.read('item-x'),
      (async () => {
        await store.append('item-x', [{ type: 'ItemUpdated', data: { count: 1 } }]);
        return cache.read('item-x');
      })(),
    ]);
    expect(first.version).toBeLessThanOrEqual(second.version);
    expect(await cache.read('item-x')).toEqual({ state: { id: 'x', name: 'x', count: 1 }, version: 1 });
  });
});

describe('incremental reads across instances on one store', () => {
  it('ResourceStreams: a second instance (another gateway process) sees every write of the first, and the reverse', async () => {
    const store = new RecordingStore();
    const one = new ResourceStreams<Item>(store, 'item-', 'Item', crudEvolve<Item>('Item'));
    const two = new ResourceStreams<Item>(store.openHandle(), 'item-', 'Item', crudEvolve<Item>('Item'));
    await one.create('1', { id: '1', name: 'one' });
    expect(await two.get('1')).toEqual({ id: '1', name: 'one' });
    await one.update('1', () => ({ name: 'uno' }));
    expect(await two.get('1')).toEqual({ id: '1', name: 'uno' });
    await two.update('1', () => ({ count: 2 }));
    expect(await one.get('1')).toEqual({ id: '1', name: 'uno', count: 2 });
    // Optimistic changes stay optimistic: one's cached version is caught up before it decides.
    await two.update('1', () => ({ count: 3 }));
    expect(await one.update('1', (current) => ({ count: (current.count ?? 0) + 1 }))).toEqual({ id: '1', name: 'uno', count: 4 });
    expect(await two.delete('1')).toBe(true);
    expect(await one.get('1')).toBeUndefined();
    expect(await one.delete('1')).toBe(false);
  });

  it('SessionsRepository: activity recorded through one repository is seen by the other, which reads only the new events', async () => {
    const store = new RecordingStore();
    const other = store.openHandle();
    const one = new SessionsRepository(store);
    const two = new SessionsRepository(other);
    await one.open(sessionView('s1'), Date.parse('2026-01-01T00:00:00.000Z'));
    for (let i = 1; i <= 100; i++) {
      const writer = i % 2 === 0 ? one : two;
      const record = await writer.get('s1');
      if (!record) throw new Error('no session');
      await writer.record(
        's1',
        record,
        decide({ type: 'RecordActivity', now: Date.parse('2026-01-01T00:00:00.000Z') + i * 1000 }, record.lifecycle),
      );
    }
    const seenByOne = await one.get('s1');
    const seenByTwo = await two.get('s1');
    expect(seenByOne).toEqual(seenByTwo);
    // The same record as folding the whole stream from scratch (a fresh repository, nothing cached).
    expect(seenByOne).toEqual(await new SessionsRepository(new InMemoryEventStore(store.log)).get('s1'));
    expect(seenByOne?.lifecycle).toEqual(expect.objectContaining({ status: 'Active', activity: 100 }));
    // After the first fold, each read fetched only what the other repository appended meanwhile.
    expect(Math.max(...other.reads.slice(1).map((r) => r.returned))).toBeLessThanOrEqual(2);
    expect(Math.max(...store.reads.slice(1).map((r) => r.returned))).toBeLessThanOrEqual(2);
    await two.delete('s1', seenByTwo!);
    expect(await one.get('s1')).toBeUndefined();
  });
});
