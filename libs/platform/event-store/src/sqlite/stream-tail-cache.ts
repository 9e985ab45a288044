import { LRUCache } from 'lru-cache';

/** A row of the `events` table as the SQLite store selects it: data and metadata still JSON text. */
export interface EventRow {
  position: number;
  id: string;
  stream_id: string;
  stream_offset: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

/**
 * The last events of one stream, exactly: `rows` are the stream's events at offsets `from`..`version` in order,
 * and `version` is the stream's last offset (-1: no event yet, then `from` is 0 and `rows` empty).
 */
export interface StreamTail {
  readonly from: number;
  readonly version: number;
  readonly rows: readonly EventRow[];
  /** Its size for the cache's bound (units of `maxChars`), kept as rows come and go rather than summed per update. */
  readonly chars: number;
}

export interface StreamTailCacheOptions {
  /** Streams kept (least recently used dropped first). */
  streams: number;
  /** Rows kept per stream: its newest ones; reads reaching further back go to the database. */
  eventsPerStream: number;
  /** Bound on the JSON text kept over all streams, in characters (about twice that in bytes). */
  maxChars: number;
}

export const DEFAULT_STREAM_TAIL_CACHE: StreamTailCacheOptions = { streams: 10_000, eventsPerStream: 256, maxChars: 32 * 1024 * 1024 };

// Fixed cost of a row besides its JSON (ids, numbers, object) and of an entry, in the same units as maxChars.
const ROW_OVERHEAD = 128;
const ENTRY_OVERHEAD = 64;
const rowChars = (rows: readonly EventRow[]): number =>
  rows.reduce((size, row) => size + row.data.length + row.metadata.length + ROW_OVERHEAD, 0);

/**
 * Recent tails of streams, kept by the SQLite store (ADR 0020): a turn reads its session's streams again
 * and again (catalog folds asking "anything new?", lease, superseded checks, history), almost always at or near
 * the end. Events are immutable and append-only, and the store sees every append it commits, so it can answer
 * those reads from memory: filled from the database on a miss (the stream's newest rows), extended by each
 * committed append of this connection, and dropped whole when another connection changed the file (the store
 * checks `PRAGMA data_version` before using it). Rows stay undecoded: every read decodes its own copies, as a
 * database read does, so a caller mutating what it got cannot change what the next caller sees.
 */
export class StreamTailCache {
  private readonly tails: LRUCache<string, StreamTail>;
  /** Reads answered from memory and reads that had to go to the database (diagnostics, tests). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly options: StreamTailCacheOptions) {
    if (!(options.eventsPerStream >= 1)) throw new RangeError('StreamTailCache: eventsPerStream must be at least 1');
    this.tails = new LRUCache<string, StreamTail>({
      max: options.streams,
      maxSize: options.maxChars,
      sizeCalculation: (tail) => tail.chars,
    });
  }

  get eventsPerStream(): number {
    return this.options.eventsPerStream;
  }

  /** The cached tail of the stream when it covers `fromOffset` onwards; counts the hit or miss. */
  covering(streamId: string, fromOffset: number): StreamTail | undefined {
    const tail = this.tails.get(streamId);
    if (tail !== undefined && fromOffset >= tail.from) {
      this.stats.hits++;
      return tail;
    }
    this.stats.misses++;
    return undefined;
  }

  /** The cached tail of the stream, if any, without counting it (streamVersion). */
  peek(streamId: string): StreamTail | undefined {
    return this.tails.get(streamId);
  }

  /** Records the stream's newest rows as read from the database, newest first (`ORDER BY stream_offset DESC`). */
  fill(streamId: string, newestFirst: readonly EventRow[]): StreamTail {
    const rows = newestFirst.slice().reverse();
    const first = rows[0];
    const last = rows[rows.length - 1];
    // Fewer rows than asked for means the whole stream was read, from offset 0.
    const tail: StreamTail =
      first === undefined || last === undefined
        ? { from: 0, version: -1, rows: [], chars: ENTRY_OVERHEAD }
        : {
            from: newestFirst.length < this.options.eventsPerStream ? 0 : first.stream_offset,
            version: last.stream_offset,
            rows,
            chars: ENTRY_OVERHEAD + rowChars(rows),
          };
    this.tails.set(streamId, tail);
    return tail;
  }

  /**
   * A committed append of this connection: `rows` are the stream's events right after the version it had when the
   * append ran. Extends a cached tail that ends just before them; a tail that does not (it cannot, unless another
   * connection wrote, which the data_version check also catches) is dropped. An uncached stream starts a tail at the
   * first appended offset: what comes before it is unknown, what follows is exact.
   */
  appended(streamId: string, rows: readonly EventRow[]): void {
    const first = rows[0];
    const last = rows[rows.length - 1];
    if (first === undefined || last === undefined) return;
    const cached = this.tails.peek(streamId);
    let all: EventRow[];
    let from: number;
    let chars = rowChars(rows);
    if (cached === undefined) {
      all = rows.slice();
      from = first.stream_offset;
      chars += ENTRY_OVERHEAD;
    } else if (cached.version === first.stream_offset - 1) {
      all = cached.rows.concat(rows);
      from = cached.from;
      chars += cached.chars;
    } else {
      this.tails.delete(streamId);
      return;
    }
    const drop = all.length - this.options.eventsPerStream;
    if (drop > 0) {
      chars -= rowChars(all.slice(0, drop));
      all = all.slice(drop);
      from = last.stream_offset - all.length + 1; // offsets have no gaps
    }
    this.tails.set(streamId, { from, version: last.stream_offset, rows: all, chars });
  }

  clear(): void {
    this.tails.clear();
  }

  get size(): number {
    return this.tails.size;
  }
}

/**
 * The rows of a covering tail a `readStream(fromOffset, limit, types)` returns, as the SQL query would: offsets
 * from `fromOffset`, only the given types (before anything is decoded), at most `limit` after the filter.
 */
export function rowsFromTail(
  tail: StreamTail,
  fromOffset: number,
  limit: number | undefined,
  types: readonly string[] | undefined,
): EventRow[] {
  const start = Math.max(0, fromOffset - tail.from);
  const max = limit ?? Number.POSITIVE_INFINITY;
  const out: EventRow[] = [];
  if (max <= 0) return out;
  const wanted = types === undefined ? undefined : new Set(types);
  for (let i = start; i < tail.rows.length; i++) {
    const row = tail.rows[i];
    if (row === undefined) break;
    if (wanted !== undefined && !wanted.has(row.type)) continue;
    out.push(row);
    if (out.length >= max) break;
  }
  return out;
}
