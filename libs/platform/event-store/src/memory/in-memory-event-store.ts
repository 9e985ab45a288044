import { ConcurrencyError, EventLogUnavailableError, InvalidEventError } from '../errors.js';
import {
  streamCategory,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
} from '../event-store.port.js';
import {
  assertCheckpointName,
  assertCheckpointPosition,
  assertExpectedVersion,
  prepareBatch,
  readAllBounds,
  readStreamBounds,
  appendResult,
  type PreparedEvent,
  storedEvent,
  versionMatches,
} from '../validation.js';

interface Row extends PreparedEvent {
  streamId: string;
  offset: number;
  position: number;
  recordedAt: string;
}

/**
 * The shared state behind one or more `InMemoryEventStore` handles, like a database file behind
 * connections. Events are kept serialised, so a reader can never mutate what another reader sees.
 */
export class InMemoryEventLog {
  readonly all: Row[] = [];
  readonly streams = new Map<string, Row[]>();
  readonly ids = new Set<string>();
  readonly checkpoints = new Map<string, number>();
}

/**
 * Event store for unit tests. Every append runs its version check and its writes without an `await` in
 * between, which in one JavaScript thread makes it atomic and serialised, exactly what the durable
 * adapters get from their transactions.
 */
export class InMemoryEventStore implements EventStore {
  private closed = false;

  constructor(readonly log: InMemoryEventLog = new InMemoryEventLog()) {}

  /** Another handle on the same log, as a second connection would be. */
  openHandle(): InMemoryEventStore {
    return new InMemoryEventStore(this.log);
  }

  async append(streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult> {
    this.assertOpen();
    const prepared = prepareBatch(streamId, events);
    const expected = options?.expectedVersion ?? 'any';
    assertExpectedVersion(expected);
    const stream = this.log.streams.get(streamId) ?? [];
    const actual = stream.length - 1;
    if (!versionMatches(expected, actual)) throw new ConcurrencyError(streamId, expected, actual);
    prepared.forEach((event, index) => {
      if (this.log.ids.has(event.id))
        throw new InvalidEventError(`events[${index}].id`, `already used by another event in the log ("${event.id}")`);
    });
    const recordedAt = new Date().toISOString();
    const rows = prepared.map((event, index): Row => ({
      ...event,
      streamId,
      offset: actual + 1 + index,
      position: this.log.all.length + 1 + index,
      recordedAt,
    }));
    this.log.all.push(...rows);
    stream.push(...rows);
    this.log.streams.set(streamId, stream);
    for (const row of rows) this.log.ids.add(row.id);
    return appendResult(rows.map(toStored));
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    this.assertOpen();
    const { fromOffset, limit, types } = readStreamBounds(streamId, options);
    const stream = this.log.streams.get(streamId) ?? [];
    if (types === undefined) return stream.slice(fromOffset, limit === undefined ? undefined : fromOffset + limit).map(toStored);
    return take(stream.slice(fromOffset), (row) => types.includes(row.type), limit);
  }

  async readAll(options?: ReadAllOptions): Promise<StoredEvent[]> {
    this.assertOpen();
    const { afterPosition, limit, categories, types } = readAllBounds(options);
    // Positions here are contiguous from 1, so position p sits at index p - 1.
    if (categories === undefined && types === undefined)
      return this.log.all.slice(afterPosition, limit === undefined ? undefined : afterPosition + limit).map(toStored);
    const keep = (row: Row): boolean =>
      (categories === undefined || categories.includes(streamCategory(row.streamId) ?? '')) &&
      (types === undefined || types.includes(row.type));
    return take(this.log.all.slice(afterPosition), keep, limit);
  }

  async streamVersion(streamId: string): Promise<number> {
    this.assertOpen();
    readStreamBounds(streamId, undefined);
    return (this.log.streams.get(streamId)?.length ?? 0) - 1;
  }

  async loadCheckpoint(name: string): Promise<number> {
    this.assertOpen();
    assertCheckpointName(name);
    return this.log.checkpoints.get(name) ?? 0;
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    this.assertOpen();
    assertCheckpointName(name);
    assertCheckpointPosition(position);
    this.log.checkpoints.set(name, position);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new EventLogUnavailableError('InMemoryEventStore: this handle is closed');
  }
}

/** The first `limit` rows that pass `keep`, decoded; rows that do not pass are never decoded. */
function take(rows: readonly Row[], keep: (row: Row) => boolean, limit: number | undefined): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (const row of rows) {
    if (limit !== undefined && out.length >= limit) break;
    if (keep(row)) out.push(toStored(row));
  }
  return out;
}

const toStored = (row: Row): StoredEvent => storedEvent(row.streamId, row.offset, row.position, row, row.recordedAt);
