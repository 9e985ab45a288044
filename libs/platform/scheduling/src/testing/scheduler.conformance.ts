import { randomUUID } from 'node:crypto';
import { eventually } from '@tenet/testing';
import { InvalidScheduleRequestError, NonRetryableJobError, SchedulerClosedError } from '../errors.js';
import type { JobContext, JobFailure, ScheduleRequest, Scheduler, WorkerOptions } from '../scheduler.port.js';

/**
 * One test's storage (a Redis key prefix, or nothing for in-memory adapters) and the way to open schedulers
 * on it. `open()` may be called several times: after every scheduler is closed, `open()` again is a restart.
 */
export interface SchedulerHarness {
  open(): Promise<Scheduler>;
  /** Removes everything the test stored. The suite has closed every scheduler it opened before calling this. */
  dispose(): Promise<void>;
}

export interface SchedulerCapabilities {
  /** Jobs outlive the scheduler that scheduled them: close it, open another, and its worker runs them. */
  survivesRestart: boolean;
  /** How long to wait for a job to run (a remote store on a loaded machine needs longer). */
  waitTimeoutMs: number;
}

interface Run {
  jobId: string;
  data: unknown;
  attempt: number;
  at: number;
}

/**
 * Timers and Redis round trips may make a job run a little after its due time, never meaningfully before it.
 * Lower bounds only: an upper bound would make the suite flaky on a loaded machine.
 */
const EARLY_TOLERANCE_MS = 25;

/**
 * The contract every Scheduler adapter must meet (emmett's `testAggregateStream(factory)` pattern): run it
 * from each adapter's spec with a harness for that adapter.
 *
 * Negative checks ("did not run", "not retried") avoid fixed sleeps: a sentinel job due after the moment the
 * unwanted run would have happened is scheduled on the same single-concurrency queue, and the check is made
 * once the sentinel has run.
 */
