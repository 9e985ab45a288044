import { createHash, randomUUID } from 'node:crypto';
import { chunkSource, MemoryDomainError, type SourceFormat } from '@tenet/memory-domain';
import { LexicalIndex } from '@tenet/matching-domain';
import { cosineSimilarity, type EmbeddingProvider } from '@tenet/llm';
import type { KnowledgeIndex, KnowledgeSource } from './knowledge-index.port.js';

export interface IngestSource {
  /** Given: re-ingest (replace) that source. Omitted: a new source with a generated id. */
  sourceId?: string;
  title: string;
  url?: string;
  format: SourceFormat;
  content: string;
  agentIds?: string[];
}

export interface KnowledgeQuery {
  query: string;
  agentId?: string;
  /** At most this many chunks, best first. */
  maxResults: number;
  /** Only chunks whose fused score is at least this (0 … 1). */
  threshold: number;
}

export interface KnowledgeHit {
  sourceId: string;
  chunkId: string;
  title: string;
  url?: string;
  heading: string;
  chunkText: string;
  /** Fused relevance 0 … 1: `vectorWeight · cosine + (1 − vectorWeight) · BM25 (scaled to the best chunk)`. */
  score: number;
}

export interface KnowledgeServiceOptions {
  /** Share of the cosine side in the fused score; the rest is BM25. */
  vectorWeight?: number;
  maxChunkChars?: number;
  now?: () => Date;
  newId?: () => string;
}

export const DEFAULT_VECTOR_WEIGHT = 0.5;

const embeddingKey = (provider: EmbeddingProvider): string => `${provider.name}/${provider.model}/${provider.dimensions}`;

/**
 * Knowledge retrieval with sources (seed 001): ingest chunks and embeds a source and swaps it into the index
 * atomically; search fuses cosine similarity of embeddings with BM25 over the chunks the agent may read.
 */
export class KnowledgeService {
  private readonly vectorWeight: number;

  constructor(
    private readonly index: KnowledgeIndex,
    private readonly embeddings: EmbeddingProvider,
    private readonly options: KnowledgeServiceOptions = {},
  ) {
    this.vectorWeight = options.vectorWeight ?? DEFAULT_VECTOR_WEIGHT;
  }

  async ingest(input: IngestSource): Promise<KnowledgeSource> {
    const sourceId = input.sourceId ?? this.options.newId?.() ?? randomUUID();
    const contentHash = createHash('sha256').update(`${input.format}\u0000${input.content}`).digest('hex');
    const agentIds = [...new Set(input.agentIds ?? [])].sort();
    const existing = await this.index.getSource(sourceId);
    const unchanged =
      existing &&
      existing.contentHash === contentHash &&
      existing.embeddingModel === embeddingKey(this.embeddings) &&
      existing.title === input.title &&
      existing.url === input.url &&
      JSON.stringify(existing.agentIds) === JSON.stringify(agentIds);
    if (unchanged) return existing;
    const chunks = chunkSource({ sourceId, title: input.title, format: input.format, content: input.content }, this.options.maxChunkChars ? { maxChars: this.options.maxChunkChars } : {});
    // Embed before touching the index: a failed embedding leaves the previous version searchable.
    const { vectors } = await this.embeddings.embed(
      chunks.map((c) => `${c.heading}\n${c.text}`),
      { purpose: 'knowledge.ingest' },
    );
    const source: KnowledgeSource = {
      sourceId,
      title: input.title,
      ...(input.url !== undefined ? { url: input.url } : {}),
      format: input.format,
      agentIds,
      contentHash,
      chunkCount: chunks.length,
      embeddingModel: embeddingKey(this.embeddings),
      ingestedAt: (this.options.now?.() ?? new Date()).toISOString(),
    };
    await this.index.replaceSource(
      source,
      chunks.map((c, i) => ({ ...c, vector: vectors[i] ?? [] })),
    );
    return source;
  }

  listSources(): Promise<KnowledgeSource[]> {
    return this.index.listSources();
  }

  getSource(sourceId: string): Promise<KnowledgeSource | undefined> {
    return this.index.getSource(sourceId);
  }

  deleteSource(sourceId: string): Promise<boolean> {
    return this.index.deleteSource(sourceId);
  }

  async search(query: KnowledgeQuery): Promise<KnowledgeHit[]> {
    if (query.query.trim() === '') throw new MemoryDomainError('MEMORY.INVALID_SOURCE', 'q must be a non-blank string');
    const candidates = await this.index.candidateChunks(query.agentId);
    if (candidates.length === 0) return [];
    const key = embeddingKey(this.embeddings);
    const [queryVector = []] = (await this.embeddings.embed([query.query], { purpose: 'knowledge.search', ...(query.agentId ? { agentId: query.agentId } : {}) })).vectors;
    const lexical = new LexicalIndex(candidates.map((c) => ({ id: c.chunkId, text: `${c.heading}\n${c.text}` }))).score([{ text: query.query, weight: 1 }]);
    return candidates
      .map((c) => {
        // Vectors of another model are not comparable: such a chunk (ingested before a provider change) ranks on BM25 alone.
        const cosine = c.source.embeddingModel === key && c.vector.length === queryVector.length ? Math.max(0, cosineSimilarity(queryVector, c.vector)) : 0;
        const score = this.vectorWeight * cosine + (1 - this.vectorWeight) * (lexical.get(c.chunkId) ?? 0);
        return {
          sourceId: c.sourceId,
          chunkId: c.chunkId,
          title: c.source.title,
          ...(c.source.url !== undefined ? { url: c.source.url } : {}),
          heading: c.heading,
          chunkText: c.text,
          score: Math.round(score * 1e6) / 1e6,
        };
      })
      .filter((hit) => hit.score > 0 && hit.score >= query.threshold)
      .sort((a, b) => b.score - a.score || a.chunkId.localeCompare(b.chunkId))
      .slice(0, query.maxResults);
  }
}
