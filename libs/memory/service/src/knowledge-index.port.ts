import type { KnowledgeChunk, SourceFormat } from '@tenet/memory-domain';
import { words } from '@tenet/text';

/** How a source was uploaded: the chunker's formats, or a PDF (read into Markdown first). */
export type KnowledgeFormat = SourceFormat | 'pdf';

/** A knowledge source as ingested: what it is, where it came from, which agents may retrieve from it. */
export interface KnowledgeSource {
  sourceId: string;
  title: string;
  url?: string;
  format: KnowledgeFormat;
  /** Agents that may retrieve from this source; empty means every agent. */
  agentIds: string[];
  /** Hash of the content: re-ingesting unchanged content is a no-op. */
  contentHash: string;
  chunkCount: number;
  /** Embedding provider/model/dimensions the stored vectors came from: vectors compare only within one model. */
  embeddingModel: string;
  ingestedAt: string;
  /** The workspace whose quota the source counts against (ADR 0018); absent: `default`'s (and pre-quota sources). */
  workspaceId?: string;
}

export interface IndexedChunk extends KnowledgeChunk {
  vector: number[];
}

/** A chunk found by a search, with its source and the side's own score (higher is better). */
export interface ChunkHit {
  chunk: KnowledgeChunk;
  source: KnowledgeSource;
  score: number;
}

export interface NearestQuery {
  vector: readonly number[];
  /** Only chunks whose source was embedded by this model (`KnowledgeSource.embeddingModel`). */
  embeddingModel: string;
  /** Only chunks this agent may read (sources tagged to it or to no agent); omitted: every chunk. */
  agentId?: string;
  /** Only chunks of this workspace's sources (a source without one is `default`'s); omitted: every workspace's. */
  workspaceId?: string;
  k: number;
}

export interface LexicalQuery {
  text: string;
  agentId?: string;
  workspaceId?: string;
  k: number;
}

/**
 * Where knowledge chunks and their vectors live, and where they are searched: the adapter answers the top k of
 * each side of a hybrid search — `nearest` by cosine similarity (score = cosine, −1 … 1), `lexical` by the
 * store's BM25-style full-text relevance (score > 0, comparable only within one answer) — among the chunks the
 * agent may read, without reading the others. The service fuses the two lists. Replacing a source swaps its
 * chunks on both sides at once. One conformance suite (`knowledgeIndexConformance`) runs against every adapter.
 */
export interface KnowledgeIndex {
  /** Puts the source and exactly these chunks in place of whatever the source had, all or nothing. */
  replaceSource(source: KnowledgeSource, chunks: readonly IndexedChunk[]): Promise<void>;
  getSource(sourceId: string): Promise<KnowledgeSource | undefined>;
  listSources(): Promise<KnowledgeSource[]>;
  /** Removes the source and its chunks; false when there was none. */
  deleteSource(sourceId: string): Promise<boolean>;
  /** A source's chunks in order, with their vectors. */
  sourceChunks(sourceId: string): Promise<IndexedChunk[]>;
  /** The k chunks nearest to the vector, best first. */
  nearest(query: NearestQuery): Promise<ChunkHit[]>;
  /** The k chunks that match the text's words best, best first; none when no word matches. */
  lexical(query: LexicalQuery): Promise<ChunkHit[]>;
  close(): Promise<void>;
  /**
   * Whether the index answers searches as usual now (readiness, `/readyz`); an index that loads one side in the
   * background says which and how far it is. Omitted: always ready (a remote index).
   */
  readiness?(): KnowledgeIndexReadiness;
}

export type KnowledgeIndexReadiness = { ready: true } | { ready: false; reason: string };

/**
 * A search that came while a side of the index was still loading and did not finish waiting for it (the index's
 * bound): answered as unavailable (HTTP 503, a failed recall) rather than from the other side alone, whose scores and
 * ranking would differ from the hybrid's without saying so (ADR 0034, amendment "Lexical side opened in the background").
 */
export class KnowledgeIndexNotReadyError extends Error {
  readonly code = 'KNOWLEDGE.NOT_READY';
  constructor(reason: string) {
    super(`knowledge index not ready: ${reason}`);
    this.name = 'KnowledgeIndexNotReadyError';
  }
}

/** The words a lexical query searches for: lowercased letters and digits, accents dropped, each once. */
export function queryWords(text: string, max = 64): string[] {
  return [...new Set(words(text))].slice(0, max);
}
