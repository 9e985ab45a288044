/**
 * Delayed and retried jobs (session idle/TTL expiry, retries). Two adapters: BullMQ on Redis
 * (distributed mode) and in-process timers (all-in-one mode).
 *
 * Jobs have deterministic ids chosen by the caller (e.g. `idle:<sessionId>`), so scheduling the same job
 * twice is a no-op while the first is pending, and `cancel` needs only the id.
 */

export interface BackoffPolicy {
  type: 'exponential' | 'fixed';
  /** First retry delay; exponential doubles it each attempt. */
  delayMs: number;
}

export interface ScheduleRequest<T = unknown> {
  queue: string;
  /** Deterministic id: a job with the same id already waiting makes this call a no-op. */
  jobId: string;
  data: T;
  /** Run no earlier than this many ms from now. Default 0. */
  delayMs?: number;
  /** Total attempts including the first. Default 1 (no retry). */
  attempts?: number;
  backoff?: BackoffPolicy;
}

export interface JobContext<T = unknown> {
  queue: string;
  jobId: string;
  data: T;
  /** 1 on the first attempt. */
  attempt: number;
}

export type JobHandler<T = unknown> = (job: JobContext<T>) => Promise<void>;

export interface WorkerOptions {
  concurrency?: number;
}

export interface Scheduler {
  schedule<T>(request: ScheduleRequest<T>): Promise<{ scheduled: boolean }>;
  /** Removes a pending job; resolves false if there was none (already ran, or never scheduled). */
  cancel(queue: string, jobId: string): Promise<boolean>;
  /** Starts processing a queue in this process. */
  process<T>(queue: string, handler: JobHandler<T>, options?: WorkerOptions): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by a job handler when retrying cannot help (bad input, missing entity): the job fails at once. */
export class NonRetryableJobError extends Error {
  readonly code = 'SCHEDULING.NON_RETRYABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NonRetryableJobError';
  }
}
