import { NonRetryableJobError, SchedulerClosedError, SchedulerStorageError } from '../errors.js';
import type {
  BackoffPolicy,
  JobFailure,
  JobHandler,
  ScheduleRequest,
  ScheduleResult,
  Scheduler,
  WorkerOptions,
} from '../scheduler.port.js';
import { DueQueue, type Due } from './due-queue.js';
import { SqliteJobJournal } from './sqlite-job-journal.js';
import {
  asError,
  backoffDelayMs,
  validateJobId,
  validateQueueName,
  validateScheduleRequest,
  validateWorkerOptions,
} from '../validation.js';

export interface InProcessSchedulerOptions {
  /** Where rejected `onFailed` hooks go. Default: `console.error`. */
  onError?: (error: Error, context: string) => void;
  /**
   * Keep every pending job in this SQLite file (or journal), so a restarted process runs what the previous one had
   * pending — a job that was running when it died runs again (at least once). Without it, jobs live in memory only.
   */
  durable?: { file: string } | { journal: SqliteJobJournal };
}

interface PendingJob extends Due {
  readonly queue: string;
  readonly jobId: string;
  /** JSON text, parsed afresh for every attempt: handlers see what they would see from Redis. */
  readonly json: string | undefined;
  readonly attempts: number;
  readonly backoff: BackoffPolicy | undefined;
  attemptsMade: number;
  state: 'delayed' | 'waiting' | 'active';
}

interface LocalWorker {
  readonly handler: JobHandler<unknown>;
  readonly concurrency: number;
  readonly onFailed: ((failure: JobFailure<unknown>) => void | Promise<void>) | undefined;
  running: number;
}

interface LocalQueue {
  /** Every job holding its id: delayed, waiting for a worker, running, or waiting for a retry. */
  readonly jobs: Map<string, PendingJob>;
  /** Due jobs in the order they became due. */
  readonly waiting: PendingJob[];
  readonly workers: LocalWorker[];
}

/** setTimeout fires at once (with a warning) beyond 2^31 - 1 ms, about 24.8 days; longer waits are chained. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const rowKey = (queue: string, jobId: string): string => `${queue}\n${jobId}`;

const parse = (json: string | undefined): unknown => (json === undefined ? undefined : JSON.parse(json));

/**
 * Scheduler on in-process timers (all-in-one mode, no Redis). Same contract as the BullMQ adapter —
 * deterministic ids, delays, retries with BullMQ's backoff formula, NonRetryableJobError, the onFailed hook,
 * per-worker concurrency. With `durable`, every pending job is also a row in a SQLite file, written before
 * `schedule()` resolves and reloaded by the next instance on that file; without it, jobs are lost when the
 * process stops.
 *
 * Delayed jobs of every queue wait in one DueQueue under one Node timer, armed for the earliest: 100k sessions'
 * idle and lifetime timers are 200k small records, not 200k Timeouts with their closures (ADR 0032).
 */
export class InProcessScheduler implements Scheduler {
  private readonly queues = new Map<string, LocalQueue>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Every delayed job (all queues), earliest first, and the one timer armed for the earliest. */
  private readonly delayed = new DueQueue<PendingJob>();
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = Infinity;
  private readonly reportError: (error: Error, context: string) => void;
  private closed = false;
  private readonly journal: SqliteJobJournal | undefined;
  /**
   * Finished jobs whose rows are not deleted yet, by queue and id: written together on the loop's next turn (see
   * `forget`), after the responses and wake-ups the job's own work made. A job of the same id scheduled meanwhile
   * takes its id out (its row is the new job's).
   */
  private readonly finished = new Map<string, readonly [queue: string, jobId: string]>();
  private finishedFlush: NodeJS.Immediate | undefined;

  constructor(options: InProcessSchedulerOptions = {}) {
    this.reportError = options.onError ?? ((error, context) => console.error(`[scheduling] ${context}:`, error));
    const durable = options.durable;
    this.journal = durable === undefined ? undefined : 'journal' in durable ? durable.journal : SqliteJobJournal.open(durable.file);
    if (this.journal) this.reload(this.journal);
  }

  /**
   * The jobs the previous instance on the file left pending, each at its stored due time (past ones at once, in
   * due order). One that was running when that process died is among them: it runs again, as BullMQ's stalled-job
   * recovery does, with the attempt number it had.
   */
  private reload(journal: SqliteJobJournal): void {
    for (const stored of journal.load()) {
      const queue = this.queue(stored.queue);
      const job: PendingJob = { ...stored, state: 'delayed', seq: 0, heapIndex: -1 };
      queue.jobs.set(job.jobId, job);
      this.delayed.push(job, stored.dueAt);
    }
    this.armTimer();
  }

