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
 * Clustered on its key (WITHOUT ROWID): a write touches one b-tree, not a table and its key index, which halves the
 * cost of the insert every acknowledged inbound message waits on. `seq` keeps the write order, for due-time ties.
 */
const JOBS_TABLE = `CREATE TABLE jobs (
      queue TEXT NOT NULL,
      job_id TEXT NOT NULL,
      data TEXT,
      attempts INTEGER NOT NULL,
      backoff TEXT,
      attempts_made INTEGER NOT NULL,
      due_at INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      PRIMARY KEY (queue, job_id)
    ) WITHOUT ROWID`;

/**
 * The in-process scheduler's jobs on disk (ADR 0003's amendment): one row per pending job, written before
 * `schedule()` resolves, updated when an attempt fails and will be retried, deleted when the job finishes or is
 * cancelled. Every call is one synchronous statement in autocommit, so a call that returned is in the WAL; a call
 * that threw (SQLITE_FULL, ENOSPC…) wrote nothing. The deletes of finished jobs have no caller waiting and may be
 * written together (`deleteAll`): one transaction for all the jobs that finished in a turn of the loop.
 *
 * `synchronous = NORMAL` in WAL mode, as the event log: a commit survives the process being killed; a power cut
 * may lose the last commits, and then the log's own last appends with them.
 */
export class SqliteJobJournal {
  private readonly insert: Database.Statement<[string, string, string | null, number, string | null, number, number, number]>;
  private readonly retry: Database.Statement<[number, number, string, string]>;
  private readonly remove: Database.Statement<[string, string]>;
  private readonly removeAll: Database.Transaction<(jobs: readonly (readonly [queue: string, jobId: string])[]) => void>;
  private readonly all: Database.Statement<[], JobRow>;
  /** Write order of the next row (ties of due time load in it). */
  private nextSeq: number;

  /** Takes ownership of `db` (tests pass one with a page limit to fill its "disk"). */
  constructor(private readonly db: Database.Database) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const existing = db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").get();
    if (existing === undefined) db.exec(JOBS_TABLE);
    else if (!/WITHOUT ROWID/i.test(existing.sql)) migrateToClustered(db);
    // REPLACE: the scheduler's memory decides whether an id is pending. A row left behind by a delete that failed
    // (its job ran) must not block the id from being scheduled again.
    this.insert = db.prepare(
      'INSERT OR REPLACE INTO jobs (queue, job_id, data, attempts, backoff, attempts_made, due_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.retry = db.prepare('UPDATE jobs SET attempts_made = ?, due_at = ? WHERE queue = ? AND job_id = ?');
    this.remove = db.prepare('DELETE FROM jobs WHERE queue = ? AND job_id = ?');
    this.removeAll = db.transaction((jobs) => {
      for (const [queue, jobId] of jobs) this.remove.run(queue, jobId);
    });
    this.all = db.prepare<[], JobRow>(
      'SELECT queue, job_id, data, attempts, backoff, attempts_made, due_at FROM jobs ORDER BY due_at, seq',
    );
    this.nextSeq = (db.prepare<[], number>('SELECT coalesce(max(seq), -1) + 1 FROM jobs').pluck().get() ?? 0) as number;
  }

  static open(file: string): SqliteJobJournal {
    return new SqliteJobJournal(new Database(file));
  }

  add(job: JournaledJob): void {
    this.insert.run(
      job.queue,
      job.jobId,
      job.json ?? null,
      job.attempts,
      job.backoff ? JSON.stringify(job.backoff) : null,
      job.attemptsMade,
      job.dueAt,
      this.nextSeq++,
    );
  }

  retrying(queue: string, jobId: string, attemptsMade: number, dueAt: number): void {
    this.retry.run(attemptsMade, dueAt, queue, jobId);
  }

  delete(queue: string, jobId: string): void {
    this.remove.run(queue, jobId);
  }

  /** Deletes every listed job in one transaction: all or none. */
  deleteAll(jobs: readonly (readonly [queue: string, jobId: string])[]): void {
    if (jobs.length > 0) this.removeAll(jobs);
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

/** A file written before the table was clustered: its rows move over in one transaction, in their write order. */
function migrateToClustered(db: Database.Database): void {
  db.transaction(() => {
    db.exec('ALTER TABLE jobs RENAME TO jobs_rowid');
    db.exec(JOBS_TABLE);
    db.exec(
      'INSERT INTO jobs (queue, job_id, data, attempts, backoff, attempts_made, due_at, seq) SELECT queue, job_id, data, attempts, backoff, attempts_made, due_at, rowid FROM jobs_rowid',
    );
    db.exec('DROP TABLE jobs_rowid');
  }).immediate();
}
