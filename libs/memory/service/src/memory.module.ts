import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { createEmbeddingProvider } from '@tenet/llm';
import { EVENT_STORE, PLATFORM_CONFIG, type PlatformConfig } from '@tenet/platform-runtime';
import { CustomerMemoryHttpController } from './customer-memory.http.controller.js';
import { CustomerMemoryStore } from './customer-memory.store.js';
import { FactsExtractedConsumer } from './facts-extracted.consumer.js';
import { KnowledgeHttpController } from './knowledge.http.controller.js';
import { KnowledgeService } from './knowledge.service.js';
import { MemoryRecallRpcController } from './memory-recall.rpc.controller.js';
import type { KnowledgeIndex } from './knowledge-index.port.js';
import { MongoKnowledgeIndex } from './mongo-knowledge-index.js';
import { SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';

const KNOWLEDGE_INDEX = Symbol.for('tenet.memory.knowledge-index');

async function openKnowledgeIndex(config: PlatformConfig): Promise<KnowledgeIndex> {
  if (config.mode === 'distributed' && config.mongoUrl !== undefined) {
    const dbName = new URL(config.mongoUrl).pathname.replace(/^\//, '') || 'tenet';
    return MongoKnowledgeIndex.connect({ uri: config.mongoUrl, dbName });
  }
  return new SqliteKnowledgeIndex({ dataDir: config.dataDir });
}

/**
 * The memory and knowledge service: REST (knowledge sources and search, customer facts) and the per-turn
 * `tenet.rpc.v1.memory.recall` (queue group `memory-store`, answered once a TenetTransport is connected). Needs
 * PlatformModule (event log, data dir). The knowledge index is MongoDB (Atlas Vector Search) where the event log
 * is (distributed mode with MONGO_URL), else the embedded SQLite adapter in `dataDir` (ADR 0016).
 */
@Module({
  controllers: [KnowledgeHttpController, CustomerMemoryHttpController, MemoryRecallRpcController, FactsExtractedConsumer],
  providers: [
    { provide: KNOWLEDGE_INDEX, useFactory: openKnowledgeIndex, inject: [PLATFORM_CONFIG] },
    { provide: KnowledgeService, useFactory: (index: KnowledgeIndex) => new KnowledgeService(index, createEmbeddingProvider(process.env)), inject: [KNOWLEDGE_INDEX] },
    { provide: CustomerMemoryStore, useFactory: (events: EventStore) => new CustomerMemoryStore(events), inject: [EVENT_STORE] },
  ],
  exports: [KnowledgeService, CustomerMemoryStore],
})
export class MemoryModule implements OnApplicationShutdown {
  constructor(@Inject(KNOWLEDGE_INDEX) private readonly index: KnowledgeIndex) {}

  async onApplicationShutdown(): Promise<void> {
    await this.index.close();
  }
}
