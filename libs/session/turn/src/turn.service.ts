import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { inBackground } from '@tenet/event-store';
import { redactSecrets } from '@tenet/llm';
import type { MessageBus } from '@tenet/messaging';
import { TenetMetrics, traced } from '@tenet/observability';
import { MESSAGE_BUS } from '@tenet/platform-runtime';
import type { TurnOutcome } from '@tenet/session-domain';
import { sessionAppendedSubject, SessionEventsService, type EventView } from '@tenet/session-data-access';
import { TurnDeadline } from './turn-deadline.js';
import { TurnLeases } from './turn-lease.js';
import { TURN_OPTIONS, type TurnOptions } from './turn-options.js';
import type { BudgetHold } from './turn-preparation.js';
import { TurnRecovery } from './turn-recovery.js';
import { TurnRunner } from './turn-runner.js';

export type { RunnableTool } from '@tenet/tools-client';
export { TURN_EXTRAS, type TurnExtras, type TurnExtrasSource, type TurnGuideline } from './turn-ports.js';

/**
 * One conversation turn, as Parlant runs it: acknowledged → processing → the matcher scores the agent's
 * guidelines (docs/data-model.md#matching) → typing → the matcher composes the reply from the matched actions → agent message
 * → ready, listing the matched guidelines with their scores and the tokens each call used.
 *
 * The gateway orchestrates and the matcher computes: both matcher steps are requests on the bus, answered by
 * one replica of the matcher's queue group (or in-process all-in-one). Turns of a session are serialized by
 * a lease in the shared event log, and a turn is superseded by any newer customer message in the session —
 * checked at each checkpoint of the turn workflow against the log, so it holds across gateway processes (ADR 0007). A superseded
 * turn appends `cancelled` and nothing more.
 */
@Injectable()
export class TurnService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TurnService.name);
  private readonly running = new Map<string, Set<Promise<void>>>();
  /** `session:trigger offset` of the turns running in this process (the recovery sweep closes this process's others). */
  private readonly runningTurns = new Set<string>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly runner: TurnRunner,
    private readonly events: SessionEventsService,
    private readonly leases: TurnLeases,
    private readonly recovery: TurnRecovery,
    @Inject(TURN_OPTIONS) private readonly options: TurnOptions,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Optional() private readonly metrics?: TenetMetrics,
  ) {}

  /** Heartbeat, then close the turns dead gateways left unfinished — now and every lease TTL (turn-recovery.ts). */
  async onModuleInit(): Promise<void> {
    await this.leases.start();
    const sweep = (): Promise<void> =>
      this.recovery
        .sweep((sessionId, offset) => this.runningTurns.has(`${sessionId}:${offset}`))
        .then(
          (closed) => void (closed > 0 && this.logger.warn(`closed ${closed} turn(s) left unfinished by a stopped gateway`)),
          (error: unknown) => this.logger.error(`turn recovery failed: ${String(error)}`),
        );
    await sweep();
    this.sweeper = setInterval(() => void sweep(), this.leases.ttlMs);
    this.sweeper.unref();
  }

  /** On shutdown, running turns finish (their events are appended) before the platform closes the log. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.running.values()].flatMap((turns) => [...turns]));
    await this.leases.stop();
  }

  /**
   * Starts a turn for the customer message and returns at once; the turn's events follow on the session. The turn
   * begins in the loop's next check phase, after the accepting request has written its response: started in the
   * same tick, its first store calls and the provider's answer resolved as microtasks ahead of the response and
   * held the POST (4.9 ms p50 on an idle all-in-one host, bench:turn load mode, for a 0.5 ms /healthz).
   */
  start(sessionId: string, trigger: EventView): void {
    // One trace per turn: the matcher's spans join it through the trace headers of its requests.
    const turn = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() =>
        traced('tenet.turn', { 'tenet.session_id': sessionId, 'tenet.correlation_id': trigger.correlation_id }, () =>
          inBackground(() => this.run(sessionId, trigger)),
        ),
      )
      .catch((error: unknown) => this.logger.error(`turn for session ${sessionId} failed: ${redactSecrets(String(error))}`));
    const turns = this.running.get(sessionId) ?? new Set();
    turns.add(turn);
    this.running.set(sessionId, turns);
    void turn.finally(() => {
      turns.delete(turn);
      if (turns.size === 0 && this.running.get(sessionId) === turns) this.running.delete(sessionId);
    });
  }

  /** Resolves when no turn started by this process is running for the session (tests, shutdown). */
  async idle(sessionId: string): Promise<void> {
    for (let turns = this.running.get(sessionId); turns?.size; turns = this.running.get(sessionId)) await Promise.all([...turns]);
  }

  private async run(sessionId: string, trigger: EventView): Promise<void> {
    const key = `${sessionId}:${trigger.offset}`;
    this.runningTurns.add(key);
    try {
      await this.runTurn(sessionId, trigger);
    } finally {
      this.runningTurns.delete(key);
    }
  }

  /**
   * The turn's frame: registered as open (crash recovery), `acknowledged`, the session's lease, one deadline for
   * the bus steps (a newer customer message cancels the step in flight, turn-deadline.ts) — then the runner; the
   * frame is released whatever the outcome.
   */
  private async runTurn(sessionId: string, trigger: EventView): Promise<void> {
    const correlationId = trigger.correlation_id;
    const status = (value: string, data: Record<string, unknown> = {}) =>
      this.events.append(sessionId, { kind: 'status', source: 'ai_agent', status: value as 'ready', data }, correlationId);
    const total = this.metrics?.turnDuration.startTimer({ stage: 'total' });
    // Registered as open before (or, where the store can, in the same transaction as) `acknowledged`: a crash
    // after the client saw it always leaves the turn for the recovery sweep.
    await this.events.appendAfter(
      sessionId,
      [this.recovery.openedRecord(sessionId, trigger.offset, correlationId)],
      { kind: 'status', source: 'ai_agent', status: 'acknowledged', data: {} },
      correlationId,
    );
    const lease = await this.leases.acquire(sessionId, trigger.offset);
    const deadline = new TurnDeadline(this.bus, this.options.timing);
    let outcome: TurnOutcome = 'error';
    const hold: BudgetHold = {};
    try {
      await deadline.cancelWhen(sessionAppendedSubject(sessionId), () => this.runner.supersededAfter(sessionId, trigger.offset));
      outcome = await this.runner.run(sessionId, trigger, { status, lease, deadline, hold });
    } finally {
      await hold.release?.();
      await deadline.stop();
      // Closed with (or right after) the release: a failed release leaves the turn open, for the recovery sweep to
      // close and release, as before.
      await lease.release(outcome, [this.recovery.closedRecord(sessionId, trigger.offset, outcome)]);
      total?.();
      this.metrics?.turnsTotal.inc({ outcome });
    }
  }
}
