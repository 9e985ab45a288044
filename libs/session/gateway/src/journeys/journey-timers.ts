import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { JOURNEYS_ADVANCE_SUBJECT, sessionStreamId, type AdvanceJourneysReplyV1, type AdvanceJourneysRequestV1 } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { requestWithinDeadline, type MessageBus } from '@tenet/messaging';
import { EVENT_STORE, MESSAGE_BUS, SCHEDULER } from '@tenet/platform-runtime';
import type { Scheduler } from '@tenet/scheduling';
import { SessionEventsService } from '../events/session-events.service.js';
import { newId } from '../ids.js';
import { journeyDefinition } from './journey-catalog.js';
import { journeyTransitionRecords, lastCustomerActivity, recordedJourneys } from './journey-records.js';
import { JourneysRepository } from './journeys.repository.js';

const QUEUE = 'journey-timers';

export interface JourneyTimerJob {
  sessionId: string;
  journeyId: string;
  timer: 'abandon' | 'expire';
}

type Effect = AdvanceJourneysReplyV1['effects'][number];

/** Attempts of a background arming, 0.5 s apart doubling to 30 s; a journey whose timer is lost stays resumable. */
const ARM_ATTEMPTS = 8;
/** How long a fired timer waits for the journey engine (retried on another replica within it). */
const ENGINE_DEADLINE_MS = 30_000;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A journey that sees no customer activity is abandoned after its `abandon_after_secs`, and expires after its
 * `expire_after_secs` (seed 000 §4 timeouts): the engine's timer effects go to the scheduling port (BullMQ in
 * distributed mode, in-process timers all-in-one) under deterministic ids, and a fired timer asks the engine
 * (which ignores an early or stale one) and appends what it decided to the session stream.
 *
 * Arming never holds up a turn: it runs in the background with bounded retries, like the session's timers.
 */
@Injectable()
export class JourneyTimers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(JourneyTimers.name);
  private readonly arming = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly journeys: JourneysRepository,
    private readonly events: SessionEventsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.scheduler.process<JourneyTimerJob>(QUEUE, (job) => this.fire(job.data), { concurrency: 2 });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.arming]);
  }

  /** Schedules and cancels in the background (retried with backoff): a turn never waits on Redis. */
  armSoon(effects: readonly Effect[]): void {
    if (effects.length === 0) return;
    const task = this.armWithRetries(effects).catch((error: unknown) => this.logger.error(`journey timers not armed: ${describe(error)}`));
    this.arming.add(task);
    void task.finally(() => this.arming.delete(task));
  }

  /** Applies the effects now (tests, and the timer handler itself). */
  async apply(effects: readonly Effect[]): Promise<void> {
    for (const effect of effects) {
      if (effect.kind === 'Cancel') await this.scheduler.cancel(QUEUE, effect.job_id);
      else {
        const data: JourneyTimerJob = { sessionId: effect.session_id, journeyId: effect.journey_id, timer: effect.timer };
        await this.scheduler.schedule({ queue: QUEUE, jobId: effect.job_id, data, delayMs: effect.delay_ms ?? 0, attempts: 5, backoff: { type: 'exponential', delayMs: 500 } });
      }
    }
  }

  private async armWithRetries(effects: readonly Effect[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.apply(effects);
        return;
      } catch (error) {
        if (this.stopping.signal.aborted || attempt + 1 >= ARM_ATTEMPTS) throw error;
        await sleep(Math.min(30_000, 500 * 2 ** attempt), undefined, { signal: this.stopping.signal }).catch(() => undefined);
      }
    }
  }

  /**
   * A timer fired: the engine decides (an early or stale timer changes nothing) and its events are appended.
   * `now` is the clock's time (tests pass a later one instead of waiting out `abandon_after_secs`).
   */
  async fire(job: JourneyTimerJob, now = Date.now()): Promise<void> {
    const journey = await this.journeys.get(job.journeyId);
    if (!journey) return; // deleted meanwhile
    const stream = await this.store.readStream(sessionStreamId(job.sessionId));
    if (stream.length === 0) return; // the session was deleted
    const recorded = recordedJourneys(stream);
    if (!recorded[journey.id]) return;
    const lastActivityAt = lastCustomerActivity(stream);
    const correlationId = `journey-timer-${newId(10)}`;
    const request: AdvanceJourneysRequestV1 = {
      session_id: job.sessionId,
      correlation_id: correlationId,
      now,
      journeys: [journeyDefinition(journey)],
      recorded: { [journey.id]: recorded[journey.id] ?? [] },
      matched: [],
      evaluated: {},
      context: {},
      timer: { journey_id: journey.id, kind: job.timer },
      ...(lastActivityAt !== undefined ? { last_activity_at: lastActivityAt } : {}),
    };
    const reply = await requestWithinDeadline<AdvanceJourneysReplyV1, AdvanceJourneysRequestV1>(this.bus, JOURNEYS_ADVANCE_SUBJECT, request, { deadlineAt: Date.now() + ENGINE_DEADLINE_MS, attemptTimeoutMs: 10_000 });
    const records = journeyTransitionRecords(reply, job.sessionId, correlationId);
    if (records.length === 0) return;
    // Guarded by the stream's version: a turn that moved the journey meanwhile makes this attempt retry and re-decide.
    await this.events.appendRecords(job.sessionId, records, stream[stream.length - 1]?.offset ?? -1);
    await this.apply(reply.effects);
    this.logger.log(`session ${job.sessionId}: journey ${journey.id} ${reply.events.map((e) => e.event.type).join(', ')}`);
  }
}
