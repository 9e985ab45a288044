import { randomUUID } from 'node:crypto';
import { MongoDBContainer, type StartedMongoDBContainer } from '@testcontainers/mongodb';
import { createConnection } from 'mongoose';
import { describeWithContainers } from '@tenet/testing';
import { eventStoreConformance, type EventStoreHarness } from '../testing/index.js';
import { MongoEventStore } from './mongo-event-store.js';

// MongoDB runs only in a container here (mongo:7 from @testcontainers/mongodb starts as a one-node replica
// set, which transactions need). Without a container runtime the suite is skipped with the reason printed:
// there is no fake MongoDB standing in for the real one.
const title = 'MongoDB adapter';
let container: StartedMongoDBContainer | undefined;

const harness = async (): Promise<EventStoreHarness> => {
  const uri = container!.getConnectionString();
  const dbName = `event_store_${randomUUID().replace(/-/g, '')}`;
  // The member advertises its in-container host name; connect straight to the mapped port instead.
  const connectOptions = { directConnection: true };
  return {
    open: () => MongoEventStore.connect({ uri, dbName, connectOptions }),
    dispose: async () => {
      const admin = await createConnection(uri, { ...connectOptions, dbName }).asPromise();
      try {
        await admin.dropDatabase();
      } finally {
        await admin.close();
      }
    },
  };
};

const body = (): void => {
  beforeAll(async () => {
    container = await new MongoDBContainer('mongo:7').start();
  }, 180_000);
  afterAll(async () => {
    await container?.stop();
  });

  eventStoreConformance('MongoEventStore', harness, { survivesRestart: true, concurrencyTimeoutMs: 120_000 });
};

await describeWithContainers(title, body);
