/**
 * The event log: append-only streams (a session is a stream) with per-stream offsets from 0, plus one
 * global order across all streams for projections, replay and the publishing relay.
 */

export interface NewEvent {
  /** Globally unique event id; generated when omitted. Also used as the JetStream message id. */
  id?: string;
  type: string;
  data: unknown;
  metadata?: Record<string, unknown>;
}

export interface StoredEvent {
  id: string;
  streamId: string;
  /** Position within the stream: 0, 1, 2, … with no gap and no duplicate. */
  offset: number;
  /** Position in the whole log: strictly increasing in commit order (not necessarily contiguous). */
  position: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  /** ISO-8601 UTC time the store recorded the event. */
  recordedAt: string;
}

/**
 * Expected version of a stream before an append: the offset of its last event, `-1` / `'no_stream'`
 * for a stream that must not exist yet, or `'any'` to append wherever the stream ends.
 */
export type ExpectedVersion = number | 'any' | 'no_stream';

export interface AppendOptions {
  expectedVersion?: ExpectedVersion;
}

/** One stream's batch of an `appendMany`. */
export interface StreamAppend {
  streamId: string;
  events: readonly NewEvent[];
  /** As `AppendOptions.expectedVersion`; checked against the stream as the earlier batches of the call left it. */
  expectedVersion?: ExpectedVersion;
}

export interface AppendResult {
  /** Offset of the last appended event, i.e. the stream's new version. */
  nextExpectedVersion: number;
  /** Global position of the last appended event. */
  lastPosition: number;
  events: StoredEvent[];
}

export interface ReadStreamOptions {
  fromOffset?: number;
  /** At most this many events (counted after the `types` filter). */
  limit?: number;
  /**
   * Only events of these types. The store drops the others before decoding them (no JSON parse of data it
   * does not return); offsets stay the stream's, so the result may have gaps. An empty list returns nothing.
   */
  types?: readonly string[];
}

export interface ReadAllOptions {
  /** Exclusive lower bound: returns events with position > afterPosition. Default 0. */
  afterPosition?: number;
  /** At most this many events (counted after the `category` and `types` filters). */
  limit?: number;
  /**
   * Only events of streams in this category: the stream id up to and including its first `-` (`'agent-'`
   * selects `agent-1`, `agent-x-y`; see `streamCategory`). Must end with its only `-`. Adapters index it, so a
   * read model of one category reads its own events, however large the rest of the log is. A list selects the
   * events of any of its categories, still in global order (one read for a read model spanning several
   * categories, e.g. every kind of definition); an empty list returns nothing.
   */
  category?: string | readonly string[];
  /** Only events of these types, dropped before decoding as in `ReadStreamOptions.types`. */
  types?: readonly string[];
}

/** A stream's category: its id up to and including the first `-`, or `undefined` when the id has none. */
export function streamCategory(streamId: string): string | undefined {
  const dash = streamId.indexOf('-');
  return dash < 0 ? undefined : streamId.slice(0, dash + 1);
}

export interface EventStore {
  /**
   * Appends the batch atomically (all events or none) at the end of the stream. Rejects with
   * `InvalidEventError` (nothing written) for bad input and `ConcurrencyError` when the stream is not at
   * `expectedVersion` (default `'any'`).
   */
  append(streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Optional: appends several batches (to one stream or several) in one transaction — every batch or none, in the
   * order given, one result per batch. Rejects as `append` does, for the first batch that fails, with nothing
   * written. A store without it is written to one batch after another (`appendTogether`), as separate appends.
   */
  appendMany?(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  readAll(options?: ReadAllOptions): Promise<StoredEvent[]>;
  /** Offset of the stream's last event, or -1 when the stream does not exist. */
  streamVersion(streamId: string): Promise<number>;
  /** Named durable cursors (the relay's "published up to" position, projection positions). */
  loadCheckpoint(name: string): Promise<number>;
  saveCheckpoint(name: string, position: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Appends the batches in one transaction when the store can (`appendMany`: all or none), else one after another in
 * the order given (each its own append, as separate calls would be). For callers whose batches may be written
 * either way — today's order one by one — and that gain a write transaction, and atomicity, where the store allows.
 */
export async function appendTogether(store: EventStore, appends: readonly StreamAppend[]): Promise<AppendResult[]> {
  if (store.appendMany !== undefined) return store.appendMany(appends);
  const results: AppendResult[] = [];
  for (const { streamId, events, expectedVersion } of appends)
    results.push(await store.append(streamId, events, expectedVersion === undefined ? undefined : { expectedVersion }));
  return results;
}
