import { currentLane, inLane, type SliceLane } from '../event-loop-slices.js';
import { streamCategory, type EventStore, type StoredEvent } from '../event-store.port.js';

/** Events per catch-up read. */
export const CATALOG_PAGE = 1_000;

const LANE_RANK: Record<SliceLane, number> = { foreground: 0, background: 1, idle: 2 };

/**
 * A read model over every stream with one prefix (e.g. all `agent-*` streams), kept by reading the log in
 * global order from where it last stopped. Because it reads the shared log, a catalog in one gateway process
 * sees what another process appended the next time it catches up — no cache invalidation protocol needed.
 *
 * It reads only its own category of the log (`readAll({ category })`, indexed by every adapter): its
 * checkpoint is the position of the last event of its category it folded, so a catch-up reads only events of
 * its own streams appended since — neither its first read after a restart nor any later one depends on how
 * many session, lease or usage events the log holds.
 *
 * Each page is read in the most urgent event-loop lane among the callers waiting on the catch-up (see
 * EventLoopSlices): a request that joins a catch-up started by idle start-up work (the timer re-arm) is not
 * held at idle priority; its remaining pages run as request work.
 */
export class StreamCatalog<T> {
  private readonly items = new Map<string, T>();
  private position = 0;
  private catchingUp: Promise<void> | undefined;
  /** The log category holding this prefix's streams (`agent-` for `agent-`); without one, the whole log is read. */
  private readonly category: string | undefined;
  /** The most urgent lane among the callers of the catch-up under way. */
  private lane: SliceLane = 'idle';

  constructor(
    private readonly store: EventStore,
    private readonly prefix: string,
    private readonly apply: (current: T | undefined, event: StoredEvent) => T | undefined,
    /** Events per read: one read is one synchronous store call, so smaller pages interleave better with other work. */
    private readonly pageSize = CATALOG_PAGE,
  ) {
    this.category = streamCategory(prefix);
  }

  async all(): Promise<T[]> {
    await this.catchUp();
    return [...this.items.values()];
  }

  /** The item of one stream id (after the prefix), as of the last catch-up. */
  get(id: string): T | undefined {
    return this.items.get(id);
  }

  /** Concurrent callers share one read; each round reads until the log has nothing newer. */
  catchUp(): Promise<void> {
    const caller = currentLane();
    if (this.catchingUp === undefined || LANE_RANK[caller] < LANE_RANK[this.lane]) this.lane = caller;
    this.catchingUp ??= (async () => {
      try {
        for (;;) {
          const after = this.position;
          const events = await inLane(this.lane, () =>
            this.store.readAll({
              afterPosition: after,
              limit: this.pageSize,
              ...(this.category !== undefined ? { category: this.category } : {}),
            }),
          );
          for (const event of events) {
            if (!event.streamId.startsWith(this.prefix)) continue;
            const id = event.streamId.slice(this.prefix.length);
            const next = this.apply(this.items.get(id), event);
            if (next === undefined) this.items.delete(id);
            else this.items.set(id, next);
          }
          const last = events.at(-1);
          if (last) this.position = last.position;
          if (events.length < this.pageSize) return;
        }
      } finally {
        this.catchingUp = undefined;
      }
    })();
    return this.catchingUp;
  }
}
