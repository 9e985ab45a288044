import { InvalidScheduleRequestError } from './errors.js';
import type { BackoffPolicy, ScheduleRequest, WorkerOptions } from './scheduler.port.js';

/** Both adapters reject the same inputs, so a request that works in all-in-one mode also works on Redis. */
export function validateQueueName(queue: string): void {
  if (typeof queue !== 'string' || queue.length === 0) throw new InvalidScheduleRequestError('queue', 'must be a non-empty string');
  // BullMQ joins prefix, queue name and job id with ':' into Redis keys and refuses ':' in queue names.
  if (queue.includes(':')) throw new InvalidScheduleRequestError('queue', "must not contain ':'");
}

export function validateJobId(jobId: string): void {
  if (typeof jobId !== 'string' || jobId.length === 0) throw new InvalidScheduleRequestError('jobId', 'must be a non-empty string');
}

const isNonNegativeFinite = (value: number): boolean => typeof value === 'number' && Number.isFinite(value) && value >= 0;

export function validateScheduleRequest(request: ScheduleRequest<unknown>): void {
  validateQueueName(request.queue);
  validateJobId(request.jobId);
  if (request.delayMs !== undefined && !isNonNegativeFinite(request.delayMs)) {
    throw new InvalidScheduleRequestError('delayMs', 'must be a finite number >= 0');
  }
  if (request.attempts !== undefined && !(Number.isInteger(request.attempts) && request.attempts >= 1)) {
    throw new InvalidScheduleRequestError('attempts', 'must be an integer >= 1');
  }
  if (request.backoff !== undefined) {
    if (request.backoff.type !== 'exponential' && request.backoff.type !== 'fixed') {
      throw new InvalidScheduleRequestError('backoff.type', "must be 'exponential' or 'fixed'");
    }
    if (!isNonNegativeFinite(request.backoff.delayMs))
      throw new InvalidScheduleRequestError('backoff.delayMs', 'must be a finite number >= 0');
  }
}

export function validateWorkerOptions(options: WorkerOptions<never>): void {
  if (options.concurrency !== undefined && !(Number.isInteger(options.concurrency) && options.concurrency >= 1)) {
    throw new InvalidScheduleRequestError('concurrency', 'must be an integer >= 1');
  }
}

/**
 * Wait before the next attempt after `failedAttempts` attempts have failed — BullMQ's built-in formula
 * (without jitter), so both adapters space retries identically: fixed → delayMs, exponential →
 * round(delayMs * 2^(failedAttempts - 1)). No policy retries at once.
 */
export function backoffDelayMs(policy: BackoffPolicy | undefined, failedAttempts: number): number {
  if (!policy) return 0;
  return policy.type === 'fixed' ? policy.delayMs : Math.round(policy.delayMs * 2 ** (failedAttempts - 1));
}

/** Handlers may throw anything; hooks and BullMQ want an Error. */
export const asError = (thrown: unknown): Error => (thrown instanceof Error ? thrown : new Error(String(thrown)));
