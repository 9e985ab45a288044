import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import {
  JOURNEY_TRANSITION_EVENT_TYPE,
  JOURNEYS_ADVANCE_SUBJECT,
  sessionStreamId,
  type AdvanceJourneysReplyV1,
  type AdvanceJourneysRequestV1,
} from '@tenet/contracts';
import { atIdle, type EventStore } from '@tenet/event-store';
import { foldJourney, pendingJourneyTimer, type JourneyEvent } from '@tenet/journeys-domain';
import { requestWithinDeadline, type MessageBus } from '@tenet/messaging';
import { EVENT_STORE, MESSAGE_BUS, SCHEDULER } from '@tenet/platform-runtime';
import { BackgroundArming, armBackoffMs, type Scheduler } from '@tenet/scheduling';
import { newId } from '@tenet/edge';
import {
  journeyDefinition,
  journeyTransitionRecords,
  lastCustomerActivity,
  recordedJourneys,
  JourneysRepository,
} from '@tenet/catalog-data-access';
import { SESSION_JOURNAL, type SessionJournal } from './session-journal.js';

const QUEUE = 'journey-timers';

export interface JourneyTimerJob {
  sessionId: string;
  journeyId: string;
  timer: 'abandon' | 'expire';
}

type Effect = AdvanceJourneysReplyV1['effects'][number];

/** Attempts of a background arming, 0.5 s apart doubling to 30 s; a journey whose timer is lost stays resumable. */
const ARM_ATTEMPTS = 8;
/** One attempt may wait this long on the scheduler's store before it counts as failed. */
const ARM_ATTEMPT_TIMEOUT_MS = 5_000;
/** How long a fired timer waits for the journey engine (retried on another replica within it). */
const ENGINE_DEADLINE_MS = 30_000;

/**
 * A journey that sees no customer activity is abandoned after its `abandon_after_secs`, and expires after its
 * `expire_after_secs` (the journey's timeouts, docs/data-model.md#journeys): the engine's timer effects go to the scheduling port (BullMQ in
 * distributed mode, in-process timers all-in-one) under deterministic ids, and a fired timer asks the engine
 * (which ignores an early or stale one) and appends what it decided to the session stream.
 *
 * Arming never holds up a turn: it runs in the background with bounded retries, like the session's timers.
 */
