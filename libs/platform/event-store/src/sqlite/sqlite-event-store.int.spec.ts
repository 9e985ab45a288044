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
