import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { SCHEDULER } from '@tenet/platform-runtime';
import type { Scheduler } from '@tenet/scheduling';
import { decide, effectsOf, type SessionCommand, type SessionEvent, type SessionState } from '@tenet/session-domain';
import { SessionsRepository } from './sessions.repository.js';

const QUEUE = 'session-timers';

interface TimerJob {
  sessionId: string;
  timer: 'idle' | 'lifetime';
  activity?: number;
}

/**
 * Dispatches the session decider's timer effects to the scheduling port (BullMQ in distributed mode,
 * in-process timers all-in-one) and feeds fired timers back to the decider as commands. Timers are
 * at-least-once and may race with activity; the decider ignores stale ones, so that is safe.
 */
@Injectable()
export class SessionTimers implements OnApplicationBootstrap {
  private readonly logger = new Logger(SessionTimers.name);

  constructor(
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    private readonly sessions: SessionsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.scheduler.process<TimerJob>(QUEUE, (job) => this.fire(job.data), { concurrency: 4 });
  }

  /** `before` is the lifecycle state the events were decided against. */
  async dispatch(before: SessionState, events: SessionEvent[]): Promise<void> {
    for (const effect of effectsOf(before, events)) {
      if (effect.kind === 'Cancel') await this.scheduler.cancel(QUEUE, effect.jobId);
      else {
        const data: TimerJob = { sessionId: effect.sessionId, timer: effect.timer, ...(effect.timer === 'idle' ? { activity: effect.activity } : {}) };
        await this.scheduler.schedule({ queue: QUEUE, jobId: effect.jobId, data, delayMs: effect.delayMs, attempts: 5, backoff: { type: 'exponential', delayMs: 500 } });
      }
    }
  }

  /** Customer activity: back to Active and the idle timer re-armed. */
  recordActivity(sessionId: string): Promise<void> {
    return this.advance(sessionId, ['Active', 'Idle', 'AwaitingInput'], { type: 'RecordActivity', now: Date.now() });
  }

  /** The agent replied: the session waits for the customer (seed 000 §7 Active → AwaitingInput). */
  awaitInput(sessionId: string): Promise<void> {
    return this.advance(sessionId, ['Active'], { type: 'AwaitInput', now: Date.now() });
  }

  /** Applies a lifecycle command when the session is in one of `from` (else nothing), then dispatches its timers. */
  private async advance(sessionId: string, from: SessionState['status'][], command: SessionCommand): Promise<void> {
    const changed = await this.sessions.change(sessionId, (record) => ({ events: from.includes(record.lifecycle.status) ? decide(command, record.lifecycle) : [], result: undefined }));
    if (changed && changed.events.length > 0) await this.dispatch(changed.before.lifecycle, changed.events as SessionEvent[]);
  }

  private async fire(job: TimerJob): Promise<void> {
    const record = await this.sessions.get(job.sessionId);
    if (!record) return; // deleted meanwhile
    const now = Date.now();
    const command: SessionCommand = job.timer === 'idle' ? { type: 'ElapseIdleTimeout', activity: job.activity ?? 0, now } : { type: 'ElapseLifetime', now };
    const events = decide(command, record.lifecycle);
    if (events.length === 0) return;
    await this.sessions.record(job.sessionId, record, events); // a concurrency conflict throws and the job retries
    await this.dispatch(record.lifecycle, events);
    this.logger.log(`session ${job.sessionId}: ${events.map((e) => e.type).join(', ')}`);
  }
}
