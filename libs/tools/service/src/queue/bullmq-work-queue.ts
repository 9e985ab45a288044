import { hostname } from 'node:os';
import type { ToolCallRequestV1, ToolCallResultV1 } from '@tenet/contracts';
import type { Job, Queue, QueueEvents, RedisOptions, Worker } from 'bullmq';
import {
  type BullMqClosable,
  closeEachWithinGrace,
  loadBullMq,
  notClosedCleanly,
  REPEAT_REPORT_MS,
  reportOncePer,
  withQuickReconnect,
} from '@tenet/scheduling';
import { ToolExecutorUnavailableError } from '../errors.js';
import { withDeadline } from './deadline.js';
import { DEFAULT_RESULT_TTL_MS, type SubmitOptions, type ToolCallHandler, type ToolWorkQueue } from './tool-work-queue.port.js';

export interface BullMqToolWorkQueueOptions {
  connection: RedisOptions;
  /** Redis key prefix (BullMQ `prefix`); callers and executors share calls only when they share it. */
  prefix: string;
  /** Default `tool-calls`. */
  queueName?: string;
  /** How long results stay (and replay a repeated key). Default one hour. */
  resultTtlMs?: number;
  /**
   * Lock of a running call. A replica that dies (kill -9) stops renewing it; once it lapses, another replica's
   * stalled-job check puts the call back and runs it again. Default 5000 ms (renewed every half of it).
   */
  lockDurationMs?: number;
  /** How often a worker looks for calls whose lock lapsed. Default 2000 ms. */
  stalledIntervalMs?: number;
  onError?: (error: Error, context: string) => void;
}

/**
 * Distributed mode: calls are BullMQ jobs whose job id is the idempotency key. Adding a key that exists joins
 * that job; a completed job's result is returned (replayed) until it expires. Executor faults (a handler that
 * throws, e.g. the event log is down) are retried by BullMQ three times with backoff; the tool service sees
 * the same `Idempotency-Key` on every redo.
 */
export class BullMqToolWorkQueue implements ToolWorkQueue {
  private readonly queueName: string;
  private queue: Queue | undefined;
  /** The queue events object from the moment it is constructed (closed even if it never became ready), and its readiness. */
  private events: { object: QueueEvents; ready: Promise<QueueEvents> } | undefined;
  private readonly workers: Worker[] = [];
  private closed = false;
  private readonly reportError: (error: Error, context: string) => void;
  /** The queue's, its events' and every worker's connection options: the caller's, reconnecting within 2 s. */
  private readonly connection: RedisOptions;

  constructor(private readonly options: BullMqToolWorkQueueOptions) {
    this.queueName = options.queueName ?? 'tool-calls';
    this.connection = withQuickReconnect(options.connection);
    // The same error of the same connection at most every 30 s: during a Redis outage each reconnect attempt reports.
    this.reportError = reportOncePer(
      REPEAT_REPORT_MS,
      options.onError ?? ((error, context) => console.error(`[tool-executor] ${context}: ${error.message}`)),
    );
  }

  async submit(request: ToolCallRequestV1, options: SubmitOptions): Promise<ToolCallResultV1> {
    if (this.closed) throw new ToolExecutorUnavailableError('the tool executor client is shut down');
    const key = request.idempotency_key;
    const ttlSecs = Math.ceil((this.options.resultTtlMs ?? DEFAULT_RESULT_TTL_MS) / 1000);
    const events = await this.queueEvents();
    const queue = this.ensureQueue();
    let replayed = false;
    let job: Job<ToolCallRequestV1, ToolCallResultV1> | undefined = await withDeadline(
      queue.getJob(key),
      options.deadlineMs,
      'Redis did not answer',
    );
    if (job?.finishedOn) {
      // Finished: a completed call (the handler always returns a result object) is replayed; one that failed for
      // executor reasons (its handler threw after its retries; no return value) is removed and run again.
      if (job.returnvalue) return { ...job.returnvalue, replayed: true };
      await job.remove().catch(() => undefined);
      job = undefined;
    } else if (job) {
      replayed = true; // waiting or running: join it
    }
    job ??= await withDeadline(
      queue.add('tool-call', request, {
        jobId: key,
        attempts: 3,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: ttlSecs },
        removeOnFail: { age: ttlSecs },
      }),
      options.deadlineMs,
      'Redis did not answer',
    );
    try {
      const result = (await withDeadline(
        job.waitUntilFinished(events, options.deadlineMs),
        options.deadlineMs,
        'no tool call result in time',
        options.signal,
      )) as ToolCallResultV1;
      return replayed ? { ...result, replayed: true } : result;
    } catch (error) {
      if (error instanceof ToolExecutorUnavailableError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (/timed out before finishing/i.test(message))
        throw new ToolExecutorUnavailableError(`no tool call result within ${options.deadlineMs} ms`);
      throw new Error(`the tool executor failed the call: ${message}`);
    }
  }

  async process(handler: ToolCallHandler, options: { concurrency?: number } = {}): Promise<void> {
    const stop = new AbortController();
    const worker = new (loadBullMq().Worker<ToolCallRequestV1, ToolCallResultV1>)(this.queueName, (job) => handler(job.data, stop.signal), {
      connection: this.connection,
      prefix: this.options.prefix,
      concurrency: options.concurrency ?? 16,
      lockDuration: this.options.lockDurationMs ?? 5000,
      stalledInterval: this.options.stalledIntervalMs ?? 2000,
      // A call whose replica died is put back and redone; after this many deaths in a row it fails.
      maxStalledCount: 5,
      autorun: true,
      // Recorded on the job as `processedBy`: which replica runs (or ran) a call.
      name: `${hostname()}:${process.pid}`,
    });
    worker.on('error', (error) => this.reportError(error, 'worker'));
    this.workers.push(worker);
    await worker.waitUntilReady();
  }

  /**
   * Workers first (they wait for calls running here), then the queue and its events. Each within bounds
   * (closeWithinGrace): during or just after a Redis outage BullMQ's own close never resolves, and this close ran in
   * every host's shutdown (seen: a host closed right after Redis restarted hung for minutes).
   */
  async close(): Promise<void> {
    this.closed = true;
    const unclean = await closeEachWithinGrace(this.workers.map((worker) => ['worker', worker] as const));
    // The queue events object itself, ready or not: awaiting its readiness would wait on Redis.
    const rest: [string, BullMqClosable][] = [];
    if (this.queue) rest.push(['queue', this.queue]);
    if (this.events) rest.push(['queue events', this.events.object]);
    unclean.push(...(await closeEachWithinGrace(rest)));
    const forced = notClosedCleanly(unclean);
    if (forced) this.reportError(forced, 'close');
  }

  private ensureQueue(): Queue {
    if (!this.queue) {
      this.queue = new (loadBullMq().Queue)(this.queueName, {
        connection: this.connection,
        prefix: this.options.prefix,
      });
      this.queue.on('error', (error) => this.reportError(error, 'queue'));
      // Every call in flight waits on the queue's connection (one listener each); many calls at once are normal.
      this.queue.setMaxListeners(10_000);
    }
    return this.queue;
  }

  private queueEvents(): Promise<QueueEvents> {
    if (!this.events) {
      const object = new (loadBullMq().QueueEvents)(this.queueName, {
        connection: this.connection,
        prefix: this.options.prefix,
      });
      object.on('error', (error) => this.reportError(error, 'queue events'));
      object.setMaxListeners(10_000);
      this.events = { object, ready: object.waitUntilReady().then(() => object) };
    }
    return this.events.ready;
  }
}
