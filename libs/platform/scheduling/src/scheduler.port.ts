/**
 * Delayed and retried jobs (session idle/TTL expiry, retries). Two adapters: BullMQ on Redis
 * (distributed mode) and in-process timers (all-in-one mode).
 *
 * Jobs have deterministic ids chosen by the caller (e.g. `idle:<sessionId>`), so scheduling the same job
 * twice is a no-op while the first is pending, and `cancel` needs only the id. Once a job has finished
 * (succeeded, or given up) its id is free again, which is how a timer is re-armed.
 */

export interface BackoffPolicy {
  type: 'exponential' | 'fixed';
  /** First retry delay; exponential doubles it each attempt (delayMs * 2^(retry - 1)). */
  delayMs: number;
}

export interface ScheduleRequest<T = unknown> {
  /** Queue name: non-empty, without ':' (BullMQ builds Redis keys from it). */
  queue: string;
  /**
   * Deterministic id: a job with the same id that is still pending (delayed, waiting, running, or waiting
   * for a retry) makes this call a no-op. Any non-empty string.
   */
  jobId: string;
  /** Must survive JSON: both adapters hand the handler a JSON copy (a Date arrives as a string). */
  data: T;
  /** Run no earlier than this many ms from now. Default 0. */
  delayMs?: number;
  /** Total attempts including the first. Default 1 (no retry). */
  attempts?: number;
  /** Wait between attempts. Default: retry at once. */
  backoff?: BackoffPolicy;
}

export interface ScheduleResult {
  /** false when a job with this id was still pending, so nothing new was scheduled. */
  scheduled: boolean;
}

export interface JobContext<T = unknown> {
  queue: string;
  jobId: string;
  data: T;
  /** 1 on the first attempt. */
  attempt: number;
}

export type JobHandler<T = unknown> = (job: JobContext<T>) => Promise<void>;

/** A job that gave up: its attempts ran out, or its handler threw `NonRetryableJobError`. */
export interface JobFailure<T = unknown> {
  queue: string;
  jobId: string;
  data: T;
  /** Attempts made, the failed one included. */
  attempts: number;
  /** What the last attempt threw (a `NonRetryableJobError` as thrown). */
  error: Error;
}

export interface WorkerOptions<T = unknown> {
  /** Jobs of this queue run at once by this worker. Default 1. */
  concurrency?: number;
  /**
   * Called once per job that gave up, after its id has been freed (so the hook may schedule it again).
   * Not called for attempts that will be retried. A rejection is reported to the scheduler's `onError`.
   */
  onFailed?: (failure: JobFailure<T>) => void | Promise<void>;
}

export interface Scheduler {
  schedule<T>(request: ScheduleRequest<T>): Promise<ScheduleResult>;
  /**
   * Removes a pending job (delayed, waiting, or waiting for a retry); resolves false if there was none
   * (already ran, is running right now, or never scheduled).
   */
  cancel(queue: string, jobId: string): Promise<boolean>;
  /** Starts processing a queue in this process. Jobs scheduled before a worker exists wait for one. */
  process<T>(queue: string, handler: JobHandler<T>, options?: WorkerOptions<T>): Promise<void>;
  /** Resolves when the scheduler's store answers within `timeoutMs` (readiness probes); rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  /**
   * Calls `listener` each time the scheduler's store answers again after its connection was lost: jobs it held may be
   * gone (a Redis restart without persistence drops every key) and jobs scheduled meanwhile may have been given up, so
   * whoever can rebuild them from the event log should. Never called where the store is in this process. Returns the
   * function that removes the listener.
   */
  onRestored(listener: () => void): () => void;
  /** Stops workers (waiting for running jobs), timers and connections. */
  close(): Promise<void>;
}
