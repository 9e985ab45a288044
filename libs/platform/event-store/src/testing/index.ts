export { eventStoreConformance, type EventStoreCapabilities, type EventStoreHarness } from './event-store.conformance.js';
