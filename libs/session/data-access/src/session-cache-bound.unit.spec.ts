import { loadConfig } from '@tenet/config';
import { InMemoryEventStore } from '@tenet/event-store';
import { defaultSessionConfig } from '@tenet/session-domain';
import { foldSessionIndexEntry } from './session-index.js';
import { SessionsRepository, type SessionRecord } from './sessions.repository.js';

const view = (id: string, second: number, labels: string[] = []) => ({
  id,
  agent_id: second % 2 === 0 ? 'even' : 'odd',
  customer_id: 'guest',
  creation_utc: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
  mode: 'auto' as const,
  consumption_offsets: { client: 0 },
  metadata: { n: second },
  labels,
  config: { ...defaultSessionConfig, auto_extract: null },
});

describe('SessionsRepository: bounded per-session memory (ADR 0032)', () => {
  const CAP = 3;
  const ids = Array.from({ length: 10 }, (_, i) => `s${i}`);

  async function opened(): Promise<{ store: InMemoryEventStore; sessions: SessionsRepository; records: Map<string, SessionRecord> }> {
    const store = new InMemoryEventStore();
    const sessions = new SessionsRepository(store, loadConfig('tenet', { TENET_SESSION_CACHE_SIZE: String(CAP) }));
    const records = new Map<string, SessionRecord>();
    for (const [i, id] of ids.entries())
      records.set(id, (await sessions.open(view(id, i, i === 0 ? ['vip'] : []), Date.UTC(2026, 0, 1, 0, 0, i))).record);
    return { store, sessions, records };
  }

  it('keeps at most TENET_SESSION_CACHE_SIZE records, and folds an evicted one from the log again, unchanged', async () => {
    const { store, sessions, records } = await opened();
    for (const id of ids) expect(await sessions.get(id)).toEqual(records.get(id));
    expect(sessions.cachedRecords).toBe(CAP);
    // s0 was read first: evicted long since. A fresh repository on the same log agrees with what it folds again.
    expect(await sessions.get('s0')).toEqual(await new SessionsRepository(store).get('s0'));
    expect(sessions.cachedRecords).toBe(CAP);
  });

  it('lists every session, filtered and in order, from the index, whichever records are cached', async () => {
    const { sessions } = await opened();
    expect((await sessions.list()).map((r) => r.view.id)).toEqual(ids);
    expect((await sessions.list({ agentId: 'odd' })).map((r) => r.view.id)).toEqual(['s1', 's3', 's5', 's7', 's9']);
    expect((await sessions.list({ labels: ['vip'] })).map((r) => r.view.id)).toEqual(['s0']);
    expect(sessions.cachedRecords).toBe(CAP);
    // Changes of what the list filters on reach the index; a deleted session leaves it.
    const s0 = (await sessions.get('s0'))!;
    await sessions.record('s0', s0, [{ type: 'SessionUpdated', data: { agent_id: 'odd', labels: [] } }]);
    const s1 = (await sessions.get('s1'))!;
    await sessions.delete('s1', s1);
    expect((await sessions.list({ agentId: 'odd' })).map((r) => r.view.id)).toEqual(['s0', 's3', 's5', 's7', 's9']);
    expect(await sessions.list({ labels: ['vip'] })).toEqual([]);
    expect((await sessions.entries()).map((e) => e.id)).toEqual(ids.filter((id) => id !== 's1'));
  });

  it('an index entry is the record reduced to what the list needs, and unchanged (the same object) by other events', () => {
    const opened = foldSessionIndexEntry(undefined, { type: 'SessionOpened', data: view('x', 1, ['a']) });
    expect(opened).toEqual({ id: 'x', creation_utc: '2026-01-01T00:00:01.000Z', agent_id: 'odd', customer_id: 'guest', labels: ['a'] });
    expect(foldSessionIndexEntry(opened, { type: 'SessionActivated', data: { at: 1, activity: 1 } })).toBe(opened);
    expect(foldSessionIndexEntry(opened, { type: 'SessionUpdated', data: { title: 'only the title' } })).toBe(opened);
    expect(foldSessionIndexEntry(opened, { type: 'SessionDeleted', data: {} })).toBeUndefined();
  });
});