@Injectable()
export class JourneyTimers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(JourneyTimers.name);
  private readonly arming = new BackgroundArming({
    attempts: ARM_ATTEMPTS,
    attemptTimeoutMs: ARM_ATTEMPT_TIMEOUT_MS,
    log: this.logger,
    whenLost: 'the journey stays resumable but is not abandoned on time',
  });

  constructor(
    @Inject(SCHEDULER) private readonly scheduler: Scheduler,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly journeys: JourneysRepository,
    @Inject(SESSION_JOURNAL) private readonly events: SessionJournal,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.scheduler.process<JourneyTimerJob>(QUEUE, (job) => this.fire(job.data), { concurrency: 2 });
    // Idle lane, like the session timers' re-arm: it reads every journey record, so it must not delay requests.
    this.arming.track(atIdle(() => this.rearmFromLog()));
    // After a Redis outage or restart without persistence, without waiting for a restart of this process.
    this.arming.rebuildWhenRestored(this.scheduler, 'the journey timers', () => atIdle(() => this.rearmFromLog()));
  }

  /**
   * Schedules the timer of every journey still active or abandoned again, as the log says it should be (docs/reliability.md#redis-outage-and-a-redis-restart-without-persistence:
   * timers a Redis restart without persistence lost are rebuilt at start-up and when Redis answers again). Idempotent: the ids are the moves'
   * own, which the scheduler deduplicates while pending, so every replica may run it at every start. Measured from
   * the last step change (the customer's later activity is not read here): a timer that fires early finds the
   * customer active since and is re-armed by the engine at the right time.
   */
  async rearmFromLog(now = Date.now()): Promise<number> {
    const records = await this.store.readAll({ category: sessionStreamId(''), types: [JOURNEY_TRANSITION_EVENT_TYPE] });
    const byStream = new Map<string, typeof records>();
    for (const record of records) {
      const list = byStream.get(record.streamId);
      if (list) list.push(record);
      else byStream.set(record.streamId, [record]);
    }
    const definitions = new Map<string, Awaited<ReturnType<JourneysRepository['get']>>>();
    const effects: Effect[] = [];
    for (const streamRecords of byStream.values()) {
      for (const [journeyId, recorded] of Object.entries(recordedJourneys(streamRecords))) {
        if (!definitions.has(journeyId)) definitions.set(journeyId, await this.journeys.get(journeyId));
        const journey = definitions.get(journeyId);
        const timer = journey ? pendingJourneyTimer(foldJourney(recorded as JourneyEvent[]), journeyDefinition(journey), now) : undefined;
        if (timer?.kind === 'Schedule')
          effects.push({
            kind: 'Schedule',
            timer: timer.timer,
            session_id: timer.sessionId,
            journey_id: timer.journeyId,
            job_id: timer.jobId,
            delay_ms: timer.delayMs,
          });
      }
    }
    let next = 0;
    for (let attempt = 0; next < effects.length && !this.arming.signal.aborted; attempt++) {
      try {
        // One timer per attempt: a Redis outage resumes from the timer that failed, however long it lasts.
        for (; next < effects.length && !this.arming.signal.aborted; next++) {
          const effect = effects[next] as Effect;
          await this.arming.attempt(() => this.apply([effect]));
        }
      } catch (error) {
        this.logger.warn(
          `re-arming journey timers from the event log paused at ${next}/${effects.length} (${error instanceof Error ? error.message : String(error)}); retrying`,
        );
        await this.arming.pause(armBackoffMs(Math.min(attempt, 6)));
      }
    }
    if (effects.length > 0) this.logger.log(`re-armed ${next} of ${effects.length} journey timer(s) from the event log`);
    return next;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.arming.stop();
  }

  /** Schedules and cancels in the background (retried with backoff): a turn never waits on Redis. */
  armSoon(effects: readonly Effect[]): void {
    if (effects.length > 0) this.arming.armSoon(`session ${effects[0]?.session_id ?? ''}: journey`, () => this.apply(effects));
  }

  /** Applies the effects now (tests, and the timer handler itself). */
  async apply(effects: readonly Effect[]): Promise<void> {
    for (const effect of effects) {
      if (effect.kind === 'Cancel') await this.scheduler.cancel(QUEUE, effect.job_id);
      else {
        const data: JourneyTimerJob = { sessionId: effect.session_id, journeyId: effect.journey_id, timer: effect.timer };
        await this.scheduler.schedule({
          queue: QUEUE,
          jobId: effect.job_id,
          data,
          delayMs: effect.delay_ms ?? 0,
          attempts: 5,
          backoff: { type: 'exponential', delayMs: 500 },
        });
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
    const reply = await requestWithinDeadline<AdvanceJourneysReplyV1, AdvanceJourneysRequestV1>(
      this.bus,
      JOURNEYS_ADVANCE_SUBJECT,
      request,
      { deadlineAt: Date.now() + ENGINE_DEADLINE_MS, attemptTimeoutMs: 10_000 },
    );
    const records = journeyTransitionRecords(reply, job.sessionId, correlationId);
    if (records.length === 0) return;
    // Guarded by the stream's version: a turn that moved the journey meanwhile makes this attempt retry and re-decide.
    await this.events.appendRecords(job.sessionId, records, stream[stream.length - 1]?.offset ?? -1);
    await this.apply(reply.effects);
    this.logger.log(`session ${job.sessionId}: journey ${journey.id} ${reply.events.map((e) => e.event.type).join(', ')}`);
  }
}
