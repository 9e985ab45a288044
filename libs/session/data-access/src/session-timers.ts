import { Inject, Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { atIdle } from '@tenet/event-store';
import { SCHEDULER } from '@tenet/platform-runtime';
import { BackgroundArming, armBackoffMs, type Scheduler } from '@tenet/scheduling';
import {
  decide,
  effectsOf,
  pendingTimers,
  type SessionCommand,
  type SessionEffect,
  type SessionEvent,
  type SessionState,
} from '@tenet/session-domain';
import { SessionsRepository } from './sessions.repository.js';

const QUEUE = 'session-timers';

interface TimerJob {
  sessionId: string;
  timer: 'idle' | 'lifetime';
  activity?: number;
}

/** Background arming: one attempt may wait this long on the scheduler's store before it counts as failed. */
const ARM_ATTEMPT_TIMEOUT_MS = 5_000;
/**
 * Attempts of a background arming, 0.5 s apart doubling to 30 s (about 4 minutes in all); then the rebuild when the
 * scheduler's store answers again (or the next start-up) arms it.
 */
const ARM_ATTEMPTS = 10;
/** The start-up re-arm gives the event loop back after this many sessions. */
const REARM_YIELD_EVERY = 25;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Dispatches the session decider's timer effects to the scheduling port (BullMQ in distributed mode,
 * in-process timers all-in-one) and feeds fired timers back to the decider as commands. Timers are
 * at-least-once and may race with activity; the decider ignores stale ones, so that is safe.
 *
 * Requests never wait on the scheduler's store (Redis): what they decide is in the event log, and the timers
 * follow in the background (`armSoon`, retried with backoff). What an outage or a Redis restart without
 * persistence loses anyway is rebuilt from the log (`rearmFromLog`) at start-up and each time the scheduler's store
 * answers again after a lost connection: each live session's pending timers are scheduled again under their
 * deterministic ids, which the scheduler deduplicates.
 */
