import Database from 'better-sqlite3';
import type { BackoffPolicy } from '../scheduler.port.js';

/** A pending job as the journal keeps it: enough to run it again in a new process. */
export interface JournaledJob {
  readonly queue: string;
  readonly jobId: string;
  /** JSON text of the data (undefined data has none). */
  readonly json: string | undefined;
  readonly attempts: number;
  readonly backoff: BackoffPolicy | undefined;
  readonly attemptsMade: number;
  /** Epoch ms: when the job (or its next attempt) is due. */
  readonly dueAt: number;
}

interface JobRow {
  queue: string;
  job_id: string;
  data: string | null;
  attempts: number;
  backoff: string | null;
  attempts_made: number;
  due_at: number;
}

/**
 * The in-process scheduler's jobs on disk (ADR 0003's amendment): one row per pending job, written before
 * `schedule()` resolves, updated when an attempt fails and will be retried, deleted when the job finishes or is
 * cancelled. Every call is one synchronous statement in autocommit, so a call that returned is in the WAL; a call
 * that threw (SQLITE_FULL, ENOSPC…) wrote nothing.
 *
 * `synchronous = NORMAL` in WAL mode, as the event log: a commit survives the process being killed; a power cut
 * may lose the last commits, and then the log's own last appends with them.
 */
export class SqliteJobJournal {
  private readonly insert: Database.Statement<[string, string, string | null, number, string | null, number, number]>;
  private readonly retry: Database.Statement<[number, number, string, string]>;
  private readonly remove: Database.Statement<[string, string]>;
  private readonly all: Database.Statement<[], JobRow>;

  /** Takes ownership of `db` (tests pass one with a page limit to fill its "disk"). */
  constructor(private readonly db: Database.Database) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE IF NOT EXISTS jobs (
      queue TEXT NOT NULL,
      job_id TEXT NOT NULL,
      data TEXT,
      attempts INTEGER NOT NULL,
      backoff TEXT,
      attempts_made INTEGER NOT NULL,
      due_at INTEGER NOT NULL,
      PRIMARY KEY (queue, job_id)
    )`);
    // REPLACE: the scheduler's memory decides whether an id is pending. A row left behind by a delete that failed
    // (its job ran) must not block the id from being scheduled again.
    this.insert = db.prepare('INSERT OR REPLACE INTO jobs (queue, job_id, data, attempts, backoff, attempts_made, due_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.retry = db.prepare('UPDATE jobs SET attempts_made = ?, due_at = ? WHERE queue = ? AND job_id = ?');
    this.remove = db.prepare('DELETE FROM jobs WHERE queue = ? AND job_id = ?');
    this.all = db.prepare<[], JobRow>('SELECT queue, job_id, data, attempts, backoff, attempts_made, due_at FROM jobs ORDER BY due_at, rowid');
  }

  static open(file: string): SqliteJobJournal {
    return new SqliteJobJournal(new Database(file));
  }

  add(job: JournaledJob): void {
    this.insert.run(job.queue, job.jobId, job.json ?? null, job.attempts, job.backoff ? JSON.stringify(job.backoff) : null, job.attemptsMade, job.dueAt);
  }

  retrying(queue: string, jobId: string, attemptsMade: number, dueAt: number): void {
    this.retry.run(attemptsMade, dueAt, queue, jobId);
  }

  delete(queue: string, jobId: string): void {
    this.remove.run(queue, jobId);
  }

  /** Every pending job, earliest due first (ties in the order they were written). */
  load(): JournaledJob[] {
    return this.all.all().map((row) => ({
      queue: row.queue,
      jobId: row.job_id,
      json: row.data ?? undefined,
      attempts: row.attempts,
      backoff: row.backoff === null ? undefined : (JSON.parse(row.backoff) as BackoffPolicy),
      attemptsMade: row.attempts_made,
      dueAt: row.due_at,
    }));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
