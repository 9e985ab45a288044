/** A logged event as the fold reads it. */
interface LoggedEvent {
  type: string;
  data: unknown;
}

export const DELIVERY_STATUSES = ['queued', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryEntry {
  event_id: string;
  /** The agent message's offset in its session: the order of delivery within the conversation. */
  offset: number;
  source: string;
  text: string;
  status: DeliveryStatus;
  /** Parts already accepted by the platform: a retry resumes after them, never sends one twice. */
  parts_sent: number;
  attempts: number;
  last_error: string | null;
  occurred_at: string;
  settled_at: string | null;
}

/** One outbox per conversation (`channelout-<sessionId>`): what the channel owes the platform, and what it delivered. */
export interface Outbox {
  session_id: string;
  connection_id: string;
  entries: Record<string, DeliveryEntry>;
}

export type OutboxEvent =
  | {
      type: 'DeliveryQueued';
      data: {
        session_id: string;
        connection_id: string;
        event_id: string;
        offset: number;
        source: string;
        text: string;
        occurred_at: string;
      };
    }
  | { type: 'DeliveryPartSent'; data: { event_id: string; part: number } }
  | { type: 'DeliveryAttemptFailed'; data: { event_id: string; error: string } }
  | { type: 'DeliverySucceeded'; data: { event_id: string; at: string } }
  | { type: 'DeliveryFailed'; data: { event_id: string; error: string; at: string } }
  | { type: 'DeliveryRetried'; data: { event_id: string } };

export const outboxStream = (sessionId: string): string => `channelout-${sessionId}`;
export const OUTBOX_PREFIX = 'channelout-';

const withEntry = (outbox: Outbox, eventId: string, change: (entry: DeliveryEntry) => DeliveryEntry): Outbox => {
  const entry = outbox.entries[eventId];
  return entry ? { ...outbox, entries: { ...outbox.entries, [eventId]: change(entry) } } : outbox;
};

export function evolveOutbox(current: Outbox | undefined, stored: LoggedEvent): Outbox | undefined {
  const event = stored as OutboxEvent;
  switch (event.type) {
    case 'DeliveryQueued': {
      const { session_id, connection_id, event_id, offset, source, text, occurred_at } = event.data;
      const outbox = current ?? { session_id, connection_id, entries: {} };
      if (outbox.entries[event_id]) return outbox;
      return {
        ...outbox,
        entries: {
          ...outbox.entries,
          [event_id]: {
            event_id,
            offset,
            source,
            text,
            status: 'queued',
            parts_sent: 0,
            attempts: 0,
            last_error: null,
            occurred_at,
            settled_at: null,
          },
        },
      };
    }
    case 'DeliveryPartSent':
      return current && withEntry(current, event.data.event_id, (e) => ({ ...e, parts_sent: Math.max(e.parts_sent, event.data.part + 1) }));
    case 'DeliveryAttemptFailed':
      return current && withEntry(current, event.data.event_id, (e) => ({ ...e, attempts: e.attempts + 1, last_error: event.data.error }));
    case 'DeliverySucceeded':
      return current && withEntry(current, event.data.event_id, (e) => ({ ...e, status: 'delivered', settled_at: event.data.at }));
    case 'DeliveryFailed':
      return (
        current &&
        withEntry(current, event.data.event_id, (e) => ({
          ...e,
          status: 'failed',
          last_error: event.data.error,
          settled_at: event.data.at,
        }))
      );
    case 'DeliveryRetried':
      return (
        current &&
        withEntry(current, event.data.event_id, (e) => (e.status === 'failed' ? { ...e, status: 'queued', settled_at: null } : e))
      );
    default:
      return current;
  }
}

/** Entries still owed before `entry` in its conversation (lower offsets, not yet settled). Failed ones do not hold later ones back. */
export const earlierPending = (outbox: Outbox, entry: DeliveryEntry): DeliveryEntry[] =>
  Object.values(outbox.entries).filter((e) => e.offset < entry.offset && e.status === 'queued');
