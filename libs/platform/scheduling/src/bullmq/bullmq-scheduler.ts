import { randomUUID } from 'node:crypto';
import type { Job, Queue, RedisOptions, Worker } from 'bullmq';
import { loadBullMq } from './load-bullmq.js';
import { NonRetryableJobError, SchedulerClosedError } from '../errors.js';
import type { JobHandler, ScheduleRequest, ScheduleResult, Scheduler, WorkerOptions } from '../scheduler.port.js';
import { asError, validateJobId, validateQueueName, validateScheduleRequest, validateWorkerOptions } from '../validation.js';
import { closeEachWithinGrace, notClosedCleanly } from './bounded-close.js';
import { fromBullJobId, toBullJobId, toBullJobInstanceId } from './job-id.js';
import { withQuickReconnect } from './quick-reconnect.js';
import { REPEAT_REPORT_MS, reportOncePer } from './repeat-limited.js';

export interface BullMqSchedulerOptions {
  /** ioredis options. BullMQ opens (and closes) its own connections from them: one per queue, two per worker. */
  connection: RedisOptions;
  /** Prefix of every Redis key (BullMQ's `prefix`). Schedulers share jobs only when they share a prefix. Default `tenet`. */
  prefix?: string;
  /** Where connection errors and rejected `onFailed` hooks go. Default: `console.error`. */
  onError?: (error: Error, context: string) => void;
}

/** What is stored as the BullMQ job data: wrapped, so that an `undefined` payload survives BullMQ's JSON too. */
interface Envelope<T> {
  payload: T;
}

/** A queue no job is ever added to: its connection answers readiness pings. */
const HEALTH_QUEUE = 'tenet-health';

/** States in which a job has not started its current attempt, so removing it cancels the run. */
const CANCELLABLE_STATES = new Set(['delayed', 'waiting', 'prioritized', 'waiting-children']);

export function redisOptionsFromUrl(url: string): RedisOptions {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new TypeError(`Redis URL must start with redis:// or rediss://, got "${parsed.protocol}//"`);
  }
  const db = parsed.pathname.replace(/^\//, '');
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * Scheduler on BullMQ (distributed mode): jobs live in Redis, so they survive a restart of the process that
 * scheduled them and are run by whichever replica has a worker on the queue.
 *
 * A caller's job id is a BullMQ deduplication id, taken from `schedule` until the job finishes (completed, or
 * failed for good) or is cancelled: a timer is re-armed by scheduling the same id again once it has run.
 */
export class BullMqScheduler implements Scheduler {
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  private readonly pendingHooks = new Set<Promise<void>>();
  private readonly prefix: string;
  /** Every queue's and worker's connection options: the caller's, reconnecting within 2 s (withQuickReconnect). */
  private readonly connection: RedisOptions;
  private readonly reportError: (error: Error, context: string) => void;
  private closed = false;

  constructor(private readonly options: BullMqSchedulerOptions) {
    this.prefix = options.prefix ?? 'tenet';
    this.connection = withQuickReconnect(options.connection);
    // One line per report (a connection error's stack says nothing the message does not), and the same one at most
    // every 30 s per context: while Redis is down every connection reports each reconnect attempt.
    this.reportError = reportOncePer(
      REPEAT_REPORT_MS,
      options.onError ?? ((error, context) => console.error(`[scheduling] ${context}: ${error.message}`)),
    );
  }

  static fromUrl(url: string, options: Omit<BullMqSchedulerOptions, 'connection'> = {}): BullMqScheduler {
    return new BullMqScheduler({ ...options, connection: redisOptionsFromUrl(url) });
  }

  async schedule<T>(request: ScheduleRequest<T>): Promise<ScheduleResult> {
    this.assertOpen();
    validateScheduleRequest(request);
    const queue = this.queue(request.queue);
    // The caller's id is the deduplication id: BullMQ keeps it taken from the add until the job is finished
    // (completed, failed for good, or removed) and answers a duplicate add with the job that holds it. Each
    // call adds a job id of its own, so the id BullMQ answers tells, in the same atomic script, whether this
    // call scheduled. (Asking Redis afterwards whether the job is ours races with a job finishing.)
    const deduplicationId = toBullJobId(request.jobId);
    const bullJobId = toBullJobInstanceId(request.jobId, randomUUID());
    const envelope: Envelope<T> = { payload: request.data };
    const job = await queue.add(request.queue, envelope, {
      jobId: bullJobId,
      deduplication: { id: deduplicationId },
      delay: request.delayMs ?? 0,
      attempts: request.attempts ?? 1,
      ...(request.backoff ? { backoff: { type: request.backoff.type, delay: request.backoff.delayMs } } : {}),
      // Finished jobs are not kept: callers learn about jobs that gave up through the worker's onFailed hook
      // rather than by inspecting the failed set.
      removeOnComplete: true,
      removeOnFail: true,
    });
    return { scheduled: job.id === bullJobId };
  }