export function schedulerConformance(
  name: string,
  createHarness: () => Promise<SchedulerHarness>,
  capabilities: SchedulerCapabilities,
): void {
  describe(`Scheduler conformance: ${name}`, () => {
    let harness: SchedulerHarness;
    let handles: Scheduler[];
    let scheduler: Scheduler;
    let queue: string;
    let runs: Run[];
    let failures: JobFailure[];

    const open = async (): Promise<Scheduler> => {
      const handle = await harness.open();
      handles.push(handle);
      return handle;
    };
    // Passed to every test and hook explicitly: Jest ignores `testTimeout` inside `projects` entries, so the
    // int tier's 60 s would otherwise silently be the 5 s default.
    const timeoutMs = 3 * capabilities.waitTimeoutMs;
    const scenario = (title: string, body: () => Promise<void>): void => test(title, body, timeoutMs);
    const wait = <T>(assertion: () => T | Promise<T>): Promise<T> => eventually(assertion, { timeoutMs: capabilities.waitTimeoutMs });
    const runsOf = (jobId: string): Run[] => runs.filter((run) => run.jobId === jobId);
    const isSentinel = (jobId: string): boolean => jobId.startsWith('sentinel-');

    /** Starts a worker that records every run; `behaviour` applies to every job but sentinels. */
    const work = (behaviour?: (job: JobContext) => Promise<void> | void, options: WorkerOptions & { on?: Scheduler } = {}): Promise<void> =>
      (options.on ?? scheduler).process(
        queue,
        async (job) => {
          runs.push({ jobId: job.jobId, data: job.data, attempt: job.attempt, at: Date.now() });
          if (!isSentinel(job.jobId)) await behaviour?.(job);
        },
        {
          concurrency: options.concurrency ?? 1,
          onFailed: options.onFailed ?? ((failure) => void failures.push(failure)),
        },
      );

    const schedule = (request: Omit<ScheduleRequest, 'queue'>): Promise<{ scheduled: boolean }> =>
      scheduler.schedule({ queue, ...request });

    /** Resolves once a sentinel due `delayMs` from now has run: anything due before it has run too. */
    const settle = async (delayMs: number): Promise<void> => {
      const jobId = `sentinel-${randomUUID()}`;
      await schedule({ jobId, data: null, delayMs });
      await wait(() => expect(runsOf(jobId)).toHaveLength(1));
    };

    beforeEach(async () => {
      handles = [];
      runs = [];
      failures = [];
      queue = `queue-${randomUUID()}`;
      harness = await createHarness();
      scheduler = await open();
    }, timeoutMs);

    afterEach(async () => {
      await Promise.all(handles.map((handle) => handle.close()));
      await harness.dispose();
    }, timeoutMs);

    describe('delay', () => {
      scenario('runs a delayed job once its delay has passed, not before', async () => {
        const delayMs = 400;
        await work();
        const scheduledAt = Date.now();
        await expect(schedule({ jobId: 'expire-1', data: { n: 1 }, delayMs })).resolves.toEqual({ scheduled: true });

        await wait(() => expect(runs).toHaveLength(1));
        expect(runs[0]).toMatchObject({ jobId: 'expire-1', data: { n: 1 }, attempt: 1 });
        expect(runs[0]!.at - scheduledAt).toBeGreaterThanOrEqual(delayMs - EARLY_TOLERANCE_MS);
      });

      scenario('keeps a job scheduled before any worker exists until one starts', async () => {
        await schedule({ jobId: 'early', data: 'kept' });
        await work();
        await wait(() => expect(runsOf('early')).toEqual([expect.objectContaining({ data: 'kept', attempt: 1 })]));
      });
    });

    describe('deterministic ids', () => {
      scenario('treats scheduling an id that is still pending as a no-op', async () => {
        await work();
        await expect(schedule({ jobId: 'idle:s1', data: { version: 1 }, delayMs: 300 })).resolves.toEqual({ scheduled: true });
        await expect(schedule({ jobId: 'idle:s1', data: { version: 2 }, delayMs: 300 })).resolves.toEqual({ scheduled: false });

        await settle(700);
        expect(runsOf('idle:s1')).toEqual([expect.objectContaining({ data: { version: 1 } })]);
      });

      scenario('accepts the same id again once the job has run (re-arming a timer)', async () => {
        await work();
        await schedule({ jobId: 'idle:s2', data: { round: 1 } });
        await wait(() => expect(runsOf('idle:s2')).toHaveLength(1));

        // The job finishes just after its handler returns; until then the id is still taken.
        await wait(async () => expect(await schedule({ jobId: 'idle:s2', data: { round: 2 }, delayMs: 50 })).toEqual({ scheduled: true }));
        await wait(() => expect(runsOf('idle:s2').map((run) => run.data)).toEqual([{ round: 1 }, { round: 2 }]));
      });

      scenario('answers scheduled: true exactly for the calls whose job runs, even while the previous job is finishing', async () => {
        // Re-arming races with the previous job finishing: an answer of `true` for a call that was a no-op
        // loses a timer, an answer of `false` for a call that did schedule runs it twice.
        await work();
        const accepted: number[] = [];
        for (let round = 0; round < 40; round += 1) {
          if ((await schedule({ jobId: 'idle:hot', data: round })).scheduled) accepted.push(round);
        }
        expect(accepted.length).toBeGreaterThan(0);
        await settle(100);
        expect(runsOf('idle:hot').map((run) => run.data)).toEqual(accepted);
      });

      scenario('keeps distinct ids apart, whatever characters they contain, and hands data back intact', async () => {
        await work();
        const data = {
          text: 'héllo ☃ "quoted" \n',
          integer: 42,
          fraction: 1.5,
          flag: true,
          nothing: null,
          list: [1, 'two', { three: 3 }],
          nested: { deep: { deeper: ['x'] } },
        };
        const ids = [`ttl:${randomUUID()}`, '12345', 'a%3Ab:c', 'with space/and-slash'];
        for (const jobId of ids) await expect(schedule({ jobId, data: { ...data, jobId } })).resolves.toEqual({ scheduled: true });

        await wait(() => expect(runs).toHaveLength(ids.length));
        for (const jobId of ids) expect(runsOf(jobId)).toEqual([expect.objectContaining({ data: { ...data, jobId }, attempt: 1 })]);
      });
    });

    describe('cancel', () => {
      scenario('removes a pending job before its delay, so it never runs', async () => {
        await work();
        await schedule({ jobId: 'idle:s3', data: null, delayMs: 300 });
        await expect(scheduler.cancel(queue, 'idle:s3')).resolves.toBe(true);
        await expect(scheduler.cancel(queue, 'idle:s3')).resolves.toBe(false);

        await settle(600);
        expect(runsOf('idle:s3')).toEqual([]);
      });

      scenario('returns false for an id that was never scheduled, or has already run', async () => {
        await expect(scheduler.cancel(queue, 'never-scheduled')).resolves.toBe(false);
        await expect(scheduler.cancel(`queue-${randomUUID()}`, 'never-scheduled')).resolves.toBe(false);

        await work();
        await schedule({ jobId: 'done', data: null });
        await wait(() => expect(runsOf('done')).toHaveLength(1));
        await wait(async () => expect(await scheduler.cancel(queue, 'done')).toBe(false));
        await settle(0);
        expect(runsOf('done')).toHaveLength(1);
      });

      scenario('frees the id: the same id can be scheduled again after a cancel', async () => {
        await work();
        await schedule({ jobId: 'idle:s4', data: { round: 1 }, delayMs: 10_000 });
        await scheduler.cancel(queue, 'idle:s4');
        await expect(schedule({ jobId: 'idle:s4', data: { round: 2 } })).resolves.toEqual({ scheduled: true });
        await wait(() => expect(runsOf('idle:s4')).toEqual([expect.objectContaining({ data: { round: 2 } })]));
      });
    });

    describe('retries', () => {
      scenario('retries with exponential backoff: fails twice, succeeds on the third attempt, gaps growing', async () => {
        const baseMs = 300;
        await work((job) => {
          if (job.attempt < 3) throw new Error(`attempt ${job.attempt} failed`);
        });
        await schedule({ jobId: 'flaky', data: { x: 1 }, attempts: 3, backoff: { type: 'exponential', delayMs: baseMs } });

        await wait(() => expect(runsOf('flaky')).toHaveLength(3));
        const [first, second, third] = runsOf('flaky') as [Run, Run, Run];
        expect([first.attempt, second.attempt, third.attempt]).toEqual([1, 2, 3]);
        expect(third.data).toEqual({ x: 1 });
        const firstGap = second.at - first.at;
        const secondGap = third.at - second.at;
        expect(firstGap).toBeGreaterThanOrEqual(baseMs - EARLY_TOLERANCE_MS);
        // A fixed backoff would space both retries by baseMs; exponential doubles the second wait.
        expect(secondGap).toBeGreaterThanOrEqual(2 * baseMs - EARLY_TOLERANCE_MS);
        expect(secondGap).toBeGreaterThan(firstGap);

        await settle(0);
        expect(failures).toEqual([]);
      });

      scenario('attempts a job that throws NonRetryableJobError once, and reports it to the failed hook', async () => {
        await work(() => {
          throw new NonRetryableJobError('session does not exist');
        });
        await schedule({ jobId: 'doomed', data: { sessionId: 's5' }, attempts: 5, backoff: { type: 'fixed', delayMs: 50 } });

        await wait(() => expect(failures).toHaveLength(1));
        const [failure] = failures as [JobFailure];
        expect(failure).toMatchObject({ queue, jobId: 'doomed', data: { sessionId: 's5' }, attempts: 1 });
        expect(failure.error).toBeInstanceOf(NonRetryableJobError);
        expect(failure.error).toMatchObject({ code: 'SCHEDULING.NON_RETRYABLE', message: 'session does not exist' });

        await settle(300);
        expect(runsOf('doomed')).toHaveLength(1);
      });

      scenario('calls the failed hook once, with the last error, when attempts are exhausted', async () => {
        await work((job) => {
          throw new Error(`attempt ${job.attempt} failed`);
        });
        await schedule({ jobId: 'hopeless', data: { y: 2 }, attempts: 3, backoff: { type: 'fixed', delayMs: 50 } });

        await wait(() => expect(failures).toHaveLength(1));
        expect(failures[0]).toMatchObject({ queue, jobId: 'hopeless', data: { y: 2 }, attempts: 3 });
        expect(failures[0]!.error.message).toBe('attempt 3 failed');

        await settle(300);
        expect(failures).toHaveLength(1);
        expect(runsOf('hopeless').map((run) => run.attempt)).toEqual([1, 2, 3]);
      });

      scenario('frees the id before the failed hook runs, so the hook can schedule the job again', async () => {
        const rescheduled: boolean[] = [];
        await work(
          (job) => {
            if ((job.data as { round: number }).round === 1) throw new Error('first round fails');
          },
          {
            onFailed: async (failure) => {
              const { scheduled } = await scheduler.schedule({ queue, jobId: failure.jobId, data: { round: 2 } });
              rescheduled.push(scheduled);
            },
          },
        );
        await schedule({ jobId: 'phoenix', data: { round: 1 } });

        await wait(() => expect(runsOf('phoenix').map((run) => run.data)).toEqual([{ round: 1 }, { round: 2 }]));
        expect(rescheduled).toEqual([true]);
      });
    });

    describe('workers', () => {
      scenario('runs up to `concurrency` jobs of a queue at once', async () => {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        try {
          await work(() => released, { concurrency: 2 });
          await schedule({ jobId: 'parallel-1', data: null });
          await schedule({ jobId: 'parallel-2', data: null });
          // With one job at a time the second could only start after `release`, so this would time out.
          await wait(() => expect(runs.map((run) => run.jobId).sort()).toEqual(['parallel-1', 'parallel-2']));
        } finally {
          release();
        }
      });
    });

    describe('errors', () => {
      scenario('rejects invalid requests with a typed error before storing anything', async () => {
        const invalid: ScheduleRequest[] = [
          { queue: 'has:colon', jobId: 'x', data: null },
          { queue: '', jobId: 'x', data: null },
          { queue, jobId: '', data: null },
          { queue, jobId: 'x', data: null, delayMs: -1 },
          { queue, jobId: 'x', data: null, attempts: 0 },
          { queue, jobId: 'x', data: null, attempts: 1.5 },
          { queue, jobId: 'x', data: null, attempts: 2, backoff: { type: 'fixed', delayMs: Number.NaN } },
        ];
        for (const request of invalid) {
          await expect(scheduler.schedule(request)).rejects.toBeInstanceOf(InvalidScheduleRequestError);
        }
        await expect(scheduler.schedule({ queue, jobId: 'x', data: null })).resolves.toEqual({ scheduled: true });
      });

      scenario('answers a readiness ping while open, and refuses it after close', async () => {
        await expect(scheduler.ping(5_000)).resolves.toBeUndefined();
        await scheduler.close();
        await expect(scheduler.ping()).rejects.toBeInstanceOf(SchedulerClosedError);
      });

      scenario('refuses to be used after close', async () => {
        await scheduler.close();
        await expect(scheduler.schedule({ queue, jobId: 'late', data: null })).rejects.toMatchObject({ code: 'SCHEDULING.CLOSED' });
        await expect(scheduler.cancel(queue, 'late')).rejects.toBeInstanceOf(SchedulerClosedError);
        await expect(scheduler.close()).resolves.toBeUndefined();
      });
    });

    if (capabilities.survivesRestart) {
      describe('durability', () => {
        scenario('runs a job scheduled by a scheduler that has since closed, with a worker of one opened later', async () => {
          const scheduledAt = Date.now();
          await schedule({ jobId: 'idle:durable', data: { survives: true }, delayMs: 300 });
          await scheduler.close();

          const restarted = await open();
          await work(undefined, { on: restarted });
          await wait(() => expect(runsOf('idle:durable')).toEqual([expect.objectContaining({ data: { survives: true }, attempt: 1 })]));
          expect(runsOf('idle:durable')[0]!.at - scheduledAt).toBeGreaterThanOrEqual(300 - EARLY_TOLERANCE_MS);
        });
      });
    }
  });
}
