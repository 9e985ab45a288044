import { randomUUID } from 'node:crypto';
import { describeWithContainers } from '@tenet/testing';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { MongoKnowledgeIndex } from './mongo-knowledge-index.js';
import { knowledgeIndexConformance } from './testing/knowledge-index.conformance.js';

// Atlas Vector Search runs only in MongoDB's Atlas local image (mongod + mongot), here in a container. Without a
// container runtime the suite is skipped with the reason printed, as the Mongo event store's is: there is no
// fake MongoDB standing in for the real one.
const title = 'MongoDB Atlas adapter';
const IMAGE = 'mongodb/mongodb-atlas-local:8.0';
let container: StartedTestContainer | undefined;
const opened = new Map<MongoKnowledgeIndex, string>();

const body = (): void => {
  beforeAll(async () => {
    container = await new GenericContainer(IMAGE)
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forHealthCheck())
      .withStartupTimeout(240_000)
      .start();
  }, 300_000);
  afterAll(async () => {
    await container?.stop();
  });
  const uri = (): string => `mongodb://${container!.getHost()}:${container!.getMappedPort(27017)}/?directConnection=true`;
  const open = async (dbName: string): Promise<MongoKnowledgeIndex> => {
    const index = await MongoKnowledgeIndex.connect({ uri: uri(), dbName });
    opened.set(index, dbName);
    return index;
  };

  knowledgeIndexConformance('MongoKnowledgeIndex', {
    create: () => open(`knowledge_${randomUUID().replace(/-/g, '')}`),
    async reopen(index) {
      const dbName = opened.get(index as MongoKnowledgeIndex)!;
      await index.close();
      return open(dbName);
    },
    // Atlas Search indexes follow writes asynchronously (and a new vector index first has to build).
    searchLagMs: 60_000,
  });
};

await describeWithContainers(title, body);
