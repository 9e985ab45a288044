export { MemoryDomainError } from './errors.js';
export {
  decide,
  evolve,
  factsTrueAt,
  factsTrueNow,
  foldMemory,
  initialMemoryState,
  type CustomerMemoryState,
  type Fact,
  type FactForgotten,
  type FactRecorded,
  type FactSource,
  type FactSuperseded,
  type ForgetFact,
  type MemoryCommand,
  type MemoryEvent,
  type PredicateCardinality,
  type RecordFact,
} from './customer-memory.js';
export {
  chunkSource,
  htmlToMarkdown,
  DEFAULT_MAX_CHUNK_CHARS,
  SOURCE_FORMATS,
  type ChunkingOptions,
  type KnowledgeChunk,
  type SourceFormat,
} from './chunking.js';
export { DEFAULT_RETRIEVAL, RETRIEVAL_LIMITS, recallSettings, retrievalOf, type RetrievalSettings } from './retrieval.js';
export {
  clampConfidence,
  mergedFacts,
  normalizedFacts,
  scalarFieldValues,
  typedValue,
  type ExtractedFact,
  type VariableDataType,
} from './extracted-values.js';
