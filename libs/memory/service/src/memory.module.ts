import { Inject, Module, Optional, type OnApplicationShutdown } from '@nestjs/common';
import type { EventStore } from '@tenet/event-store';
import { createEmbeddingProvider } from '@tenet/llm';
import { type BudgetStore } from '@tenet/budget-store';
import { BudgetGate } from '@tenet/metering-gate';
import { readSettings, type Settings, type TenetConfig } from '@tenet/config';
import { defaultPriceTable, priceTableWith } from '@tenet/metering-domain';
import {
  BUDGET_STORE,
  EVENT_STORE,
  PLATFORM_CONFIG,
  PLATFORM_READINESS,
  TENET_CONFIG,
  type PlatformConfig,
  type ReadinessCheck,
} from '@tenet/platform-runtime';
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

/**
 * `TENET_KNOWLEDGE_INDEX`: `sqlite` (default; `knowledge.sqlite` in the data dir) or `mongodb` — Atlas Vector
 * Search in the event log's database (`MONGO_URL`, distributed mode). Not automatic with MONGO_URL: a plain
 * MongoDB replica set holds the event log fine but has no `$vectorSearch`.
 */
export async function openKnowledgeIndex(config: PlatformConfig, env: NodeJS.ProcessEnv = process.env): Promise<KnowledgeIndex> {
  return openKnowledgeIndexOf(config, readSettings(env, KNOWLEDGE_INDEX_VARIABLES));
}

const KNOWLEDGE_INDEX_VARIABLES = ['TENET_KNOWLEDGE_INDEX', 'TENET_KNOWLEDGE_GRAPH_THREADS', 'TENET_KNOWLEDGE_GRAPH_THREADS_FROM'] as const;

/**
 * The embedded index's graphs go to TENET_KNOWLEDGE_GRAPH_THREADS worker threads (default min(2, cores)) once it holds
 * TENET_KNOWLEDGE_GRAPH_THREADS_FROM vector rows (ADR 0034, amendment "Graphs in worker threads").
 */
async function openKnowledgeIndexOf(
  config: PlatformConfig,
  settings: Pick<Settings, (typeof KNOWLEDGE_INDEX_VARIABLES)[number]>,
): Promise<KnowledgeIndex> {
  const kind = settings.TENET_KNOWLEDGE_INDEX;
  if (kind === 'sqlite')
    return new SqliteKnowledgeIndex({
      dataDir: config.dataDir,
      ...(settings.TENET_KNOWLEDGE_GRAPH_THREADS !== undefined ? { graphThreads: settings.TENET_KNOWLEDGE_GRAPH_THREADS } : {}),
      graphThreadsFrom: settings.TENET_KNOWLEDGE_GRAPH_THREADS_FROM,
    });
  if (config.mode !== 'distributed' || config.mongoUrl === undefined)
    throw new Error('TENET_KNOWLEDGE_INDEX=mongodb needs TENET_MODE=distributed and MONGO_URL (a MongoDB Atlas or Atlas local deployment)');
  const dbName = new URL(config.mongoUrl).pathname.replace(/^\//, '') || 'tenet';
  return MongoKnowledgeIndex.connect({ uri: config.mongoUrl, dbName });
}

/**
 * The memory and knowledge service: REST (knowledge sources and search, customer facts) and the per-turn
 * `tenet.rpc.v1.memory.recall` (queue group `memory-store`, answered once a TenetTransport is connected). Needs
 * PlatformModule (event log, data dir). The knowledge index is the embedded SQLite adapter in `dataDir`, or
 * MongoDB Atlas Vector Search with `TENET_KNOWLEDGE_INDEX=mongodb` (ADR 0016). The index is one of the process's
 * readiness checks (`knowledge-index` in `/readyz`): the embedded one is not ready while its lexical side opens in
 * the background (ADR 0034, amendment "Lexical side opened in the background").
 */
@Module({
  controllers: [KnowledgeHttpController, CustomerMemoryHttpController, MemoryRecallRpcController, FactsExtractedConsumer],
  providers: [
    {
      provide: KNOWLEDGE_INDEX,
      useFactory: (config: PlatformConfig, settings: TenetConfig) =>
        openKnowledgeIndexOf(config, {
          TENET_KNOWLEDGE_INDEX: settings.get('TENET_KNOWLEDGE_INDEX'),
          TENET_KNOWLEDGE_GRAPH_THREADS: settings.get('TENET_KNOWLEDGE_GRAPH_THREADS'),
          TENET_KNOWLEDGE_GRAPH_THREADS_FROM: settings.get('TENET_KNOWLEDGE_GRAPH_THREADS_FROM'),
        }),
      inject: [PLATFORM_CONFIG, TENET_CONFIG],
    },
    {
      provide: KnowledgeService,
      // Recall's query embedding is charged to the turn's budgets in the shared store, like the matcher's calls.
      useFactory: (index: KnowledgeIndex, config: PlatformConfig, settings: TenetConfig, store: BudgetStore | undefined) =>
        new KnowledgeService(index, createEmbeddingProvider(process.env), {
          quota: config.knowledgeLimits,
          budgets: new BudgetGate({ store, prices: priceTableWith(settings.get('TENET_PRICES'), defaultPriceTable) }),
        }),
      inject: [KNOWLEDGE_INDEX, PLATFORM_CONFIG, TENET_CONFIG, { token: BUDGET_STORE, optional: true }],
    },
    { provide: CustomerMemoryStore, useFactory: (events: EventStore) => new CustomerMemoryStore(events), inject: [EVENT_STORE] },
  ],
  exports: [KnowledgeService, CustomerMemoryStore],
})
export class MemoryModule implements OnApplicationShutdown {
  constructor(
    @Inject(KNOWLEDGE_INDEX) private readonly index: KnowledgeIndex,
    @Optional() @Inject(PLATFORM_READINESS) readiness?: ReadinessCheck[],
  ) {
    readiness?.push({
      name: 'knowledge-index',
      check: async () => {
        const state = index.readiness?.() ?? { ready: true };
        if (!state.ready) throw new Error(state.reason);
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.index.close();
  }
}