  async schedule<T>(request: ScheduleRequest<T>): Promise<ScheduleResult> {
    this.assertOpen();
    validateScheduleRequest(request);
    const queue = this.queue(request.queue);
    if (queue.jobs.has(request.jobId)) return { scheduled: false };
    const delayMs = request.delayMs ?? 0;
    const job: PendingJob = {
      queue: request.queue,
      jobId: request.jobId,
      // Serialised now, as BullMQ does on add: unserialisable data fails the call, and later mutation of the
      // caller's object does not leak into the job.
      json: JSON.stringify(request.data),
      attempts: request.attempts ?? 1,
      backoff: request.backoff,
      attemptsMade: 0,
      state: 'delayed',
      dueAt: 0,
      seq: 0,
      heapIndex: -1,
    };
    // On disk before anything in memory: a write that fails (full disk) schedules nothing and rejects the call.
    this.store(`job "${job.jobId}" of queue "${job.queue}" was not scheduled`, (journal) =>
      journal.add({ ...job, dueAt: Date.now() + Math.max(0, delayMs) }),
    );
    // The row is this job's now (REPLACE): a delete still owed to a finished job of the same id must not remove it.
    this.finished.delete(rowKey(job.queue, job.jobId));
    queue.jobs.set(job.jobId, job);
    this.delay(queue, job, delayMs);
    return { scheduled: true };
  }

  /** The jobs live in this process (and its journal): nothing is ever lost to a connection, so never called. */
  onRestored(_listener: () => void): () => void {
    return () => undefined;
  }

  async cancel(queueName: string, jobId: string): Promise<boolean> {
    this.assertOpen();
    validateQueueName(queueName);
    validateJobId(jobId);
    const queue = this.queues.get(queueName);
    const job = queue?.jobs.get(jobId);
    if (!queue || !job || job.state === 'active') return false;
    this.store(`job "${jobId}" of queue "${queueName}" was not cancelled`, (journal) => journal.delete(queueName, jobId));
    this.delayed.remove(job);
    const index = queue.waiting.indexOf(job);
    if (index >= 0) queue.waiting.splice(index, 1);
    queue.jobs.delete(jobId);
    return true;
  }

  async process<T>(queueName: string, handler: JobHandler<T>, options: WorkerOptions<T> = {}): Promise<void> {
    this.assertOpen();
    validateQueueName(queueName);
    validateWorkerOptions(options);
    const queue = this.queue(queueName);
    queue.workers.push({
      // The job data is whatever was scheduled on this queue; the caller's T is trusted, as with BullMQ.
      handler: handler as JobHandler<unknown>,
      concurrency: options.concurrency ?? 1,
      onFailed: options.onFailed as LocalWorker['onFailed'],
      running: 0,
    });
    this.dispatch(queue);
  }

