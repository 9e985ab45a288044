import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { eventually } from '@tenet/testing';
import { eventStoreConformance } from '../testing/index.js';
import { ConcurrencyError } from '../errors.js';
import { appendTogether, type EventStore, type StoredEvent } from '../event-store.port.js';
import { PublishingEventStore } from '../relay/with-publishing.js';
import { EventLoopSlices } from '../event-loop-slices.js';
import { SQLITE_EVENTS_FILE, SqliteEventStore } from './sqlite-event-store.js';
import { WalCheckpointer } from './wal-checkpointer.js';

// Two handles are two SqliteEventStore instances (two connections) on the same file.
eventStoreConformance(
  'SqliteEventStore',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenet-event-store-'));
    const file = join(dir, 'nested', 'events.sqlite');
    return { open: async () => SqliteEventStore.open({ file }), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  { survivesRestart: true },
);

describe('SqliteEventStore file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-event-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates <dataDir>/events.sqlite in WAL mode with the documented schema', async () => {
    const dataDir = join(dir, 'data');
    const store = SqliteEventStore.open({ dataDir });
    await store.append('s-1', [{ type: 'A', data: { x: 1 } }]);
    await store.close();

    const file = join(dataDir, SQLITE_EVENTS_FILE);
    expect(existsSync(file)).toBe(true);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const indexes = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'events'").all() as Array<{ sql: string | null }>;
      const ddl = indexes.map((row) => row.sql ?? '').join('\n');
      expect(ddl).toMatch(/position\s+INTEGER PRIMARY KEY AUTOINCREMENT/);
      expect(ddl).toMatch(/UNIQUE \(stream_id, stream_offset\)/);
      expect(db.prepare('SELECT stream_id, stream_offset, type, data, metadata FROM events').all()).toEqual([
        { stream_id: 's-1', stream_offset: 0, type: 'A', data: '{"x":1}', metadata: '{}' },
      ]);
    } finally {
      db.close();
    }
  });

  it('drops rows by type and category in SQL, before their data is decoded', async () => {
    const file = join(dir, 'filtered.sqlite');
    const store = SqliteEventStore.open({ file });
    try {
      await store.append('session-1', [
        { type: 'message', data: { text: 'hi' } },
        { type: 'status', data: { status: 'ready' } },
      ]);
      await store.append('agent-1', [{ type: 'AgentCreated', data: { name: 'Ada' } }]);
      // Rows whose data is not JSON, written behind the store's back: decoding one of them throws.
      const raw = new Database(file);
      const insert = raw.prepare(
        "INSERT INTO events (id, stream_id, stream_offset, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, 'not json', '{}', '2026-01-01T00:00:00.000Z')",
      );
      insert.run('corrupt-1', 'session-1', 2, 'tool');
      insert.run('corrupt-2', 'turnlease-1', 0, 'TurnClaimed');
      raw.close();

      await expect(store.readStream('session-1')).rejects.toThrow(SyntaxError);
      expect((await store.readStream('session-1', { types: ['status', 'message'] })).map((e) => e.type)).toEqual(['message', 'status']);
      expect((await store.readAll({ category: 'agent-' })).map((e) => e.data)).toEqual([{ name: 'Ada' }]);
      expect((await store.readAll({ category: 'session-', types: ['status'] })).map((e) => e.data)).toEqual([{ status: 'ready' }]);
    } finally {
      await store.close();
    }
  });

  it('serves a category read from its index, not a scan of the log', async () => {
    const file = join(dir, 'plan.sqlite');
    await SqliteEventStore.open({ file }).close();
    const db = new Database(file, { readonly: true });
    try {
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT * FROM events WHERE category = ? AND position > ? ORDER BY position LIMIT ?')
        .all('agent-', 0, 10) as Array<{ detail: string }>;
      expect(plan.map((row) => row.detail).join('\n')).toMatch(/USING INDEX events_by_category/);
    } finally {
      db.close();
    }
  });

  it('adds the category index to a file written before it existed, and reads its old events by category', async () => {
    const file = join(dir, 'old.sqlite');
    const old = new Database(file);
    old.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL, stream_offset INTEGER NOT NULL,
      type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, recorded_at TEXT NOT NULL, UNIQUE (stream_id, stream_offset));
      CREATE TABLE checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID;`);
    const insert = old.prepare(
      "INSERT INTO events (id, stream_id, stream_offset, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, '{}', '2026-01-01T00:00:00.000Z')",
    );
    insert.run('e1', 'agent-a', 0, 'AgentCreated', '{"name":"A"}');
    insert.run('e2', 'session-s', 0, 'message', '{}');
    insert.run('e3', 'agent-b', 0, 'AgentCreated', '{"name":"B"}');
    old.close();

    // Two opens at once (two processes starting on one old file) must both succeed.
    const [first, second] = [SqliteEventStore.open({ file }), SqliteEventStore.open({ file })];
    try {
      expect((await first.readAll({ category: 'agent-' })).map((e) => [e.id, e.position])).toEqual([
        ['e1', 1],
        ['e3', 3],
      ]);
      await second.append('agent-c', [{ type: 'AgentCreated', data: { name: 'C' } }]);
      expect((await first.readAll({ category: 'agent-', afterPosition: 3 })).map((e) => e.streamId)).toEqual(['agent-c']);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('serialises appends from two processes on one file: offsets 0..1999 without gap or duplicate', async () => {
    const file = join(dir, 'shared.sqlite');
    const worker = fileURLToPath(new URL('./append-worker.fixture.ts', import.meta.url));
    const startAt = String(Date.now() + 3_000);
    const run = (label: string): Promise<unknown> =>
      promisify(execFile)(
        process.execPath,
        ['--import', '@swc-node/register/esm-register', worker, file, 'shared-stream', '1000', label, startAt],
        { cwd: process.cwd() },
      );

    await Promise.all([run('first'), run('second')]);

    const store = SqliteEventStore.open({ file });
    try {
      const read = await store.readStream('shared-stream');
      expect(read.map((e) => e.offset)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
      expect(read.filter((e) => (e.data as { label: string }).label === 'first')).toHaveLength(1000);
      const positions = (await store.readAll()).map((e) => e.position);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(positions).size).toBe(2000);
    } finally {
      await store.close();
    }
  }, 60_000);
});

// Concurrent appends share one transaction (group commit); each keeps its own outcome.
describe('SqliteEventStore group commit', () => {
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-event-store-group-'));
    store = SqliteEventStore.open({ dataDir: dir, slices: false });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes appends called together in one transaction, each in its own stream and order', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.append(`g-${i}`, [
          { type: 'A', data: { i } },
          { type: 'B', data: { i } },
        ]),
      ),
    );
    expect(store.commits).toEqual({ transactions: 1, appends: 20 });
    expect(results.map((r) => r.lastPosition)).toEqual(Array.from({ length: 20 }, (_, i) => 2 * (i + 1)));
    for (let i = 0; i < 20; i++)
      expect((await store.readStream(`g-${i}`)).map((e) => [e.type, e.offset])).toEqual([
        ['A', 0],
        ['B', 1],
      ]);
  });

  it('rolls back only the append whose expected version fails; the rest of the group commits', async () => {
    await store.append('g-x', [{ type: 'A', data: {} }]);
    const outcomes = await Promise.allSettled([
      store.append('g-1', [{ type: 'A', data: {} }], { expectedVersion: 'no_stream' }),
      store.append(
        'g-x',
        [
          { type: 'B', data: {} },
          { type: 'C', data: {} },
        ],
        { expectedVersion: 'no_stream' },
      ), // g-x exists
      store.append('g-2', [{ type: 'A', data: {} }]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
    expect((await store.readStream('g-x')).map((e) => e.type)).toEqual(['A']);
    expect(await store.streamVersion('g-1')).toBe(0);
    expect(await store.streamVersion('g-2')).toBe(0);
    expect(store.commits.transactions).toBe(2);
  });

  it('writes an appendMany in one transaction, each batch checked against its stream as the batches before it left it', async () => {
    await store.append('m-b', [{ type: 'A', data: {} }]);
    const results = await store.appendMany([
      { streamId: 'm-a', events: [{ type: 'Opened', data: { n: 1 } }], expectedVersion: 'no_stream' },
      { streamId: 'm-b', events: [{ type: 'B', data: {} }], expectedVersion: 0 },
      { streamId: 'm-a', events: [{ type: 'Closed', data: { n: 2 } }], expectedVersion: 0 },
    ]);
    expect(store.commits).toEqual({ transactions: 2, appends: 4 });
    expect(results.map((r) => [r.events[0]?.streamId, r.nextExpectedVersion, r.lastPosition])).toEqual([
      ['m-a', 0, 2],
      ['m-b', 1, 3],
      ['m-a', 1, 4],
    ]);
    expect((await store.readStream('m-a')).map((e) => [e.type, e.offset, e.data])).toEqual([
      ['Opened', 0, { n: 1 }],
      ['Closed', 1, { n: 2 }],
    ]);
    expect(await store.appendMany([])).toEqual([]);
  });

  it('writes none of an appendMany when one batch fails, and the rest of its group still commits', async () => {
    await store.append('m-x', [{ type: 'A', data: {} }]);
    const before = await store.readAll();
    const outcomes = await Promise.allSettled([
      store.append('m-1', [{ type: 'A', data: {} }]),
      store.appendMany([
        { streamId: 'm-2', events: [{ type: 'A', data: {} }] },
        { streamId: 'm-x', events: [{ type: 'B', data: {} }], expectedVersion: 'no_stream' }, // m-x exists
      ]),
      store.append('m-3', [{ type: 'A', data: {} }]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
    expect(store.commits.transactions).toBe(2);
    expect(await store.streamVersion('m-2')).toBe(-1);
    expect(await store.streamVersion('m-x')).toBe(0);
    expect((await store.readAll({ afterPosition: before.at(-1)!.position })).map((e) => e.streamId)).toEqual(['m-1', 'm-3']);
    // Alone (not in a group) it is all or none as well; an invalid batch writes nothing.
    await expect(
      store.appendMany([
        { streamId: 'm-4', events: [{ type: 'A', data: {} }] },
        { streamId: 'm-x', events: [{ type: 'B', data: {} }], expectedVersion: 5 },
      ]),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    await expect(store.appendMany([{ streamId: 'm-4', events: [] }])).rejects.toMatchObject({ code: 'EVENT_LOG.INVALID_EVENT' });
    expect(await store.streamVersion('m-4')).toBe(-1);
  });

  it('hands the relay every event of an appendMany in log order, and appendTogether uses it', async () => {
    const kicked: StoredEvent[][] = [];
    const publishing = new PublishingEventStore(store, {
      kick: (events?: readonly StoredEvent[]) => void kicked.push([...(events ?? [])]),
      stop: async () => undefined,
    });
    const results = await appendTogether(publishing, [
      { streamId: 'k-a', events: [{ type: 'A', data: {} }] },
      {
        streamId: 'k-b',
        events: [
          { type: 'B', data: {} },
          { type: 'C', data: {} },
        ],
      },
    ]);
    expect(store.commits.transactions).toBe(1);
    expect(kicked).toHaveLength(1);
    expect(kicked[0]!.map((e) => [e.streamId, e.position])).toEqual([
      ['k-a', 1],
      ['k-b', 2],
      ['k-b', 3],
    ]);
    expect(results.map((r) => r.lastPosition)).toEqual([1, 3]);
    // A wrapped store without appendMany: the wrapper has none either, so appendTogether appends one by one.
    const withoutMany = { append: store.append.bind(store) } as unknown as EventStore;
    expect(new PublishingEventStore(withoutMany, { kick: () => undefined, stop: async () => undefined }).appendMany).toBeUndefined();
  });

  it('checks each append of a group against the ones before it in the group (same stream)', async () => {
    const [first, second] = await Promise.all([
      store.append('g-s', [{ type: 'A', data: {} }], { expectedVersion: 'no_stream' }),
      store.append('g-s', [{ type: 'B', data: {} }], { expectedVersion: 0 }),
    ]);
    expect([first.nextExpectedVersion, second.nextExpectedVersion]).toEqual([0, 1]);
    expect(store.commits).toEqual({ transactions: 1, appends: 2 });
  });

  it('lets a read see every append called before it, committed or not (program order)', async () => {
    const appended = store.append('g-r', [{ type: 'A', data: {} }]);
    expect((await store.readStream('g-r')).map((e) => e.type)).toEqual(['A']);
    await appended;
  });

  it('writes appends already called when the store closes', async () => {
    const appended = store.append('g-c', [{ type: 'A', data: {} }]);
    await store.close();
    await appended;
    store = SqliteEventStore.open({ dataDir: dir });
    expect(await store.streamVersion('g-c')).toBe(0);
  });

  it("commits a request's append at once even when it joins a group a background caller's slice holds back", async () => {
    const slices = new EventLoopSlices(1);
    const sliced = SqliteEventStore.open({ file: join(dir, 'sliced.sqlite'), slices });
    try {
      await sliced.streamVersion('warm-up');
      // A fresh slice: the next call starts it, so the check below does not depend on how long this process was
      // descheduled since the warm-up (a loaded CI run found the 1 ms slice of the warm-up already used up).
      await new Promise((resolve) => setImmediate(resolve));
      // A turn's long synchronous store work fills the loop's slice; its next append must wait for the loop.
      slices.inBackground(() => {
        expect(slices.enter()).toBeUndefined();
        const until = performance.now() + 5;
        while (performance.now() < until);
        slices.leave(5);
      });
      let loopTurned = false;
      setImmediate(() => (loopTurned = true));
      const background = slices.inBackground(() => sliced.append('turn-1', [{ type: 'A', data: {} }]));
      // A customer's POST appends while the turn's commit waits: it joins the group, and must not wait with it.
      const request = await sliced.append('session-1', [{ type: 'B', data: {} }]);
      expect(loopTurned).toBe(false);
      expect(request.nextExpectedVersion).toBe(0);
      expect((await background).nextExpectedVersion).toBe(0); // committed in the same group
      expect(sliced.commits).toEqual({ transactions: 1, appends: 2 });
    } finally {
      await sliced.close();
    }
  });

  it('runs one transaction per call when group commit is off', async () => {
    const single = SqliteEventStore.open({ file: join(dir, 'single.sqlite'), slices: false, groupCommit: false });
    try {
      await Promise.all(Array.from({ length: 5 }, (_, i) => single.append(`g-${i}`, [{ type: 'A', data: {} }])));
      expect(single.commits).toEqual({ transactions: 5, appends: 5 });
    } finally {
      await single.close();
    }
  });
});

// Recent stream tails answered from memory (StreamTailCache), exactly as SQLite would.
/**
 * Stores on `<a fresh directory>/<file>` with the event-loop slices off (options may name another file in `dir()`),
 * each closed and the directory removed after every test of the calling describe.
 */
/** Commits one event `{ raw: true }` through a connection of its own, behind the store API (another writer). */
function writeBehindTheStore(file: string, event: { id: string; streamId: string; offset: number; type: string }): void {
  const raw = new Database(file);
  try {
    raw
      .prepare(
        "INSERT INTO events (id, stream_id, stream_offset, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, '{\"raw\":true}', '{}', '2026-01-01T00:00:00.000Z')",
      )
      .run(event.id, event.streamId, event.offset, event.type);
  } finally {
    raw.close();
  }
}

function storesInFreshDir(
  prefix: string,
  file: string,
): { dir: () => string; open: (options?: Parameters<typeof SqliteEventStore.open>[0]) => SqliteEventStore } {
  let dir = '';
  const stores: SqliteEventStore[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir: () => dir,
    open: (options = {}) => {
      const store = SqliteEventStore.open({ file: join(dir, file), slices: false, ...options });
      stores.push(store);
      return store;
    },
  };
}

describe('SqliteEventStore tail cache', () => {
  const { dir, open } = storesInFreshDir('tenet-event-store-tails-', 'tails.sqlite');
  const kinds = ['message', 'status', 'tool'];
  const batch = (n: number, start = 0) => Array.from({ length: n }, (_, i) => ({ type: kinds[(start + i) % 3]!, data: { i: start + i } }));

  it('answers repeated reads at the end of a stream from memory, after one fill', async () => {
    const store = open();
    await store.append('session-1', batch(5));
    await store.readStream('other-1'); // the first read drops what the cache held before it knew the file's version
    const before = { ...store.tailCacheStats! };
    for (let i = 0; i < 10; i++) {
      expect((await store.readStream('session-1', { fromOffset: 3 })).map((e) => e.offset)).toEqual([3, 4]);
      expect(await store.readStream('session-1', { fromOffset: 5 })).toEqual([]);
    }
    expect(store.tailCacheStats!.hits - before.hits).toBeGreaterThanOrEqual(19);
    expect(store.tailCacheStats!.misses - before.misses).toBeLessThanOrEqual(1);
  });

  it('equals an uncached read of the same file for every shape, across the edge of a small per-stream tail, after appends and evictions', async () => {
    const cached = open({ tailCache: { eventsPerStream: 4, streams: 2 } });
    const plain = open({ tailCache: false });
    expect(plain.tailCacheStats).toBeUndefined();
    const shapes = [
      {},
      { fromOffset: 2 },
      { fromOffset: 6 },
      { fromOffset: 7, limit: 2 },
      { fromOffset: 9 },
      { fromOffset: 10 },
      { fromOffset: 11 },
      { types: ['status'] },
      { types: ['tool', 'message'], fromOffset: 6, limit: 2 },
      { limit: 0 },
    ];
    const check = async (id: string): Promise<void> => {
      for (const shape of shapes)
        expect({ id, shape, events: await cached.readStream(id, shape) }).toEqual({ id, shape, events: await plain.readStream(id, shape) });
      expect(await cached.streamVersion(id)).toBe(await plain.streamVersion(id));
    };
    await cached.append('s-a', batch(6));
    await check('s-a');
    await cached.append('s-a', batch(4, 6)); // extends the cached tail past eventsPerStream: its oldest rows go
    await check('s-a');
    await cached.append('s-b', batch(3));
    await cached.append('s-c', batch(11)); // three streams in a cache of two: the least recently used is dropped
    for (const id of ['s-a', 's-b', 's-c', 's-none']) await check(id);
    await cached.append('s-none', batch(1));
    await check('s-none');
  });

  it('keeps a rolled-back append of a group out of the cached tail', async () => {
    const store = open();
    await store.append('g-x', [{ type: 'A', data: {} }]);
    expect((await store.readStream('g-x')).map((e) => e.type)).toEqual(['A']);
    const outcomes = await Promise.allSettled([
      store.append('g-x', [{ type: 'B', data: {} }], { expectedVersion: 'no_stream' }),
      store.append('g-x', [{ type: 'C', data: {} }], { expectedVersion: 0 }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
    expect((await store.readStream('g-x')).map((e) => [e.type, e.offset])).toEqual([
      ['A', 0],
      ['C', 1],
    ]);
    expect(await store.streamVersion('g-x')).toBe(1);
  });

  it("checks the file once per task of the event loop, and sees a neighbour's commit in the same task", async () => {
    const store = open();
    const neighbour = open();
    await store.append('t-1', batch(1));
    await new Promise(setImmediate);
    const before = store.fileChecks.count;
    // One task: three reads (and a commit of its own in between) check the file once.
    await store.readStream('t-1');
    await store.append('t-1', batch(1));
    await store.readStream('t-1');
    await store.readAll({ category: 't-' });
    expect(store.fileChecks.count - before).toBe(1);
    // A store of this process on the same file commits in the same task: the next read looks again and sees it.
    await neighbour.append('t-1', [{ type: 'status', data: { neighbour: true } }]);
    expect((await store.readStream('t-1', { fromOffset: 2 })).map((e) => e.data)).toEqual([{ neighbour: true }]);
    expect(store.fileChecks.count - before).toBe(2);
    // The next task looks again.
    await new Promise(setImmediate);
    await store.readStream('t-1');
    expect(store.fileChecks.count - before).toBe(3);
  });

  it("looks at the file again after a version conflict, so a retry in the same task sees the other writer's event", async () => {
    const store = open();
    await store.append('c-1', batch(2));
    expect(await store.readStream('c-1', { fromOffset: 2 })).toEqual([]);
    writeBehindTheStore(join(dir(), 'tails.sqlite'), { id: 'raw-c', streamId: 'c-1', offset: 2, type: 'status' });
    // No task in between: the conflict itself tells the store that another connection wrote.
    await expect(store.append('c-1', batch(1), { expectedVersion: 1 })).rejects.toBeInstanceOf(ConcurrencyError);
    expect((await store.readStream('c-1', { fromOffset: 2 })).map((e) => e.data)).toEqual([{ raw: true }]);
    await store.append('c-1', [{ type: 'status', data: { retried: true } }], { expectedVersion: 2 });
    expect((await store.readStream('c-1', { fromOffset: 2 })).map((e) => e.data)).toEqual([{ raw: true }, { retried: true }]);
  });

  it('drops its tails when another connection writes the file, even behind the store API', async () => {
    const store = open();
    await store.append('s-1', batch(2));
    expect(await store.readStream('s-1', { fromOffset: 2 })).toEqual([]);
    writeBehindTheStore(join(dir(), 'tails.sqlite'), { id: 'raw-1', streamId: 's-1', offset: 2, type: 'status' });
    // Another writer's commit is known to this process through I/O, a message or a timer: a task of its own.
    await new Promise(setImmediate);
    expect((await store.readStream('s-1', { fromOffset: 2 })).map((e) => e.data)).toEqual([{ raw: true }]);
    expect(await store.streamVersion('s-1')).toBe(2);
  });
});

describe('SqliteEventStore known heads (reads past the end of a category answered without a query)', () => {
  const { dir, open } = storesInFreshDir('tenet-event-store-heads-', 'heads.sqlite');
  const positions = (events: readonly StoredEvent[]): number[] => events.map((e) => e.position);

  it('answers a catch-up of a category nobody wrote to since from memory, and its own appends move the head', async () => {
    const store = open();
    await store.append('owner-a', [{ type: 'ResourceAssigned', data: {} }]);
    await store.append('session-1', [{ type: 'message', data: {} }]);
    const [owner] = await store.readAll({ category: 'owner-' });
    const answered = store.headStats.answered;
    // Other categories grow; the owner- catch-up has nothing new, for every later call.
    for (let i = 0; i < 5; i++) {
      await store.append('session-1', [{ type: 'message', data: { i } }]);
      expect(await store.readAll({ category: 'owner-', afterPosition: owner!.position })).toEqual([]);
    }
    expect(store.headStats.answered - answered).toBe(5);
    // This connection's own append in the category is read at once.
    const [assigned] = (await store.append('owner-b', [{ type: 'ResourceAssigned', data: { b: true } }])).events;
    expect(positions(await store.readAll({ category: 'owner-', afterPosition: owner!.position }))).toEqual([assigned!.position]);
    // And the whole log's head too: a relay's read after its last event needs no query, one after it finds the rest.
    const all = await store.readAll();
    expect(await store.readAll({ afterPosition: all.at(-1)!.position })).toEqual([]);
    expect(positions(await store.readAll({ afterPosition: all.at(-2)!.position }))).toEqual([all.at(-1)!.position]);
  });

  it("forgets its heads when another connection commits: another process's events are read at once", async () => {
    const store = open();
    const other = open();
    await store.append('binding-x', [{ type: 'BindingSet', data: {} }]);
    const [first] = await store.readAll({ category: 'binding-' });
    expect(await store.readAll({ category: 'binding-', afterPosition: first!.position })).toEqual([]);
    expect(await store.readAll({ afterPosition: first!.position })).toEqual([]);
    const [second] = (await other.append('binding-y', [{ type: 'BindingSet', data: { y: true } }])).events;
    expect(positions(await store.readAll({ category: 'binding-', afterPosition: first!.position }))).toEqual([second!.position]);
    expect(positions(await store.readAll({ afterPosition: first!.position }))).toEqual([second!.position]);
    // Behind the store API too (a raw connection), and with a type filter.
    writeBehindTheStore(join(dir(), 'heads.sqlite'), { id: 'raw-1', streamId: 'binding-z', offset: 0, type: 'BindingSet' });
    await new Promise(setImmediate);
    expect(
      (await store.readAll({ category: 'binding-', afterPosition: second!.position, types: ['BindingSet'] })).map((e) => e.data),
    ).toEqual([{ raw: true }]);
  });

  it('learns no head from a read cut by its limit or filtered by type', async () => {
    const store = open();
    for (let i = 0; i < 3; i++) await store.append(`tag-${i}`, [{ type: i === 2 ? 'B' : 'A', data: { i } }]);
    const page = await store.readAll({ category: 'tag-', limit: 2 });
    expect(page).toHaveLength(2);
    expect((await store.readAll({ category: 'tag-', afterPosition: page[1]!.position })).map((e) => e.data)).toEqual([{ i: 2 }]);
    const onlyA = await store.readAll({ category: 'tag-', types: ['A'] });
    expect((await store.readAll({ category: 'tag-', afterPosition: onlyA.at(-1)!.position })).map((e) => e.type)).toEqual(['B']);
  });
});

describe('SqliteEventStore WAL checkpoints', () => {
  const { dir, open } = storesInFreshDir('tenet-event-store-wal-', 'wal.sqlite');
  const walBytes = (file = 'wal.sqlite'): number => statSync(join(dir(), `${file}-wal`)).size;
  /** 150 commits of ~40 kB each (~6 MB, about 1,500 pages), awaited one by one so each is its own transaction. */
  const writeSixMegabytes = async (store: SqliteEventStore, pause: () => Promise<void>): Promise<void> => {
    const text = 'x'.repeat(40_000);
    for (let i = 0; i < 150; i++) {
      await store.append(`bulk-${i % 7}`, [{ type: 'Bulk', data: { i, text } }]);
      await pause();
    }
  };

  it('starts its checkpoint worker with its first append, not when opened: a store that only reads runs no thread', async () => {
    const workers = (): number => (process.report.getReport() as { workers: unknown[] }).workers.length;
    const before = workers();
    const store = open({ walCheckpoint: { intervalMs: 20 } });
    expect(await store.readAll()).toEqual([]);
    expect(await store.readStream('s-1')).toEqual([]);
    await store.saveCheckpoint('lease', 1); // a named position (leases, relays): no append, no worker
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(workers()).toBe(before);
    expect(store.walCheckpointStats).toEqual({ runs: 0, pagesCopied: 0, busy: 0, maxMs: 0, finishes: 0, finishMaxMs: 0 });
    await store.append('s-1', [{ type: 'A', data: { i: 0 } }]);
    await eventually(() => expect(workers()).toBe(before + 1)); // the report lists a worker once it is running
    await eventually(() => expect(store.walCheckpointStats!.runs).toBeGreaterThan(0));
    await store.close();
    expect(workers()).toBe(before);
  });

  it('never checkpoints inside a commit: the WAL holds every page written until the worker copies them', async () => {
    // The worker's first look is an hour away: only a checkpoint inside a commit could keep the WAL short.
    const store = open({ walCheckpoint: { intervalMs: 3_600_000 } });
    await writeSixMegabytes(store, async () => undefined);
    expect(walBytes()).toBeGreaterThan(5_500_000);
    expect(store.walCheckpointStats).toEqual({ runs: 0, pagesCopied: 0, busy: 0, maxMs: 0, finishes: 0, finishMaxMs: 0 });

    // The same writes with SQLite's inline checkpoints (a file of their own): the commit that crosses 1,000 pages
    // copies them back, and the next one starts the WAL over.
    const inline = open({ file: join(dir(), 'inline.sqlite'), walCheckpoint: false });
    await writeSixMegabytes(inline, async () => undefined);
    expect(walBytes('inline.sqlite')).toBeLessThan(5_000_000);
    expect(inline.walCheckpointStats).toBeUndefined();
  });

  it('checkpoints in its worker as commits come, so the WAL stays as short as with inline checkpoints', async () => {
    const store = open({ walCheckpoint: { intervalMs: 20 } });
    let pauses = 0;
    // Every tenth commit a pause of three worker intervals, so that a whole pass (which starts an interval after the
    // previous one ended) fits in it.
    await writeSixMegabytes(store, async () => {
      if (++pauses % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 60));
    });
    await eventually(() => expect(store.walCheckpointStats!.pagesCopied).toBeGreaterThan(1_000));
    expect(walBytes()).toBeLessThan(5_000_000);
    // Everything written is readable from the file by a fresh connection once the store closed.
    await store.close();
    const db = new Database(join(dir(), 'wal.sqlite'), { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 150 });
    } finally {
      db.close();
    }
  });

  it('keeps the WAL bounded under writes that never pause: the store finishes the passes the worker cannot', async () => {
    // A checkpoint by another connection copies only the frames that existed when it began: under continuous
    // commits it never finishes, and the WAL only starts over after one that did.
    const store = open({ walCheckpoint: { restartFrames: 1_000 } }); // the shipped 100 ms cadence
    const text = 'x'.repeat(4_000);
    await store.append('busy-0', [{ type: 'Busy', data: { text } }]);
    await eventually(() => expect(store.walCheckpointStats!.runs).toBeGreaterThan(0)); // the worker thread has started
    // ~60 MB (more on a machine so busy that no pass finished yet) in groups of 20 appends, the event loop let
    // through between groups (timers, the worker's messages).
    const deadline = Date.now() + 20_000;
    for (let group = 0; group < 750 || (store.walCheckpointStats!.finishes === 0 && Date.now() < deadline); group++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.append(`busy-${i}`, [{ type: 'Busy', data: { text } }])));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(store.walCheckpointStats!.pagesCopied).toBeGreaterThan(1_000);
    expect(store.walCheckpointStats!.finishes).toBeGreaterThan(0);
    expect(walBytes()).toBeLessThan(25_000_000);
  });

  it("falls back on SQLite's own checkpoint, at twice the finishing threshold, when the worker falls behind", async () => {
    // The worker's first look is an hour away: a worker that never gets to run.
    const store = open({ walCheckpoint: { intervalMs: 3_600_000, restartFrames: 500 } });
    await writeSixMegabytes(store, async () => undefined); // ~1,500 frames: past the backstop at 1,000
    expect(walBytes()).toBeLessThan(5_000_000);
    expect(store.walCheckpointStats!.runs).toBe(0);
  });

  it("keeps the tail cache: a checkpoint is not another connection's write", async () => {
    const store = open({ walCheckpoint: { intervalMs: 20 } });
    await store.append('s-1', [{ type: 'A', data: { i: 0 } }]);
    await store.readStream('s-1');
    const runs = store.walCheckpointStats!.runs;
    await store.append('s-1', [{ type: 'B', data: { i: 1 } }]);
    await eventually(() => {
      expect(store.walCheckpointStats!.runs).toBeGreaterThan(runs);
      expect(store.walCheckpointStats!.pagesCopied).toBeGreaterThan(0);
    });
    const before = { ...store.tailCacheStats! };
    expect((await store.readStream('s-1')).map((e) => e.type)).toEqual(['A', 'B']);
    expect(store.tailCacheStats).toEqual({ hits: before.hits + 1, misses: before.misses });
  });

  it('checkpoints inline again when its worker cannot work, and says so', async () => {
    const stopped: string[] = [];
    const checkpointer = new WalCheckpointer(
      join(dir(), 'missing', 'dir', 'x.sqlite'),
      { intervalMs: 20 },
      async () => true,
      (reason) => stopped.push(reason),
    );
    await eventually(() => expect(stopped.length).toBeGreaterThan(0));
    expect(stopped).toEqual([expect.stringMatching(/could not open .*missing.*x\.sqlite/)]);
    await checkpointer.close(); // already stopped: resolves at once
  });
});
