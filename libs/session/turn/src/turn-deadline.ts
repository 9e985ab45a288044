import { VARIABLES } from '@tenet/config';
import type { CallUsageV1 } from '@tenet/contracts';
import { RemoteHandlerError, RequestCancelledError, requestWithinDeadline, type MessageBus, type Subscription } from '@tenet/messaging';
import { TurnCancelled } from '@tenet/session-domain';

/** A turn's whole budget: both matcher steps and their retries. Environment: `TENET_TURN_DEADLINE_MS`. */
export const DEFAULT_TURN_DEADLINE_MS = VARIABLES.TENET_TURN_DEADLINE_MS.fallback;
/** One matcher attempt: a replica that died is given up on after this, and the step retried. `TENET_MATCHER_ATTEMPT_TIMEOUT_MS`. */
export const DEFAULT_MATCHER_ATTEMPT_TIMEOUT_MS = VARIABLES.TENET_MATCHER_ATTEMPT_TIMEOUT_MS.fallback;

export interface TurnTiming {
  deadlineMs: number;
  attemptTimeoutMs: number;
}

/**
 * One turn's deadline (docs/reliability.md#matcher-replicas-and-nats-blips): set when the turn holds its lease, every matcher step gets the
 * time that remains — retried on another replica when one dies or NATS blips (`requestWithinDeadline`) — and the
 * matcher gets the deadline with each request, so its LLM calls stop when it passes. A step that failed after the
 * provider billed calls hands those calls to `billed` (they come back in the error's `details.calls`), so they are
 * metered although the turn fails.
 */
export class TurnDeadline {
  readonly at: number;
  private readonly cancel = new AbortController();
  private watch: Subscription | undefined;

  constructor(
    private readonly bus: MessageBus,
    private readonly timing: TurnTiming,
    now: number = Date.now(),
  ) {
    this.at = now + timing.deadlineMs;
  }

  /**
   * Cancels the step in flight as soon as `superseded` says so, checked on each notification on `subject` (the
   * session's "appended" wake-up): the matcher is told to stop and its LLM calls are aborted. Call `stop` after.
   */
  async cancelWhen(subject: string, superseded: () => Promise<boolean>): Promise<void> {
    this.watch = await this.bus.listen(subject, () => {
      void superseded().then(
        (yes) => yes && this.cancel.abort(),
        () => undefined,
      );
    });
  }

  async stop(): Promise<void> {
    await this.watch?.stop();
  }

  /**
   * A side request of the turn (memory recall, context extraction): within `budgetMs` of now and the turn's
   * deadline, whichever is first. With `cancellable: false` a newer customer message does not stop it (what the
   * customer said is extracted even when the reply to it is superseded).
   */
  async requestWithin<TRes, TReq>(
    budgetMs: number,
    subject: string,
    data: TReq,
    billed: (calls: CallUsageV1[]) => Promise<unknown>,
    options: { cancellable?: boolean; headers?: Record<string, string> } = {},
  ): Promise<TRes> {
    const deadlineAt = Math.min(this.at, Date.now() + budgetMs);
    try {
      return await requestWithinDeadline<TRes, TReq>(this.bus, subject, data, {
        deadlineAt,
        attemptTimeoutMs: Math.min(this.timing.attemptTimeoutMs, budgetMs),
        ...(options.cancellable === false ? {} : { signal: this.cancel.signal }),
        headers: options.headers ?? {},
      });
    } catch (error) {
      const remote = error instanceof RequestCancelledError ? error.cause : error;
      const calls = remote instanceof RemoteHandlerError ? remote.details?.['calls'] : undefined;
      if (Array.isArray(calls) && calls.length > 0) await billed(calls as CallUsageV1[]);
      throw error instanceof RequestCancelledError ? new TurnCancelled() : error;
    }
  }

  /** `billed` meters the calls a failed step was billed for. A cancelled step throws `TurnCancelled`. */
  async request<TRes, TReq>(
    subject: string,
    data: TReq,
    billed: (calls: CallUsageV1[]) => Promise<unknown>,
    headers: Record<string, string> = {},
  ): Promise<TRes> {
    try {
      return await requestWithinDeadline<TRes, TReq>(this.bus, subject, data, {
        deadlineAt: this.at,
        attemptTimeoutMs: this.timing.attemptTimeoutMs,
        signal: this.cancel.signal,
        headers,
      });
    } catch (error) {
      // A cancelled step's error (when the matcher answered it in time) still lists the calls it was billed for.
      const remote = error instanceof RequestCancelledError ? error.cause : error;
      const calls = remote instanceof RemoteHandlerError ? remote.details?.['calls'] : undefined;
      if (Array.isArray(calls) && calls.length > 0) await billed(calls as CallUsageV1[]);
      throw error instanceof RequestCancelledError ? new TurnCancelled() : error;
    }
  }
}
