import type { StoredEvent } from '@tenet/event-store';

/**
 * What the session list needs of every session, and nothing more: its id and creation time (the list's order and
 * page cursor), and what it is filtered by. The full record of a listed session is read from the log (through the
 * repository's bounded record cache) only when it is answered, so a process keeps ~150 bytes per session for its
 * list instead of every session's whole record (idle sessions cost bounded memory, ADR 0032).
 */
export interface SessionIndexEntry {
  readonly id: string;
  readonly creation_utc: string;
  readonly agent_id: string;
  readonly customer_id: string;
  readonly labels: readonly string[];
}

const NO_LABELS: readonly string[] = Object.freeze([]);

/**
 * Agent and customer ids repeat across sessions: each entry points at one shared string per id instead of its
 * own copy decoded from the event's JSON. Bounded by the agents and customers there are.
 */
const shared = new Map<string, string>();
const intern = (value: string): string => {
  const known = shared.get(value);
  if (known !== undefined) return known;
  shared.set(value, value);
  return value;
};

interface OpenedData {
  id: string;
  creation_utc: string;
  agent_id: string;
  customer_id: string;
  labels?: string[];
}

type IndexedChange = Partial<Pick<OpenedData, 'agent_id' | 'customer_id' | 'labels'>>;

const labelsOf = (labels: readonly string[] | undefined): readonly string[] =>
  labels === undefined || labels.length === 0 ? NO_LABELS : labels.map(intern);

/**
 * Folds a `sessionmeta-<id>` stream into its index entry: opened, changed by an update of what the list filters
 * on, gone when deleted. Every other event (activity, lifecycle, edits) leaves the entry as it is — the same
 * object, nothing allocated.
 */
export function foldSessionIndexEntry(
  current: SessionIndexEntry | undefined,
  event: Pick<StoredEvent, 'type' | 'data'>,
): SessionIndexEntry | undefined {
  switch (event.type) {
    case 'SessionOpened': {
      const data = event.data as OpenedData;
      return {
        id: data.id,
        creation_utc: data.creation_utc,
        agent_id: intern(data.agent_id),
        customer_id: intern(data.customer_id),
        labels: labelsOf(data.labels),
      };
    }
    case 'SessionDeleted':
      return undefined;
    case 'SessionUpdated': {
      const change = event.data as IndexedChange;
      if (current === undefined || (change.agent_id === undefined && change.customer_id === undefined && change.labels === undefined))
        return current;
      return {
        ...current,
        ...(change.agent_id !== undefined ? { agent_id: intern(change.agent_id) } : {}),
        ...(change.customer_id !== undefined ? { customer_id: intern(change.customer_id) } : {}),
        ...(change.labels !== undefined ? { labels: labelsOf(change.labels) } : {}),
      };
    }
    default:
      return current;
  }
}
