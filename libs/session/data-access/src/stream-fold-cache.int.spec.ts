import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@tenet/event-store';
import { decide, defaultSessionConfig } from '@tenet/session-domain';
import { SessionsRepository } from './sessions.repository.js';
import { crudEvolve, ResourceStreams } from '@tenet/edge';

interface Item {
  id: string;
  name: string;
  count?: number;
}

/** Two SQLite connections on one file, as two gateway processes with `TENET_DATA_DIR` on one volume. */
describe('incremental read models over two SQLite connections to one log', () => {
  let dir: string;
  let a: SqliteEventStore;
  let b: SqliteEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tenet-fold-cache-'));
    a = SqliteEventStore.open({ dataDir: dir });
    b = SqliteEventStore.open({ dataDir: dir });
  });

  afterEach(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a session record cached by one repository catches up with what the other appended', async () => {
    const one = new SessionsRepository(a);
    const two = new SessionsRepository(b);
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    await one.open(
      {
        id: 's1',
        agent_id: 'a1',
        customer_id: 'guest',
        creation_utc: '2026-01-01T00:00:00.000Z',
        mode: 'auto',
        consumption_offsets: { client: 0 },
        metadata: {},
        labels: [],
        config: { ...defaultSessionConfig },
      },
      t0,
    );
    for (let i = 1; i <= 30; i++) {
      const writer = i % 3 === 0 ? one : two;
      const record = await writer.get('s1');
      await writer.record('s1', record!, decide({ type: 'RecordActivity', now: t0 + i * 1000 }, record!.lifecycle));
      expect((await one.get('s1'))?.version).toBe((await two.get('s1'))?.version);
    }
    expect(await one.get('s1')).toEqual(await new SessionsRepository(b).get('s1'));
    expect((await two.get('s1'))?.lifecycle).toEqual(expect.objectContaining({ activity: 30, lastActivityAt: t0 + 30_000 }));
  });

  it('a catalog item changed through one connection reads the same through the other', async () => {
    const one = new ResourceStreams<Item>(a, 'item-', 'Item', crudEvolve<Item>('Item'));
    const two = new ResourceStreams<Item>(b, 'item-', 'Item', crudEvolve<Item>('Item'));
    await one.create('1', { id: '1', name: 'one' });
    expect(await two.get('1')).toEqual({ id: '1', name: 'one' });
    await two.update('1', () => ({ count: 1 }));
    await one.update('1', (current) => ({ count: (current.count ?? 0) + 1 }));
    expect(await two.get('1')).toEqual({ id: '1', name: 'one', count: 2 });
    await two.delete('1');
    expect(await one.get('1')).toBeUndefined();
  });
});
