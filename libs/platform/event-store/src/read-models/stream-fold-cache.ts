import type { EventStore, StoredEvent } from '../event-store.port.js';
import { LRUCache } from 'lru-cache';

/** How many streams' folded states one cache keeps by default (least recently read evicted first). */
export const DEFAULT_FOLD_CACHE_CAPACITY = 10_000;

interface Entry<T> {
  state: T | undefined;
  /** Offset of the last event folded into `state`. */
  version: number;
}

/**
 * An incremental read model of single streams: the folded state of each recently read stream together with
 * the stream version it reflects. A read fetches only the events after that version (`readStream` from
 * `version + 1`, usually none or one) and folds them onto the cached state, so reading a stream costs the
 * same however long it has grown.
 *
 * Correct across processes and store handles without any invalidation: every read catches up from the log
 * before it answers, so it sees whatever any writer appended (streams are append-only; offsets never
 * change). Bounded: at most `capacity` streams are kept, the least recently read dropped first, and a
 * dropped stream is simply folded from offset 0 again on its next read.
 *
 * `evolve` must not mutate `current` (every fold in the gateway builds new objects), and callers must treat
 * the returned state as read-only — it is shared with later reads, as `StreamCatalog`'s items already are.
 */
export class StreamFoldCache<T> {
  private readonly entries: LRUCache<string, Entry<T>>;

  constructor(
    private readonly store: EventStore,
    private readonly evolve: (current: T | undefined, event: StoredEvent) => T | undefined,
    capacity = DEFAULT_FOLD_CACHE_CAPACITY,
  ) {
    this.entries = new LRUCache({ max: capacity });
  }

  /** The stream's state as of its latest event, with that event's offset (`-1`: no stream). */
  async read(streamId: string): Promise<{ state: T | undefined; version: number }> {
    const cached = this.entries.get(streamId);
    const events = await this.store.readStream(streamId, { fromOffset: cached ? cached.version + 1 : 0 });
    const state = events.reduce<T | undefined>(this.evolve, cached?.state);
    const version = events.at(-1)?.offset ?? cached?.version ?? -1;
    if (version >= 0) this.remember(streamId, { state, version });
    return { state, version };
  }

  /** Streams currently cached (tests, diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  private remember(streamId: string, entry: Entry<T>): void {
    // A concurrent read may already have stored a newer version; never go back. (`peek`: the read that
    // fetched `entry` already counts as this stream's use; setting refreshes it.)
    const current = this.entries.peek(streamId);
    this.entries.set(streamId, current && current.version > entry.version ? current : entry);
  }
}
