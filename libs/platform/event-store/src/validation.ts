import { randomUUID } from 'node:crypto';
import { InvalidEventError, InvalidRequestError } from './errors.js';
import type { AppendResult, ExpectedVersion, NewEvent, ReadAllOptions, ReadStreamOptions, StoredEvent } from './event-store.port.js';

// Internal to the lib: every adapter validates with the same rules, so an input rejected by one is rejected
// by all, before any I/O, and an append can never be half-written because of bad input.

export const MAX_STREAM_ID_LENGTH = 256;
export const MAX_TYPE_LENGTH = 200;
export const MAX_EVENT_ID_LENGTH = 200;

/** An event that passed validation, with data and metadata already serialised once for storage. */
export interface PreparedEvent {
  id: string;
  type: string;
  dataJson: string;
  metadataJson: string;
}

export function assertStreamId(streamId: unknown): asserts streamId is string {
  if (typeof streamId !== 'string' || streamId.length === 0) throw new InvalidEventError('streamId', 'must be a non-empty string');
  if (streamId.length > MAX_STREAM_ID_LENGTH) throw new InvalidEventError('streamId', `must be at most ${MAX_STREAM_ID_LENGTH} characters`);
}

function toJson(value: unknown, field: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidEventError(field, `must be JSON-serialisable (${(error as Error).message})`);
  }
  // JSON.stringify returns undefined for undefined, functions and symbols: nothing that could be read back.
  if (json === undefined) throw new InvalidEventError(field, 'must be JSON-serialisable (got undefined, a function or a symbol)');
  return json;
}

export function prepareBatch(streamId: unknown, events: unknown): PreparedEvent[] {
  assertStreamId(streamId);
  if (!Array.isArray(events)) throw new InvalidEventError('events', 'must be an array');
  if (events.length === 0) throw new InvalidEventError('events', 'must contain at least one event');
  const seen = new Set<string>();
  return (events as readonly NewEvent[]).map((event, index) => {
    const at = `events[${index}]`;
    if (typeof event !== 'object' || event === null) throw new InvalidEventError(at, 'must be an object');
    const { type, id, metadata } = event;
    if (typeof type !== 'string' || type.length === 0) throw new InvalidEventError(`${at}.type`, 'must be a non-empty string');
    if (type.length > MAX_TYPE_LENGTH) throw new InvalidEventError(`${at}.type`, `must be at most ${MAX_TYPE_LENGTH} characters`);
    if (id !== undefined) {
      if (typeof id !== 'string' || id.length === 0) throw new InvalidEventError(`${at}.id`, 'must be a non-empty string when given');
      if (id.length > MAX_EVENT_ID_LENGTH) throw new InvalidEventError(`${at}.id`, `must be at most ${MAX_EVENT_ID_LENGTH} characters`);
    }
    const eventId = id ?? randomUUID();
    if (seen.has(eventId)) throw new InvalidEventError(`${at}.id`, `duplicates another event id in the batch ("${eventId}")`);
    seen.add(eventId);
    if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
      throw new InvalidEventError(`${at}.metadata`, 'must be a plain object when given');
    }
    return {
      id: eventId,
      type,
      dataJson: toJson(event.data, `${at}.data`),
      metadataJson: metadata === undefined ? '{}' : toJson(metadata, `${at}.metadata`),
    };
  });
}

export function assertExpectedVersion(expected: unknown): asserts expected is ExpectedVersion {
  if (expected === 'any' || expected === 'no_stream') return;
  if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < -1) {
    throw new InvalidEventError('expectedVersion', "must be an integer >= -1, 'no_stream' or 'any'");
  }
}

export function versionMatches(expected: ExpectedVersion, actual: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === -1;
  return expected === actual;
}

function nonNegativeInteger(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new InvalidRequestError(field, 'must be a non-negative integer');
  return value;
}

function typeList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((type) => typeof type !== 'string' || type.length === 0))
    throw new InvalidRequestError('types', 'must be an array of non-empty strings');
  return [...new Set(value as string[])];
}

const isCategory = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 2 && value.indexOf('-') === value.length - 1;

/** One category or a list of them, as a list without repeats. */
function categoryOption(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const list: unknown[] = Array.isArray(value) ? value : [value];
  if (!list.every(isCategory))
    throw new InvalidRequestError('category', "must be a stream id prefix ending with its only '-' (e.g. 'agent-'), or a list of them");
  return [...new Set(list)];
}

export function readStreamBounds(
  streamId: unknown,
  options: ReadStreamOptions | undefined,
): { fromOffset: number; limit: number | undefined; types: string[] | undefined } {
  if (typeof streamId !== 'string' || streamId.length === 0) throw new InvalidRequestError('streamId', 'must be a non-empty string');
  return {
    fromOffset: nonNegativeInteger(options?.fromOffset, 'fromOffset') ?? 0,
    limit: nonNegativeInteger(options?.limit, 'limit'),
    types: typeList(options?.types),
  };
}

export function readAllBounds(options: ReadAllOptions | undefined): {
  afterPosition: number;
  limit: number | undefined;
  categories: string[] | undefined;
  types: string[] | undefined;
} {
  return {
    afterPosition: nonNegativeInteger(options?.afterPosition, 'afterPosition') ?? 0,
    limit: nonNegativeInteger(options?.limit, 'limit'),
    categories: categoryOption(options?.category),
    types: typeList(options?.types),
  };
}

export function assertCheckpointName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length === 0) throw new InvalidRequestError('name', 'must be a non-empty string');
}

export function assertCheckpointPosition(position: unknown): asserts position is number {
  nonNegativeInteger(position, 'position');
  if (position === undefined) throw new InvalidRequestError('position', 'must be a non-negative integer');
}

/** Builds the StoredEvent a reader gets, from the serialised form every adapter keeps. */
export function storedEvent(
  streamId: string,
  offset: number,
  position: number,
  event: Pick<PreparedEvent, 'id' | 'type' | 'dataJson' | 'metadataJson'>,
  recordedAt: string,
): StoredEvent {
  return {
    id: event.id,
    streamId,
    offset,
    position,
    type: event.type,
    data: JSON.parse(event.dataJson) as unknown,
    // Most events carry no metadata; skipping the parse for it is measurable on the append hot path.
    metadata: event.metadataJson === '{}' ? {} : (JSON.parse(event.metadataJson) as Record<string, unknown>),
    recordedAt,
  };
}

/** The result of a committed, non-empty batch (validation guarantees at least one event). */
export function appendResult(events: StoredEvent[]): AppendResult {
  const last = events[events.length - 1];
  if (!last) throw new Error('appendResult: a committed batch cannot be empty');
  return { nextExpectedVersion: last.offset, lastPosition: last.position, events };
}