  /** Nothing to reach: the timers live in this process. */
  async ping(): Promise<void> {
    if (this.closed) throw new SchedulerClosedError();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values()) {
      queue.waiting.length = 0;
    }
    this.delayed.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    // Like a BullMQ worker, closing waits for running jobs (and the hooks they trigger) to finish.
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.queues.clear();
    this.flushFinished();
    // Pending rows stay: they are the next instance's jobs.
    this.journal?.close();
  }

  /** Runs a journal write; one that fails rejects the caller's call with the driver's error as the cause. */
  private store(refusal: string, write: (journal: SqliteJobJournal) => void): void {
    if (!this.journal) return;
    try {
      write(this.journal);
    } catch (error) {
      throw new SchedulerStorageError(refusal, error);
    }
  }

  /**
   * A journal write after an attempt: nobody waits on it, so a failure is reported. The row keeps its earlier
   * state, which errs towards running the job again after a restart (a missed delete) — never towards losing it.
   */
  private record(context: string, write: (journal: SqliteJobJournal) => void): void {
    try {
      this.store(context, write);
    } catch (error) {
      this.reportError(asError(error), context);
    }
  }

  /**
   * A finished job's row is deleted on the loop's next turn, with those of every job that finished meanwhile, in
   * one transaction: nobody waits on it, and until it is written a restart runs the job again (at least once, as
   * after a crash mid-job), never loses one.
   */
  private forget(job: PendingJob): void {
    if (!this.journal) return;
    this.finished.set(rowKey(job.queue, job.jobId), [job.queue, job.jobId]);
    this.finishedFlush ??= setImmediate(() => this.flushFinished());
  }

  private flushFinished(): void {
    if (this.finishedFlush !== undefined) clearImmediate(this.finishedFlush);
    this.finishedFlush = undefined;
    if (this.finished.size === 0) return;
    const rows = [...this.finished.values()];
    this.finished.clear();
    this.record(`removing ${rows.length} finished job(s) (first: "${rows[0]?.[1]}" of queue "${rows[0]?.[0]}")`, (journal) =>
      journal.deleteAll(rows),
    );
  }

  private queue(name: string): LocalQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = { jobs: new Map(), waiting: [], workers: [] };
      this.queues.set(name, queue);
    }
    return queue;
  }

  private delay(queue: LocalQueue, job: PendingJob, delayMs: number): void {
    job.state = 'delayed';
    if (delayMs <= 0) {
      this.makeDue(queue, job);
      return;
    }
    this.delayed.push(job, Date.now() + delayMs);
    this.armTimer();
  }

  /** The one timer, for the earliest delayed job (re-armed when an earlier one arrives or it fires). */
  private armTimer(): void {
    const next = this.delayed.peek();
    if (next === undefined || this.closed) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerDueAt = Infinity;
      return;
    }
    if (this.timer !== undefined && this.timerDueAt <= next.dueAt) return;
    clearTimeout(this.timer);
    this.timerDueAt = next.dueAt;
    this.timer = setTimeout(() => this.fireDue(), Math.min(MAX_TIMER_MS, Math.max(0, next.dueAt - Date.now())));
  }

  private fireDue(): void {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const now = Date.now();
    for (let next = this.delayed.peek(); next !== undefined && next.dueAt <= now; next = this.delayed.peek()) {
      this.delayed.pop();
      const queue = this.queues.get(next.queue);
      if (queue) this.makeDue(queue, next);
    }
    this.armTimer();
  }

  private makeDue(queue: LocalQueue, job: PendingJob): void {
    job.state = 'waiting';
    queue.waiting.push(job);
    this.dispatch(queue);
  }

  private dispatch(queue: LocalQueue): void {
    while (!this.closed && queue.waiting.length > 0) {
      const worker = queue.workers.find((candidate) => candidate.running < candidate.concurrency);
      const job = worker && queue.waiting.shift();
      if (!worker || !job) return;
      this.track(this.run(queue, job, worker));
    }
  }

  private async run(queue: LocalQueue, job: PendingJob, worker: LocalWorker): Promise<void> {
    job.state = 'active';
    job.attemptsMade += 1;
    worker.running += 1;
    let failure: Error | undefined;
    try {
      // The handler never runs inside the schedule()/process() call that made the job due.
      await Promise.resolve();
      await worker.handler({ queue: job.queue, jobId: job.jobId, data: parse(job.json), attempt: job.attemptsMade });
    } catch (thrown) {
      failure = asError(thrown);
    } finally {
      worker.running -= 1;
    }
    const retryable = failure !== undefined && !(failure instanceof NonRetryableJobError) && job.attemptsMade < job.attempts;
    if (retryable && (!this.closed || this.journal)) {
      const waitMs = backoffDelayMs(job.backoff, job.attemptsMade);
      this.record(`recording the retry of job "${job.jobId}" of queue "${job.queue}"`, (journal) =>
        journal.retrying(job.queue, job.jobId, job.attemptsMade, Date.now() + waitMs),
      );
      // Closing: the retry is the next instance's (on disk); this one runs nothing more.
      if (!this.closed) this.delay(queue, job, waitMs);
    } else {
      // Freed before the hook runs, as in BullMQ (removeOnFail), so the hook may schedule the id again.
      queue.jobs.delete(job.jobId);
      this.forget(job);
      if (failure !== undefined && worker.onFailed) await this.callHook(worker.onFailed, job, failure);
    }
    this.dispatch(queue);
  }

  private async callHook(hook: NonNullable<LocalWorker['onFailed']>, job: PendingJob, error: Error): Promise<void> {
    try {
      await hook({ queue: job.queue, jobId: job.jobId, data: parse(job.json), attempts: job.attemptsMade, error });
    } catch (hookError) {
      this.reportError(asError(hookError), `onFailed hook of queue "${job.queue}"`);
    }
  }

  private track(run: Promise<void>): void {
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  private assertOpen(): void {
    if (this.closed) throw new SchedulerClosedError();
  }
}
