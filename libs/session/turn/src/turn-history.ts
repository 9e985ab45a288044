import { sessionStreamId } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import { isDeleted, NO_EDITS, toEventView, type EventView, type SessionEventEdits } from '@tenet/session-data-access';

/**
 * Tenet extension on a `ready` status's data: every guideline id the session's replies have applied so far —
 * the `applied_guideline_ids` of every `ready` before this turn's customer message, plus this turn's own. A
 * later turn then needs only the latest `ready` (and the few events back to its customer message) instead of
 * every `ready` of the session. Sessions whose `ready` statuses predate the field are scanned as before.
 */
export const SESSION_APPLIED_FIELD = 'session_applied_guideline_ids';

/**
 * The first window read back from the customer message, every kind of event: it normally holds the previous turn's
 * `ready` and that turn's customer message (a turn writes about six events). It doubles until the walk is anchored;
 * after that only messages are read (`types`), so the older `ready` statuses — the largest events of a session —
 * are neither read nor decoded again.
 */
const ANCHOR_WINDOW = 16;
/** Only the messages needed: windows of this many events per message still wanted (a turn's two messages in ~6 events). */
const EVENTS_PER_MESSAGE = 4;

export interface TurnTail {
  /** The last `historyLength` messages before the customer message, oldest first. */
  messages: EventView[];
  /** Guidelines applied by the session's replies before the customer message (Parlant's applied-guideline tracking). */
  previouslyApplied: string[];
  /** Session events read to answer (the bound this module exists for). */
  eventsRead: number;
}

interface ReadyData {
  status?: unknown;
  data?: { applied_guideline_ids?: unknown; [SESSION_APPLIED_FIELD]?: unknown };
}

const readyOf = (event: EventView): ReadyData['data'] | undefined => {
  if (event.kind !== 'status') return undefined;
  const data = event.data as ReadyData;
  return data.status === 'ready' ? (data.data ?? {}) : undefined;
};

const idsOf = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : undefined;

/**
 * What a turn reads of its session before the customer message at `before`: the recent messages and the
 * previously applied guideline ids, reading the stream backwards in widening windows (`readStream` with
 * `fromOffset`/`limit`) only as far as needed — independent of the session's length in the usual case.
 *
 * Same answer as reading every event before `before`: the messages are the last `historyLength` of them
 * (all when `historyLength` is not positive), and the applied ids are the union of every earlier `ready`'s
 * `applied_guideline_ids`. The latest `ready` carrying `session_applied_guideline_ids` (its turn's union
 * up to that turn's customer message, plus its own) stands for everything before its customer message; the
 * `ready` statuses after that message are added one by one. Events deleted through the API (`edits`) are
 * skipped as if they were not there. Without such a `ready` (a session older than the
 * field, or a stray one) the walk goes back to offset 0 and takes the union itself — the old scan.
 */
export async function readTurnTail(
  store: EventStore,
  sessionId: string,
  before: number,
  historyLength: number,
  edits: SessionEventEdits = NO_EDITS,
): Promise<TurnTail> {
  const stream = sessionStreamId(sessionId);
  const wanted = historyLength > 0 ? historyLength : Number.POSITIVE_INFINITY;
  const newestFirst: EventView[] = [];
  /** `applied_guideline_ids` of each `ready` walked over, newest first. */
  const readies: string[][] = [];
  /** The newest `ready` with the cumulative field, until its customer message is found. */
  let anchor: { cumulative: string[]; correlationId: string } | undefined;
  let anchored = false;
  let eventsRead = 0;
  let end = Math.max(0, before);
  for (let window = ANCHOR_WINDOW; end > 0 && (newestFirst.length < wanted || !anchored); window *= 2) {
    // Anchored: only messages are left to find, in a window sized for the ones still wanted.
    if (anchored) window = Math.max(window, EVENTS_PER_MESSAGE * Math.min(wanted - newestFirst.length, 1_000));
    const from = Math.max(0, end - window);
    // With `types`, `limit` counts messages from `from` on: all of [from, end) come first, later ones are skipped below.
    const events = await store.readStream(stream, { fromOffset: from, limit: end - from, ...(anchored ? { types: ['message'] } : {}) });
    eventsRead += events.length;
    for (let i = events.length - 1; i >= 0; i--) {
      const stored = events[i];
      if (!stored || stored.offset >= end || isDeleted(edits, stored.offset)) continue; // deleted events are out of the history too
      const event = toEventView(stored);
      if (event.kind === 'message' && newestFirst.length < wanted) newestFirst.push(event);
      if (anchored) continue;
      const ready = readyOf(event);
      if (ready) {
        readies.push(idsOf(ready.applied_guideline_ids) ?? []);
        const cumulative = idsOf(ready[SESSION_APPLIED_FIELD]);
        if (!anchor && cumulative) anchor = { cumulative, correlationId: event.correlation_id };
      } else if (anchor && event.kind === 'message' && event.source === 'customer' && event.correlation_id === anchor.correlationId) {
        anchored = true;
      }
    }
    end = from;
  }
  const applied = new Set<string>(anchored && anchor ? anchor.cumulative : []);
  for (const ids of readies.reverse()) for (const id of ids) applied.add(id);
  return { messages: newestFirst.reverse(), previouslyApplied: [...applied], eventsRead };
}