@Injectable()
export class SessionTimers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SessionTimers.name);
  /** Stopped at shutdown: background arming stops retrying (start-up rebuilds what is left). */
  private readonly arming = new BackgroundArming({
    attempts: ARM_ATTEMPTS,
    attemptTimeoutMs: ARM_ATTEMPT_TIMEOUT_MS,
    log: this.logger,
    whenLost: 'they are re-armed from the event log when the scheduler answers again, and at the next start-up',
  });

  constructor(
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    private readonly sessions: SessionsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.scheduler.process<TimerJob>(QUEUE, (job) => this.fire(job.data), { concurrency: 4 });
    // Idle lane: the re-arm folds every live session (it grows with the log) and must not hold up requests or the
    // first turns after a restart (EventLoopSlices); the timers it arms fire in that lane too.
    this.arming.track(atIdle(() => this.rearmFromLog()));
    // Redis back after an outage may have lost every job (a restart without persistence), and arming given up meanwhile
    // left timers unarmed: the same rebuild, without waiting for a restart of this process.
    this.arming.rebuildWhenRestored(this.scheduler, 'the session timers', () => atIdle(() => this.rearmFromLog()));
  }

  /** Stops retrying background arming (start-up rebuilds what is left) and waits for attempts under way. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.arming.stop();
  }

  /** `before` is the lifecycle state the events were decided against. Waits for the scheduler. */
  async dispatch(before: SessionState, events: SessionEvent[]): Promise<void> {
    await this.apply(effectsOf(before, events));
  }

  /** Like `dispatch`, but in the background with bounded retries: for request paths, which must not wait on Redis. */
  armSoon(before: SessionState, events: SessionEvent[]): void {
    const effects = effectsOf(before, events);
    if (effects.length > 0) this.arming.armSoon(`session ${effects[0]?.sessionId ?? ''}`, () => this.apply(effects));
  }

  /** Customer activity: back to Active (in the log) and the idle timer re-armed in the background. */
  recordActivity(sessionId: string): Promise<void> {
    return this.advance(sessionId, ['Active', 'Idle', 'AwaitingInput'], { type: 'RecordActivity', now: Date.now() });
  }

  /** The agent replied: the session waits for the customer (Active → AwaitingInput, docs/data-model.md#sessions). */
  awaitInput(sessionId: string): Promise<void> {
    return this.advance(sessionId, ['Active'], { type: 'AwaitInput', now: Date.now() });
  }

  /** The turn's tool calls run: the session is AwaitingTool until they finish. */
  awaitTool(sessionId: string): Promise<void> {
    return this.advance(sessionId, ['Active'], { type: 'AwaitTool', now: Date.now() });
  }

  /** The tool calls finished (or their turn ended, or was recovered after a crash): back to Active. */
  completeTool(sessionId: string): Promise<void> {
    return this.advance(sessionId, ['AwaitingTool'], { type: 'CompleteTool', now: Date.now() });
  }

  /** Applies a lifecycle command when the session is in one of `from` (else nothing); its timers are armed in the background, never waiting on Redis. */
  private async advance(sessionId: string, from: SessionState['status'][], command: SessionCommand): Promise<void> {
    const changed = await this.sessions.change(sessionId, (record) => ({
      events: from.includes(record.lifecycle.status) ? decide(command, record.lifecycle) : [],
      result: undefined,
    }));
    if (changed && changed.events.length > 0) this.armSoon(changed.before.lifecycle, changed.events as SessionEvent[]);
  }

  /**
   * Schedules every live session's pending timers again, as the log says they should be. Idempotent (the ids are
   * deterministic and deduplicated while pending), so every replica may run it at every start.
   */
  async rearmFromLog(now = Date.now()): Promise<number> {
    // One session's record at a time (read from the log through the bounded record cache), not every record at once.
    const sessions = await this.sessions.entries();
    let next = 0;
    let armed = 0;
    for (let attempt = 0; next < sessions.length && !this.arming.signal.aborted; attempt++) {
      try {
        for (; next < sessions.length && !this.arming.signal.aborted; next++) {
          // Arming is CPU work between store calls: give the loop back every few sessions.
          if (next % REARM_YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
          const record = await this.sessions.get((sessions[next] as (typeof sessions)[number]).id);
          const effects = record ? pendingTimers(record.lifecycle, now) : [];
          if (effects.length === 0) continue;
          await this.arming.attempt(() => this.apply(effects));
          armed++;
        }
      } catch (error) {
        // The store is down: wait and go on from the session that failed, however long the outage lasts.
        this.logger.warn(`re-arming timers from the event log paused at ${next}/${sessions.length} (${describe(error)}); retrying`);
        await this.arming.pause(armBackoffMs(Math.min(attempt, 6)));
      }
    }
    if (armed > 0) this.logger.log(`re-armed the timers of ${armed} live session(s) from the event log`);
    return armed;
  }

  private async apply(effects: SessionEffect[]): Promise<void> {
    for (const effect of effects) {
      if (effect.kind === 'Cancel') await this.scheduler.cancel(QUEUE, effect.jobId);
      else {
        const data: TimerJob = {
          sessionId: effect.sessionId,
          timer: effect.timer,
          ...(effect.timer === 'idle' ? { activity: effect.activity } : {}),
        };
        await this.scheduler.schedule({
          queue: QUEUE,
          jobId: effect.jobId,
          data,
          delayMs: effect.delayMs,
          attempts: 5,
          backoff: { type: 'exponential', delayMs: 500 },
        });
      }
    }
  }

  private async fire(job: TimerJob): Promise<void> {
    const record = await this.sessions.get(job.sessionId);
    if (!record) return; // deleted meanwhile
    const now = Date.now();
    const command: SessionCommand =
      job.timer === 'idle' ? { type: 'ElapseIdleTimeout', activity: job.activity ?? 0, now } : { type: 'ElapseLifetime', now };
    const events = decide(command, record.lifecycle);
    if (events.length === 0) return;
    await this.sessions.record(job.sessionId, record, events); // a concurrency conflict throws and the job retries
    await this.dispatch(record.lifecycle, events);
    this.logger.log(`session ${job.sessionId}: ${events.map((e) => e.type).join(', ')}`);
  }
}
