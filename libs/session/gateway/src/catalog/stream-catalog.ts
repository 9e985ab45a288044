import type { EventStore, StoredEvent } from '@tenet/event-store';

/**
 * A read model over every stream with one prefix (e.g. all `agent-*` streams), kept by reading the log in
 * global order from where it last stopped. Because it reads the shared log, a catalog in one gateway process
 * sees what another process appended the next time it catches up — no cache invalidation protocol needed.
 */
export class StreamCatalog<T> {
  private readonly items = new Map<string, T>();
  private position = 0;
  private catchingUp: Promise<void> | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly prefix: string,
    private readonly apply: (current: T | undefined, event: StoredEvent) => T | undefined,
  ) {}

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
    this.catchingUp ??= (async () => {
      try {
        for (;;) {
          const events = await this.store.readAll({ afterPosition: this.position, limit: 1_000 });
          for (const event of events) {
            if (!event.streamId.startsWith(this.prefix)) continue;
            const id = event.streamId.slice(this.prefix.length);
            const next = this.apply(this.items.get(id), event);
            if (next === undefined) this.items.delete(id);
            else this.items.set(id, next);
          }
          const last = events.at(-1);
          if (last) this.position = last.position;
          if (events.length < 1_000) return;
        }
      } finally {
        this.catchingUp = undefined;
      }
    })();
    return this.catchingUp;
  }
}
