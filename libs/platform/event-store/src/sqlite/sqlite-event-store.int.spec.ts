import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { eventStoreConformance } from '../testing/index.js';
import { SQLITE_EVENTS_FILE, SqliteEventStore } from './sqlite-event-store.js';

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
      await store.append('session-1', [{ type: 'message', data: { text: 'hi' } }, { type: 'status', data: { status: 'ready' } }]);
      await store.append('agent-1', [{ type: 'AgentCreated', data: { name: 'Ada' } }]);
      // Rows whose data is not JSON, written behind the store's back: decoding one of them throws.
      const raw = new Database(file);
      const insert = raw.prepare("INSERT INTO events (id, stream_id, stream_offset, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, 'not json', '{}', '2026-01-01T00:00:00.000Z')");
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
    await (SqliteEventStore.open({ file })).close();
    const db = new Database(file, { readonly: true });
    try {
      const plan = db.prepare("EXPLAIN QUERY PLAN SELECT * FROM events WHERE category = ? AND position > ? ORDER BY position LIMIT ?").all('agent-', 0, 10) as Array<{ detail: string }>;
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
    const insert = old.prepare("INSERT INTO events (id, stream_id, stream_offset, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, '{}', '2026-01-01T00:00:00.000Z')");
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
      promisify(execFile)(process.execPath, ['--import', '@swc-node/register/esm-register', worker, file, 'shared-stream', '1000', label, startAt], { cwd: process.cwd() });

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
