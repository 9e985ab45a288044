import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentLane, inBackground, SqliteEventStore, type EventStore, type SliceLane } from '@tenet/event-store';
import { decide, defaultSessionConfig } from '@tenet/session-domain';
import { SessionsRepository } from './sessions.repository.js';

/**
 * Two gateway processes writing one busy session (a support desk posting notes while the customer types): each
 * accepted event records activity on the session's record with an optimistic append. Seen in the distributed e2e:
 * 50 requests in flight over two gateways exhausted the retries and answered 500 (ConcurrencyError). Changes of
 * one session are serialized per process and conflicts across processes retried with a pause, so all converge.
 */
describe('SessionsRepository.change under contention (two handles on one SQLite log, as two gateways)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tenet-session-contention-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('applies 400 concurrent changes of one session from two writers, none refused', async () => {
    const [a, b] = [SqliteEventStore.open({ dataDir: dir }), SqliteEventStore.open({ dataDir: dir })];
    const [first, second] = [new SessionsRepository(a), new SessionsRepository(b)];
    const now = Date.now();
    await first.open(
      {
        id: 's1',
        agent_id: 'a1',
        customer_id: 'guest',
        creation_utc: new Date(now).toISOString(),
        mode: 'auto',
        consumption_offsets: { client: 0 },
        metadata: {},
        labels: [],
        config: { ...defaultSessionConfig },
      },
      now,
    );
    const activity = (repository: SessionsRepository, i: number) =>
      repository.change('s1', (record) => ({ events: decide({ type: 'RecordActivity', now: now + i }, record.lifecycle), result: i }));
    const results = await Promise.allSettled(Array.from({ length: 400 }, (_, i) => activity(i % 2 === 0 ? first : second, i)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    await Promise.all([a.close(), b.close()]);
  });
});

/**
 * A session's changes are serialized per process, and requests wait for them: the customer's next POST records
 * activity right after the turn's own change (AwaitingInput, after `ready`). Run in the turn's background lane of
 * the event-loop slices, that change queued behind every other turn's store calls and held the POST ~60 ms of its
 * ~85 ms under 50 sessions (bench:turn, load). A change therefore runs in the request lane whoever calls it.
 */
describe('SessionsRepository.change and the event-loop lanes', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tenet-session-lanes-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes its store calls in the request lane when a turn (background lane) calls it', async () => {
    const store = SqliteEventStore.open({ dataDir: dir });
    const lanes: SliceLane[] = [];
    const recording = new Proxy(store, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'append' && name !== 'readStream')
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        return (...args: unknown[]) => (lanes.push(currentLane()), (value as (...args: unknown[]) => unknown).apply(target, args));
      },
    }) as EventStore;
    const sessions = new SessionsRepository(recording);
    const now = Date.now();
    await sessions.open(
      {
        id: 's1',
        agent_id: 'a1',
        customer_id: 'guest',
        creation_utc: new Date(now).toISOString(),
        mode: 'auto',
        consumption_offsets: { client: 0 },
        metadata: {},
        labels: [],
        config: { ...defaultSessionConfig },
      },
      now,
    );
    lanes.length = 0;
    await inBackground(() =>
      sessions.change('s1', (record) => ({
        events: decide({ type: 'RecordActivity', now: now + 1 }, record.lifecycle),
        result: undefined,
      })),
    );
    expect(lanes).toEqual(['foreground', 'foreground']); // its read and its append
    await store.close();
  });
});
