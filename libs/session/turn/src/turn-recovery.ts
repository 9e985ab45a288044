import { sessionStreamId, type SessionEventData } from '@tenet/contracts';
import { ConcurrencyError, type EventStore, type StreamAppend } from '@tenet/event-store';
import type { TurnLeases } from './turn-lease.js';

/**
 * Turns left unfinished by a gateway that died (ADR 0015, docs/reliability.md#crashes-during-turns). Every turn is registered in the log's
 * `turns-open` stream before its `acknowledged` status (`TurnOpened`) and marked `TurnClosed` when it ends, so
 * a sweep knows each unfinished turn and its owner without scanning sessions. The sweep runs when a gateway
 * starts and then every TTL: a turn whose owner's heartbeat is stale (`TurnLeases.alive`) is closed — the
 * session gets an `error` status with the stable code `TURN.INTERRUPTED` (unless it already has a final
 * status for that message) and the dead owner's lease claim is released, so the session's next message runs
 * at once. Several gateways may sweep together: closing is a conditional append to `turns-open`, so each
 * dead turn is closed by exactly one of them. A checkpoint keeps the offset below which every turn is
 * closed, so a sweep reads only the turns since then.
 */
export const TURNS_OPEN_STREAM = 'turns-open';
export const TURN_OPENED = 'TurnOpened';
export const TURN_CLOSED = 'TurnClosed';
const CHECKPOINT = 'turn-recovery';
/** The code of the `error` status a recovered turn ends with. */
export const TURN_INTERRUPTED = 'TURN.INTERRUPTED';

const FINAL_STATUSES = new Set(['ready', 'error', 'cancelled']);

interface OpenTurn {
  session_id: string;
  trigger_offset: number;
  correlation_id: string;
  owner: string;
}

/** Appends a status event to the session (the gateway's session events service). */
export type AppendStatus = (sessionId: string, status: 'error', data: Record<string, unknown>, correlationId: string) => Promise<unknown>;

export class TurnRecovery {
  constructor(
    private readonly store: EventStore,
    private readonly leases: TurnLeases,
    private readonly appendStatus: AppendStatus,
  ) {}

  async opened(sessionId: string, triggerOffset: number, correlationId: string): Promise<void> {
    const { streamId, events } = this.openedRecord(sessionId, triggerOffset, correlationId);
    await this.store.append(streamId, events);
  }

  /** The `TurnOpened` record as a batch, for a caller that writes it together with the turn's first status. */
  openedRecord(sessionId: string, triggerOffset: number, correlationId: string): StreamAppend {
    const turn: OpenTurn = {
      session_id: sessionId,
      trigger_offset: triggerOffset,
      correlation_id: correlationId,
      owner: this.leases.owner,
    };
    return { streamId: TURNS_OPEN_STREAM, events: [{ type: TURN_OPENED, data: turn }] };
  }

  /** The `TurnClosed` record as a batch, for a caller that writes it together with the lease's release. */
  closedRecord(sessionId: string, triggerOffset: number, outcome: string): StreamAppend {
    return {
      streamId: TURNS_OPEN_STREAM,
      events: [{ type: TURN_CLOSED, data: { session_id: sessionId, trigger_offset: triggerOffset, outcome } }],
    };
  }

  /**
   * Closes every open turn of a dead owner — and this process's own open turns that no longer run here
   * (`runsHere`): a turn whose last writes failed (the disk was full: docs/reliability.md#a-full-disk-under-the-event-log) is closed by a later sweep
   * once writes succeed again, so its session does not stay `processing`. Returns how many this call closed.
   */
  async sweep(runsHere: (sessionId: string, triggerOffset: number) => boolean = () => true): Promise<number> {
    let recovered = 0;
    for (let attempt = 0; attempt < 20; attempt++) {
      const from = await this.store.loadCheckpoint(CHECKPOINT);
      const events = await this.store.readStream(TURNS_OPEN_STREAM, { fromOffset: from });
      const version = events.at(-1)?.offset ?? from - 1;
      const open = new Map<string, { turn: OpenTurn; offset: number }>();
      for (const event of events) {
        const data = event.data as OpenTurn;
        const key = `${data.session_id}:${data.trigger_offset}`;
        if (event.type === TURN_OPENED) open.set(key, { turn: data, offset: event.offset });
        else open.delete(key);
      }
      const dead: OpenTurn[] = [];
      for (const { turn } of open.values()) {
        const orphaned = turn.owner === this.leases.owner && !runsHere(turn.session_id, turn.trigger_offset);
        if (orphaned || !(await this.leases.alive(turn.owner))) dead.push(turn);
      }
      if (dead.length > 0) {
        try {
          // One conditional append closes them all: a concurrent sweeper (or turn) makes it fail and we look again.
          await this.store.append(
            TURNS_OPEN_STREAM,
            dead.map((t) => ({
              type: TURN_CLOSED,
              data: { session_id: t.session_id, trigger_offset: t.trigger_offset, outcome: 'interrupted', owner: t.owner },
            })),
            { expectedVersion: version < 0 ? 'no_stream' : version },
          );
        } catch (error) {
          if (error instanceof ConcurrencyError) continue;
          throw error;
        }
        for (const turn of dead) await this.close(turn);
        recovered += dead.length;
      }
      const stillOpen = [...open.values()].filter(({ turn }) => !dead.includes(turn)).map(({ offset }) => offset);
      const next = stillOpen.length > 0 ? Math.min(...stillOpen) : version + 1 + dead.length;
      if (next > from) await this.store.saveCheckpoint(CHECKPOINT, next);
      return recovered;
    }
    return recovered;
  }

  private async close(turn: OpenTurn): Promise<void> {
    const after = await this.store.readStream(sessionStreamId(turn.session_id), { fromOffset: turn.trigger_offset + 1 });
    const finished = after.some((e) => {
      const logged = e.data as SessionEventData;
      return (
        e.type === 'status' &&
        logged.correlation_id === turn.correlation_id &&
        FINAL_STATUSES.has(String((logged.data as { status?: unknown } | undefined)?.status))
      );
    });
    if (!finished) {
      await this.appendStatus(
        turn.session_id,
        'error',
        { code: TURN_INTERRUPTED, exception: 'The turn was interrupted before it finished; send the message again.' },
        turn.correlation_id,
      );
    }
    const { version, held } = await this.leases.current(turn.session_id);
    if (held?.owner === turn.owner) {
      await this.leases.release(turn.session_id, held.trigger_offset, 'interrupted', turn.owner, version).catch((error: unknown) => {
        if (!(error instanceof ConcurrencyError)) throw error; // someone claimed it meanwhile: nothing to release
      });
    }
  }
}
