import { setTimeout as sleep } from 'node:timers/promises';
import type { Scheduler } from './scheduler.port.js';

export interface ArmingLog {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface BackgroundArmingOptions {
  /** Attempts before giving up (start-up rebuilds what is left from the event log). */
  attempts: number;
  /** One attempt may wait this long on the scheduler's store (a scheduler queueing commands for a dead Redis). */
  attemptTimeoutMs: number;
  log: ArmingLog;
  /** What a timer given up on means, for the error log line (e.g. "the next start-up re-arms them from the event log"). */
  whenLost: string;
}

/** Backoff between attempts: 0.5 s doubling, at most 30 s. */
export const armBackoffMs = (attempt: number): number => Math.min(30_000, 500 * 2 ** attempt);

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Scheduler writes off the request path: a request decides (the event log has it) and its timers are armed here
 * in the background, each attempt timed out, retried with backoff a bounded number of times, and stopped at
 * shutdown. Session timers and journey timers both arm through it.
 */
export class BackgroundArming {
  private readonly running = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(private readonly options: BackgroundArmingOptions) {}

  /** Aborted by `stop()`: loops that arm many things check it between steps. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /**
   * Arms in the background with retries; `subject` names what is armed in the log lines. The first attempt waits
   * for the loop's next turn: the request that decided answers (and the readers its append woke are answered)
   * before the scheduler's store is written, not after it.
   */
  armSoon(subject: string, arm: () => Promise<void>): void {
    this.track(new Promise((resolve) => setImmediate(resolve)).then(() => this.withRetries(subject, arm)));
  }

  /** Runs any background task under this arming's shutdown (awaited by `stop()`, failures logged). */
  track(task: Promise<unknown>): void {
    const tracked = task.then(
      () => undefined,
      (error: unknown) => this.options.log.error(`arming timers failed: ${describe(error)}`),
    );
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  /** One try, failing after `attemptTimeoutMs`. */
  async attempt(arm: () => Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(new Error(`the scheduler did not answer within ${this.options.attemptTimeoutMs} ms`)),
          this.options.attemptTimeoutMs,
        )),
    );
    try {
      await Promise.race([arm(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits `ms`, or less when stopping. */
  pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  /**
   * Runs `rebuild` (in the background, tracked like the rest) each time the scheduler's store answers again after a lost
   * connection (`Scheduler.onRestored`), until `stop()`. Restorations while a rebuild runs make one more run after it,
   * not one each: a flapping connection costs at most two rebuilds in a row.
   */
  rebuildWhenRestored(scheduler: Scheduler, subject: string, rebuild: () => Promise<unknown>): void {
    let running = false;
    let again = false;
    const run = (): void => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      this.options.log.log(`the scheduler's store answers again: rebuilding ${subject} from the event log`);
      this.track(
        rebuild().finally(() => {
          running = false;
          if (again && !this.stopping.signal.aborted) {
            again = false;
            run();
          }
        }),
      );
    };
    const remove = scheduler.onRestored(() => {
      if (!this.stopping.signal.aborted) run();
    });
    this.stopping.signal.addEventListener('abort', remove, { once: true });
  }

  /** Stops retrying and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }

  private async withRetries(subject: string, arm: () => Promise<void>): Promise<void> {
    const { attempts, log, whenLost } = this.options;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.attempt(arm);
        if (attempt > 0) log.log(`${subject}: timers armed after ${attempt + 1} attempts`);
        return;
      } catch (error) {
        if (this.stopping.signal.aborted || attempt + 1 >= attempts) {
          log.error(`${subject}: timers not armed (${describe(error)}); ${whenLost}`);
          return;
        }
        if (attempt === 0) log.warn(`${subject}: arming timers failed (${describe(error)}); retrying in the background`);
        await this.pause(armBackoffMs(attempt));
      }
    }
  }
}
