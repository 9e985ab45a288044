import {
  atIdle,
  currentLane,
  InMemoryEventStore,
  SqliteEventStore,
  type EventStore,
  type ReadAllOptions,
  type StoredEvent,
} from '@tenet/event-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamCatalog } from './stream-catalog.js';

/** Counts the events each readAll hands back: what a catch-up had to read (and decode). */
function counting(store: EventStore): { store: EventStore; rows: () => number; calls: ReadAllOptions[] } {
  let rows = 0;
  const calls: ReadAllOptions[] = [];
  const readAll = store.readAll.bind(store);
  store.readAll = async (options?: ReadAllOptions): Promise<StoredEvent[]> => {
    calls.push({ ...options });
    const events = await readAll(options);
    rows += events.length;
    return events;
  };
  return { store, rows: () => rows, calls };
}

const names = (current: string[] | undefined, event: StoredEvent): string[] => [...(current ?? []), (event.data as { name: string }).name];

describe.each([
  ['InMemoryEventStore', async () => ({ store: new InMemoryEventStore() as EventStore, dispose: () => undefined })],
  [
    'SqliteEventStore',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tenet-catalog-'));
      return { store: SqliteEventStore.open({ dataDir: dir }) as EventStore, dispose: () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
])('StreamCatalog over %s', (_name, open) => {
  let store: EventStore;
  let dispose: () => void;
  beforeEach(async () => ({ store, dispose } = await open()));
  afterEach(async () => {
    await store.close();
    dispose();
  });

  it('reads only its own category of the log: other streams cost it nothing, however many there are', async () => {
    await store.append('agent-1', [{ type: 'AgentCreated', data: { name: 'Ada' } }]);
    for (let i = 0; i < 300; i++)
      await store.append(`session-${i}`, [
        { type: 'message', data: { name: 'noise' } },
        { type: 'status', data: { name: 'noise' } },
      ]);
    await store.append('agent-2', [{ type: 'AgentCreated', data: { name: 'Bob' } }]);
    const spy = counting(store);
    const catalog = new StreamCatalog(spy.store, 'agent-', names);

    expect(await catalog.all()).toEqual([['Ada'], ['Bob']]);
    expect(spy.rows()).toBe(2); // not the 602 events of the log
    expect(spy.calls.every((options) => options.category === 'agent-')).toBe(true);

    // A catch-up reads only what its category gained since its checkpoint.
    for (let i = 0; i < 100; i++) await store.append(`session-x${i}`, [{ type: 'message', data: { name: 'noise' } }]);
    await store.append('agent-1', [{ type: 'AgentRenamed', data: { name: 'Ada L.' } }]);
    expect(await catalog.all()).toEqual([['Ada', 'Ada L.'], ['Bob']]);
    expect(spy.rows()).toBe(3);
    expect(await catalog.all()).toEqual([['Ada', 'Ada L.'], ['Bob']]);
    expect(spy.rows()).toBe(3);
  });

  it('keeps to its prefix inside a category it shares (customer- and customer-memory:…)', async () => {
    await store.append('customer-c1', [{ type: 'CustomerCreated', data: { name: 'C1' } }]);
    await store.append('customer-memory:c1', [{ type: 'FactRemembered', data: { name: 'fact' } }]);
    const catalog = new StreamCatalog(store, 'customer-memory:', names);
    expect(await catalog.all()).toEqual([['fact']]);
  });

  it('pages through a category larger than one read', async () => {
    for (let i = 0; i < 2_500; i++) await store.append(`term-${i}`, [{ type: 'TermCreated', data: { name: `t${i}` } }]);
    const spy = counting(store);
    const catalog = new StreamCatalog(spy.store, 'term-', names);
    expect(await catalog.all()).toHaveLength(2_500);
    expect(spy.calls).toHaveLength(3);
    expect(spy.rows()).toBe(2_500);
  });
});

it('sees what another handle on the same log appended, at its next read (distributed gateways)', async () => {
  const first = new InMemoryEventStore();
  const second = first.openHandle();
  const catalog = new StreamCatalog(first, 'agent-', names);
  await second.append('agent-1', [{ type: 'AgentCreated', data: { name: 'Ada' } }]);
  expect(await catalog.all()).toEqual([['Ada']]);
  await second.append('agent-2', [{ type: 'AgentCreated', data: { name: 'Bob' } }]);
  expect(await catalog.all()).toEqual([['Ada'], ['Bob']]);
});

it('reads the rest of a catch-up started at idle priority as request work once a request joins it', async () => {
  const store = new InMemoryEventStore();
  for (let i = 0; i < 50; i++) await store.append(`sessionmeta-s${i}`, [{ type: 'SessionOpened', data: { name: `s${i}` } }]);
  const lanes: string[] = [];
  const readAll = store.readAll.bind(store);
  store.readAll = async (options?: ReadAllOptions): Promise<StoredEvent[]> => {
    lanes.push(currentLane());
    return readAll(options);
  };
  const catalog = new StreamCatalog(store, 'sessionmeta-', names, 10);
  const rearm = atIdle(() => catalog.all()); // the start-up timer re-arm
  const request = catalog.all(); // GET /sessions arrives meanwhile
  expect(await request).toHaveLength(50);
  await rearm;
  expect(lanes).toEqual(['idle', ...Array.from({ length: 5 }, () => 'foreground')]);
});
