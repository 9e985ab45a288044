import { ConcurrencyError } from '../errors.js';
import type { EventStore, StoredEvent } from '../event-store.port.js';
import { StreamCatalog } from './stream-catalog.js';
import { StreamFoldCache } from './stream-fold-cache.js';

export interface ResourceEvent {
  type: string;
  data: unknown;
}

export type Evolve<T> = (current: T | undefined, event: Pick<StoredEvent, 'type' | 'data'>) => T | undefined;

/**
 * The fold every catalog resource shares: `<Kind>Created` carries the whole item, `<Kind>Updated` the changed
 * fields (already resolved — add/remove operations are turned into the resulting arrays before they are stored,
 * so replay never re-interprets a request), `<Kind>Deleted` ends it. `more` folds resource-specific events.
 */
export function crudEvolve<T extends object>(
  kind: string,
  more?: (current: T, event: Pick<StoredEvent, 'type' | 'data'>) => T | undefined,
): Evolve<T> {
  return (current, event) => {
    switch (event.type) {
      case `${kind}Created`:
        return event.data as T;
      case `${kind}Updated`:
        return current && { ...current, ...(event.data as Partial<T>) };
      case `${kind}Deleted`:
        return undefined;
      default:
        return current && more ? more(current, event) : current;
    }
  };
}

export class ResourceIdTakenError extends Error {
  readonly code = 'CATALOG.ID_TAKEN';
}

/**
 * One event stream per item (`<prefix><id>`) plus a `StreamCatalog` read model for listing — the agents
 * repository's pattern, shared by customers, tags, guidelines, context variables and terms.
 */
export class ResourceStreams<T extends object> {
  private readonly catalog: StreamCatalog<T>;
  /** Each item's folded state by stream version: a read folds only the events appended since (see StreamFoldCache). */
  private readonly items: StreamFoldCache<T>;

  constructor(
    private readonly store: EventStore,
    private readonly prefix: string,
    private readonly kind: string,
    private readonly evolve: Evolve<T>,
  ) {
    this.catalog = new StreamCatalog(store, prefix, evolve);
    this.items = new StreamFoldCache(store, evolve);
  }

  async create(id: string, item: T): Promise<T> {
    await this.appendFirst(id, [{ type: `${this.kind}Created`, data: item }]);
    return item;
  }

  /** Starts the item's stream; `ResourceIdTakenError` when it already exists. */
  async appendFirst(id: string, events: ResourceEvent[]): Promise<void> {
    try {
      await this.store.append(this.prefix + id, events, { expectedVersion: 'no_stream' });
    } catch (error) {
      if (error instanceof ConcurrencyError) throw new ResourceIdTakenError(`${this.kind.toLowerCase()} id ${id} is already taken`);
      throw error;
    }
  }

  async get(id: string): Promise<T | undefined> {
    return (await this.read(id)).state;
  }

  list(): Promise<T[]> {
    return this.catalog.all();
  }

  /**
   * Optimistic: `decide` sees the current item and returns the events to append; they are appended only if
   * nobody changed the item meanwhile, otherwise `decide` runs again on the newer state. `undefined` = no item.
   * `decide` may throw (a rule violation) — then nothing is written.
   */
  async change(id: string, decide: (current: T) => ResourceEvent[] | Promise<ResourceEvent[]>): Promise<T | undefined> {
    for (;;) {
      const { state, version } = await this.read(id);
      if (!state) return undefined;
      const events = await decide(state);
      if (events.length === 0) return state;
      try {
        await this.store.append(this.prefix + id, events, { expectedVersion: version });
        return events.reduce<T | undefined>(this.evolve, state);
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  update(id: string, decide: (current: T) => Partial<T> | Promise<Partial<T>>): Promise<T | undefined> {
    return this.change(id, async (current) => [{ type: `${this.kind}Updated`, data: await decide(current) }]);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.deleted(id)) !== undefined;
  }

  /** Deletes and returns the item as it was, or `undefined` when there was none. */
  async deleted(id: string): Promise<T | undefined> {
    for (;;) {
      const { state, version } = await this.read(id);
      if (!state) return undefined;
      try {
        await this.store.append(this.prefix + id, [{ type: `${this.kind}Deleted`, data: {} }], { expectedVersion: version });
        return state;
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  private read(id: string): Promise<{ state: T | undefined; version: number }> {
    return this.items.read(this.prefix + id);
  }
}
