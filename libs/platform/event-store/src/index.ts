export type {
  AppendOptions,
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  StoredEvent,
  StreamAppend,
} from './event-store.port.js';
export { appendTogether, streamCategory } from './event-store.port.js';
export {
  ConcurrencyError,
  EventLogError,
  EventLogUnavailableError,
  InvalidEventError,
  InvalidRequestError,
  isStorageFull,
} from './errors.js';
export { InMemoryEventLog, InMemoryEventStore } from './memory/in-memory-event-store.js';
export {
  atIdle,
  currentLane,
  DEFAULT_SLICE_MS,
  EventLoopSlices,
  eventLoopSlices,
  inBackground,
  inLane,
  type SliceLane,
} from './event-loop-slices.js';
export { SQLITE_EVENTS_FILE, SqliteEventStore, type SqliteEventStoreOptions } from './sqlite/sqlite-event-store.js';
export { connectMongoEventStore, type MongoEventStore, type MongoEventStoreOptions } from './mongo/connect-mongo.js';
export {
  EventLogRelay,
  soleLeadership,
  type EventLogRelayOptions,
  type EventPublisher,
  type EventRoute,
  type RouteTarget,
  type RelayLeadership,
  type RelayLeadershipListener,
  type RelayWakeups,
} from './relay/event-log-relay.js';
export { PublishingEventStore, withPublishing } from './relay/with-publishing.js';
export { CATALOG_PAGE, StreamCatalog } from './read-models/stream-catalog.js';
export { DEFAULT_FOLD_CACHE_CAPACITY, StreamFoldCache } from './read-models/stream-fold-cache.js';
export { crudEvolve, ResourceIdTakenError, ResourceStreams, type Evolve, type ResourceEvent } from './read-models/resource-streams.js';
