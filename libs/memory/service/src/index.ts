export type {
  ChunkHit,
  IndexedChunk,
  KnowledgeFormat,
  KnowledgeIndex,
  KnowledgeIndexReadiness,
  KnowledgeSource,
  LexicalQuery,
  NearestQuery,
} from './knowledge-index.port.js';
export { KnowledgeIndexNotReadyError } from './knowledge-index.port.js';
export { SqliteKnowledgeIndex, SQLITE_KNOWLEDGE_FILE } from './sqlite-knowledge-index.js';
export { MongoKnowledgeIndex, type MongoKnowledgeIndexOptions } from './mongo-knowledge-index.js';
export {
  KnowledgeService,
  DEFAULT_VECTOR_WEIGHT,
  type IngestSource,
  type KnowledgeHit,
  type KnowledgeQuery,
  type KnowledgeServiceOptions,
} from './knowledge.service.js';
export { CustomerMemoryStore, customerMemoryStream, type RecordFactInput } from './customer-memory.store.js';
export { MemoryModule } from './memory.module.js';
export { recall, RECALL_DEFAULTS } from './memory-recall.js';
