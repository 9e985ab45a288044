import type { MongoEventStore, MongoEventStoreOptions } from './mongo-event-store.js';

export type { MongoEventStore, MongoEventStoreOptions };

/**
 * `MongoEventStore.connect`, with mongoose loaded here rather than by every importer of the event store (ADR 0035):
 * only a process whose log is on MongoDB loads it.
 */
export async function connectMongoEventStore(options: MongoEventStoreOptions): Promise<MongoEventStore> {
  const { MongoEventStore: Store } = await import('./mongo-event-store.js');
  return Store.connect(options);
}
