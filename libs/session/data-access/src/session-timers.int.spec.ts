import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentLane, SqliteEventStore, type ReadAllOptions, type StoredEvent } from '@tenet/event-store';
import { InProcessScheduler, type ScheduleRequest, type ScheduleResult } from '@tenet/scheduling';
import { defaultSessionConfig } from '@tenet/session-domain';
import { SessionTimers } from './session-timers.js';
import { SESSIONS_PAGE, SessionsRepository } from './sessions.repository.js';

const SESSIONS = 450;

/**
 * The timer re-arm at start-up folds every live session. On a restart it must read only the
 * sessions' own category of the log (not the conversations, leases or usage around it), in small pages, and at
 * idle priority (EventLoopSlices), so the first turns after a restart do not wait behind it.
 */
describe('SessionTimers: re-arm at start-up', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tenet-rearm-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('re-arms every live session after a restart, reading only the sessions category, in small idle-priority pages', async () => {
    const before = SqliteEventStore.open({ dataDir: dir });
    const sessions = new SessionsRepository(before);
    const now = Date.now();
    for (let i = 0; i < SESSIONS; i++) {
      const id = `s${i}`;
      await sessions.open(
        {
          id,
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
      // The rest of the log: each conversation has many more events than its session record.
      await before.append(
        `session-${id}`,
        Array.from({ length: 6 }, (_, n) => ({ type: 'message', data: { n } })),
      );
    }
    const metaEvents = (await before.readAll({ category: 'sessionmeta-' })).length;
    expect(metaEvents).toBe(SESSIONS * 2); // SessionOpened + SessionStarted
    await before.close();

    // Restart: a new process on the same file.
    const store = SqliteEventStore.open({ dataDir: dir });
    const reads: { lane: string; category: ReadAllOptions['category']; rows: number }[] = [];
    const readAll = store.readAll.bind(store);
    store.readAll = async (options?: ReadAllOptions): Promise<StoredEvent[]> => {
      const lane = currentLane();
      const events = await readAll(options);
      reads.push({ lane, category: options?.category, rows: events.length });
      return events;
    };
    const scheduler = new InProcessScheduler();
    const armed = new Map<string, string>(); // session id → lane of its arming
    const schedule = scheduler.schedule.bind(scheduler);
    scheduler.schedule = <T>(request: ScheduleRequest<T>): Promise<ScheduleResult> => {
      armed.set((request.data as { sessionId: string }).sessionId, currentLane());
      return schedule(request);
    };
    const timers = new SessionTimers(scheduler, new SessionsRepository(store));
    try {
      await timers.onApplicationBootstrap();
      const deadline = Date.now() + 60_000;
      while (armed.size < SESSIONS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

      expect(armed.size).toBe(SESSIONS);
      expect(new Set(armed.values())).toEqual(new Set(['idle']));
      // What it read: the sessions category only — every event of it, none of the conversations' — in idle-lane pages.
      expect(reads.every((r) => r.category === 'sessionmeta-')).toBe(true);
      expect(reads.reduce((sum, r) => sum + r.rows, 0)).toBe(metaEvents);
      expect(reads.every((r) => r.lane === 'idle' && r.rows <= SESSIONS_PAGE)).toBe(true);
      expect(reads.length).toBeGreaterThanOrEqual(Math.ceil(metaEvents / SESSIONS_PAGE));
    } finally {
      await timers.beforeApplicationShutdown();
      await scheduler.close();
      await store.close();
    }
  }, 120_000);
});
