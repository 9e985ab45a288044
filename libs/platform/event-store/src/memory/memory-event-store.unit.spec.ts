import { eventStoreConformance } from '../testing/index.js';
import { InMemoryEventLog, InMemoryEventStore } from './in-memory-event-store.js';

// Handles share one InMemoryEventLog, as connections share a database; nothing outlives the process.
eventStoreConformance(
  'InMemoryEventStore',
  async () => {
    const log = new InMemoryEventLog();
    return { open: async () => new InMemoryEventStore(log), dispose: async () => undefined };
  },
  { survivesRestart: false },
);
