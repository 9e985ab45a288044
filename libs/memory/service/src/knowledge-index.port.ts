import type { KnowledgeChunk, SourceFormat } from '@tenet/memory-domain';

/** A knowledge source as ingested: what it is, where it came from, which agents may retrieve from it. */
export interface KnowledgeSource {
  sourceId: string;
  title: string;
  url?: string;
  format: SourceFormat;
  /** Agents that may retrieve from this source; empty means every agent. */
  agentIds: string[];
  /** Hash of the content: re-ingesting unchanged content is a no-op. */
  contentHash: string;
  chunkCount: number;
  /** Embedding provider/model/dimensions the stored vectors came from: vectors compare only within one model. */
  embeddingModel: string;
  ingestedAt: string;
}

export interface IndexedChunk extends KnowledgeChunk {
  vector: number[];
}

/**
 * Where knowledge chunks and their vectors live. Scoring is not the index's job (the service fuses cosine and
 * BM25 over the candidates); the index guarantees atomic replacement and agent scoping. One conformance suite
 * (`knowledgeIndexConformance`) runs against every adapter.
 */
export interface KnowledgeIndex {
  /** Puts the source and exactly these chunks in place of whatever the source had, all or nothing. */
  replaceSource(source: KnowledgeSource, chunks: readonly IndexedChunk[]): Promise<void>;
  getSource(sourceId: string): Promise<KnowledgeSource | undefined>;
  listSources(): Promise<KnowledgeSource[]>;
  /** Removes the source and its chunks; false when there was none. */
  deleteSource(sourceId: string): Promise<boolean>;
  /** Chunks an agent may retrieve (sources tagged to it or to no agent), or all chunks without an agent. */
  candidateChunks(agentId?: string): Promise<Array<IndexedChunk & { source: KnowledgeSource }>>;
  close(): Promise<void>;
}
