import type { ExpectedVersion } from '@tenet/event-store';

/**
 * Where the journeys' moves are recorded: the session's own stream (`journey_transition` records), so a turn and
 * a timer fold the same history. The session gateway binds its events service to this token.
 */
export const SESSION_JOURNAL = Symbol.for('tenet.journeys.session-journal');

export interface SessionJournal {
  appendRecords(sessionId: string, records: readonly { type: string; data: unknown }[], expectedVersion?: ExpectedVersion): Promise<void>;
}