  async cancel(queueName: string, jobId: string): Promise<boolean> {
    this.assertOpen();
    validateQueueName(queueName);
    validateJobId(jobId);
    const queue = this.queue(queueName);
    const bullJobId = await queue.getDeduplicationJobId(toBullJobId(jobId));
    if (!bullJobId) return false;
    // Queue.remove answers 1 for an id that does not exist, so the state is read first; a running job
    // (locked) is not cancellable, and remove answers 0 if it started in between. Removing the job frees
    // its deduplication id.
    if (!CANCELLABLE_STATES.has(await queue.getJobState(bullJobId))) return false;
    return (await queue.remove(bullJobId)) === 1;
  }

  async process<T>(queueName: string, handler: JobHandler<T>, options: WorkerOptions<T> = {}): Promise<void> {
    this.assertOpen();
    validateQueueName(queueName);
    validateWorkerOptions(options);
    const { UnrecoverableError, Worker } = loadBullMq();
    const worker = new Worker<Envelope<T>>(
      queueName,
      async (job) => {
        try {
          await handler({ queue: queueName, jobId: fromBullJobId(job.id ?? ''), data: job.data.payload, attempt: job.attemptsMade + 1 });
        } catch (thrown) {
          if (thrown instanceof NonRetryableJobError) {
            const unrecoverable = new UnrecoverableError(thrown.message);
            unrecoverable.cause = thrown;
            throw unrecoverable;
          }
          throw asError(thrown);
        }
      },
      {
        connection: { ...this.connection, maxRetriesPerRequest: null },
        prefix: this.prefix,
        concurrency: options.concurrency ?? 1,
      },
    );
    worker.on('error', (error) => this.reportError(error, `worker of queue "${queueName}"`));
    const { onFailed } = options;
    if (onFailed) {
      worker.on('failed', (job: Job<Envelope<T>> | undefined, error: Error) => {
        // 'failed' also fires for attempts that will be retried; the hook is for jobs that gave up.
        if (!job || !(error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1))) return;
        const original = error instanceof UnrecoverableError && error.cause instanceof Error ? error.cause : error;
        const failure = {
          queue: queueName,
          jobId: fromBullJobId(job.id ?? ''),
          data: job.data.payload,
          attempts: job.attemptsMade,
          error: original,
        };
        const hook: Promise<void> = Promise.resolve()
          .then(() => onFailed(failure))
          .catch((hookError: unknown) => this.reportError(asError(hookError), `onFailed hook of queue "${queueName}"`))
          .finally(() => this.pendingHooks.delete(hook));
        this.pendingHooks.add(hook);
      });
    }
    this.workers.push(worker);
    await worker.waitUntilReady();
  }

  /** Redis answers a PING within `timeoutMs` (readiness); rejects naming the failure otherwise. */
  async ping(timeoutMs = 2_000): Promise<void> {
    this.assertOpen();
    const client = this.queue(HEALTH_QUEUE).client;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`Redis did not answer a PING within ${timeoutMs} ms`)), timeoutMs)),
    );
    try {
      const roundTrip = client.then(async (redis) => {
        // Not ready: say so at once rather than queue a command behind the reconnect.
        if (redis.status !== 'ready') throw new Error(`Redis connection is ${redis.status}`);
        await redis.get(`${this.prefix}:${HEALTH_QUEUE}:ping`);
      });
      await Promise.race([roundTrip, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Watches the connection of the health queue (made for it if no probe made it yet): a `ready` after that
   * connection closed or began reconnecting is Redis answering again — possibly a Redis that restarted empty.
   */
  onRestored(listener: () => void): () => void {
    this.assertOpen();
    let removed = false;
    let detach = (): void => undefined;
    this.queue(HEALTH_QUEUE)
      .client.then((redis) => {
        if (removed) return;
        let lost = false;
        const onLost = (): void => {
          lost = true;
        };
        const onReady = (): void => {
          if (!lost) return;
          lost = false;
          listener();
        };
        redis.on('close', onLost);
        redis.on('reconnecting', onLost);
        redis.on('ready', onReady);
        detach = () => {
          redis.off('close', onLost);
          redis.off('reconnecting', onLost);
          redis.off('ready', onReady);
        };
      })
      .catch((error: unknown) => this.reportError(asError(error), 'watching the Redis connection'));
    return () => {
      removed = true;
      detach();
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Workers first: closing waits for running jobs, whose completion still needs the connections. A job or a
    // connection stuck on an unreachable Redis must not hold the shutdown for ever (closeWithinGrace): past a grace
    // period the connections are dropped (an unfinished job is retried by BullMQ as stalled).
    const unclean = await closeEachWithinGrace(this.workers.map((worker) => [`worker "${worker.name}"`, worker] as const));
    await Promise.allSettled([...this.pendingHooks]);
    unclean.push(...(await closeEachWithinGrace([...this.queues].map(([name, queue]) => [`queue "${name}"`, queue] as const))));
    const forced = notClosedCleanly(unclean);
    if (forced) this.reportError(forced, 'close');
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new (loadBullMq().Queue)(name, { connection: this.connection, prefix: this.prefix });
      queue.on('error', (error) => this.reportError(error, `queue "${name}"`));
      this.queues.set(name, queue);
    }
    return queue;
  }

  private assertOpen(): void {
    if (this.closed) throw new SchedulerClosedError();
  }
}
