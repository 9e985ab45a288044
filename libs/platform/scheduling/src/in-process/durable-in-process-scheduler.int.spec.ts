import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@tenet/testing';
import Database from 'better-sqlite3';
import { NonRetryableJobError, SchedulerStorageError } from '../errors.js';
import type { JobContext } from '../scheduler.port.js';
import { schedulerConformance } from '../testing/index.js';
import { InProcessScheduler } from './in-process-scheduler.js';
import { SqliteJobJournal } from './sqlite-job-journal.js';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'tenet-jobs-'));

schedulerConformance(
  'InProcessScheduler (durable, SQLite)',
  async () => {
    const dir = tempDir();
    return {
      open: async () => new InProcessScheduler({ durable: { file: join(dir, 'jobs.sqlite') } }),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  { survivesRestart: true, waitTimeoutMs: 3_000 },
);

/** Rows still on disk, read through a connection of the test's own (as the next process would see them). */
function rowsIn(file: string): Array<{ job_id: string; attempts_made: number; due_at: number }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT job_id, attempts_made, due_at FROM jobs ORDER BY job_id').all() as Array<{
      job_id: string;
      attempts_made: number;
      due_at: number;
    }>;
  } finally {
    db.close();
  }
}

describe('InProcessScheduler (durable): what survives a crash', () => {
  let dir: string;
  let file: string;
  const opened: InProcessScheduler[] = [];
  const open = (): InProcessScheduler => {
    const scheduler = new InProcessScheduler({ durable: { file } });
    opened.push(scheduler);
    return scheduler;
  };

  beforeEach(() => {
    dir = tempDir();
    file = join(dir, 'jobs.sqlite');
  });
  afterEach(async () => {
    for (const scheduler of opened.splice(0)) await scheduler.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a job whose process died before running it runs in the next instance on the file, with its data', async () => {
    // The first instance is dropped, never closed or completed: its rows are all the next one gets.
    const crashed = open();
    await crashed.schedule({ queue: 'inbound', jobId: 'ch1.m1', data: { text: 'hello' }, attempts: 8 });
    expect(rowsIn(file)).toEqual([expect.objectContaining({ job_id: 'ch1.m1', attempts_made: 0 })]);

    const runs: JobContext[] = [];
    const next = open();
    await next.process('inbound', async (job) => void runs.push(job));
    await eventually(() => expect(runs).toEqual([{ queue: 'inbound', jobId: 'ch1.m1', data: { text: 'hello' }, attempt: 1 }]));
    // Done: the row is gone, so a third start would not run it again.
    await eventually(() => expect(rowsIn(file)).toEqual([]));
  });

  it('a delayed job keeps its due time across a restart', async () => {
    const scheduledAt = Date.now();
    const first = open();
    await first.schedule({ queue: 'timers', jobId: 'idle:s1', data: null, delayMs: 800 });
    await first.close();

    const ranAt: number[] = [];
    const next = open();
    await next.process('timers', async () => void ranAt.push(Date.now()));
    await eventually(() => expect(ranAt).toHaveLength(1));
    expect(ranAt[0]! - scheduledAt).toBeGreaterThanOrEqual(800 - 25);
  });

  it('a job retried before a restart keeps its attempts made and its backoff', async () => {
    const first = open();
    await first.process('delivery', async () => {
      throw new Error('platform down');
    });
    await first.schedule({ queue: 'delivery', jobId: 'd1', data: { n: 1 }, attempts: 3, backoff: { type: 'fixed', delayMs: 60_000 } });
    await eventually(() => expect(rowsIn(file)).toEqual([expect.objectContaining({ job_id: 'd1', attempts_made: 1 })]));
    const dueAt = rowsIn(file)[0]!.due_at;
    expect(dueAt).toBeGreaterThan(Date.now() + 50_000);
    await first.close();

    // Bring the retry forward on disk (no test waits a minute); the attempt count is the restarted instance's to keep.
    const db = new Database(file);
    db.prepare('UPDATE jobs SET due_at = ?').run(Date.now());
    db.close();
    const attempts: number[] = [];
    const next = open();
    await next.process('delivery', async (job) => void attempts.push(job.attempt));
    await eventually(() => expect(attempts).toEqual([2]));
  });

  it('a job that was running when the process died runs again (at least once), as attempt it was', async () => {
    const first = open();
    let release!: () => void;
    const started = new Promise<void>((resolve) => {
      void first.process('inbound', async () => {
        resolve();
        await new Promise<void>((done) => (release = done));
      });
    });
    await first.schedule({ queue: 'inbound', jobId: 'running', data: 1 });
    await started;

    const attempts: number[] = [];
    const next = open();
    await next.process('inbound', async (job) => void attempts.push(job.attempt));
    await eventually(() => expect(attempts).toEqual([1]));
    release();
  });

  it('a full disk refuses schedule() with the driver error as the cause, and schedules nothing', async () => {
    const db = new Database(file);
    const scheduler = new InProcessScheduler({ durable: { journal: new SqliteJobJournal(db) } });
    opened.push(scheduler);
    // A page limit is SQLite's own "disk full": the same SQLITE_FULL a full volume gives.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const refusal = await scheduler
      .schedule({ queue: 'inbound', jobId: 'big', data: 'x'.repeat(64 * 1024) })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SchedulerStorageError);
    expect((refusal as Error).cause).toMatchObject({ code: 'SQLITE_FULL' });

    // Not pending in memory either: once space returns the same id is scheduled and runs.
    db.pragma('max_page_count = 1073741823');
    const runs: string[] = [];
    await scheduler.process('inbound', async (job) => void runs.push(job.jobId));
    await expect(scheduler.schedule({ queue: 'inbound', jobId: 'big', data: 'x'.repeat(64 * 1024) })).resolves.toEqual({ scheduled: true });
    await eventually(() => expect(runs).toEqual(['big']));
  });

  it('finished jobs are deleted from the file together, after the turn of the loop in which they finished', async () => {
    const scheduler = open();
    const done: string[] = [];
    await scheduler.process('inbound', async (job) => void done.push(job.jobId), { concurrency: 3 });
    for (const id of ['m1', 'm2', 'm3']) await scheduler.schedule({ queue: 'inbound', jobId: id, data: null });
    await eventually(() => expect(done).toHaveLength(3));
    // The deletes have no caller: they are written on the next turn of the loop, not inside the job's own turn.
    await eventually(() => expect(rowsIn(file)).toEqual([]));
  });

  it('a job scheduled under the id of a finished job whose delete is still owed keeps its row', async () => {
    const scheduler = open();
    let again: Promise<unknown> | undefined;
    await scheduler.process(
      'timers',
      async (job) => {
        if (job.data === 1) throw new NonRetryableJobError('given up');
      },
      // The hook runs once the id is freed, in the same turn of the loop as the finished job's delete is queued.
      { onFailed: () => void (again = scheduler.schedule({ queue: 'timers', jobId: 'idle:s1', data: 2, delayMs: 60_000 })) },
    );
    await scheduler.schedule({ queue: 'timers', jobId: 'idle:s1', data: 1 });
    await eventually(() => expect(again).toBeDefined());
    await expect(again).resolves.toEqual({ scheduled: true });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // The owed delete of the first job did not take the second one's row: a restart would still run it.
    expect(rowsIn(file)).toEqual([expect.objectContaining({ job_id: 'idle:s1', attempts_made: 0 })]);
  });

  it('a file written with the older table (row ids) is migrated on open: its jobs load in due order, ties in write order', async () => {
    const old = new Database(file);
    old.exec(
      'CREATE TABLE jobs (queue TEXT NOT NULL, job_id TEXT NOT NULL, data TEXT, attempts INTEGER NOT NULL, backoff TEXT, attempts_made INTEGER NOT NULL, due_at INTEGER NOT NULL, PRIMARY KEY (queue, job_id))',
    );
    const insert = old.prepare('INSERT INTO jobs VALUES (?, ?, ?, 1, NULL, 0, ?)');
    const due = Date.now() - 1_000;
    insert.run('inbound', 'z-first', '"a"', due);
    insert.run('inbound', 'a-second', '"b"', due);
    insert.run('inbound', 'm-earliest', '"c"', due - 500);
    old.close();

    const order: string[] = [];
    const scheduler = open();
    await scheduler.process('inbound', async (job) => void order.push(job.jobId));
    await eventually(() => expect(order).toEqual(['m-earliest', 'z-first', 'a-second']));
    // New rows go on after the migrated ones in write order.
    await scheduler.schedule({ queue: 'inbound', jobId: 'later', data: null, delayMs: 60_000 });
    expect(rowsIn(file)).toEqual([expect.objectContaining({ job_id: 'later' })]);
  });

  it('a job scheduled by a process killed with SIGKILL right after schedule() resolved runs in the next process', async () => {
    // The child schedules, says so, and is killed at once: nothing of it runs its exit path.
    const child = spawn(
      process.execPath,
      ['--import', '@swc-node/register/esm-register', join(import.meta.dirname, 'testing', 'schedule-then-wait.ts'), file],
      {
        cwd: join(import.meta.dirname, '..', '..', '..', '..', '..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('scheduled') && resolve());
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before scheduling`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const runs: JobContext[] = [];
    const next = open();
    await next.process('inbound', async (job) => void runs.push(job));
    await eventually(() => expect(runs).toEqual([expect.objectContaining({ jobId: 'acknowledged', data: { text: 'hello' }, attempt: 1 })]));
  }, 30_000);
});
