import { createHash, randomUUID } from 'node:crypto';
import { chunkSource, MemoryDomainError } from '@tenet/memory-domain';
import { BudgetGate } from '@tenet/metering-gate';
import type { BudgetScopeV1, CallUsageV1 } from '@tenet/contracts';
import type { EmbeddingProvider } from '@tenet/llm';
import type { ChunkHit, KnowledgeFormat, KnowledgeIndex, KnowledgeSource } from './knowledge-index.port.js';
import { pdfBytes, pdfToMarkdown } from './pdf-source.js';

export interface IngestSource {
  /** Given: re-ingest (replace) that source. Omitted: a new source with a generated id. */
  sourceId?: string;
  title: string;
  url?: string;
  format: KnowledgeFormat;
  /** The text; for `pdf`, the file in base64 (read into Markdown, headings from font sizes, else by page). */
  content: string;
  agentIds?: string[];
  /** The workspace the source counts against (its quota); omitted: `default`. */
  workspaceId?: string;
}

/** Per-workspace quotas of the index (PlatformConfig.knowledgeLimits; the per-request one is the edge's). */
export interface KnowledgeQuota {
  /** Distinct agent tags (vector partitions) over a workspace's sources; an untagged source is one. */
  maxPartitionsPerWorkspace: number;
  /** Bytes of vectors (a vector per chunk and agent tag) over a workspace's sources. */
  maxVectorBytesPerWorkspace: number;
}

export interface KnowledgeQuery {
  query: string;
  agentId?: string;
  /** Only chunks of this workspace's sources (the caller's, ADR 0018); omitted: every workspace's. */
  workspaceId?: string;
  /** At most this many chunks, best first. */
  maxResults: number;
  /** Only chunks whose fused score is at least this (0 … 1). */
  threshold: number;
  /** Only chunks of these sources (an agent's `retrieval.sources`); omitted or empty: every source in scope. */
  sourceIds?: readonly string[];
}

export interface KnowledgeHit {
  sourceId: string;
  chunkId: string;
  title: string;
  url?: string;
  heading: string;
  /** `section_path`: the headings the chunk sits under, outermost first, joined with " › " (the title when none). */
  sectionPath: string;
  /** `chunk_index`: the chunk's position in its source, from 0. */
  chunkIndex: number;
  chunkText: string;
  /**
   * Fused relevance 0 … 1: `vectorWeight · max(0, cosine) + (1 − vectorWeight) · BM25 / best BM25 of the query`,
   * over the union of the index's nearest and lexical top candidates (a side that did not find the chunk adds 0).
   */
  score: number;
}

export interface KnowledgeServiceOptions {
  /** Share of the cosine side in the fused score; the rest is BM25. */
  vectorWeight?: number;
  /** Candidates each side returns, as a multiple of `maxResults` (at least MIN_CANDIDATES). Default 4. */
  candidateFactor?: number;
  maxChunkChars?: number;
  now?: () => Date;
  newId?: () => string;
  /** Omitted: no quota (a library user's own index). */
  quota?: KnowledgeQuota;
  /** Charges a search's query embedding to the budgets it is given (recall in a budgeted turn). Omitted: no budget store. */
  budgets?: BudgetGate;
}

export const DEFAULT_VECTOR_WEIGHT = 0.5;
const DEFAULT_CANDIDATE_FACTOR = 4;
const MIN_CANDIDATES = 20;
/**
 * A search narrowed to some sources filters the fused candidates, so it asks each side for this many times more
 * (the indexes partition by agent, not by source): a narrowed source whose chunks rank below that many chunks of
 * the agent's other sources on both sides is missed (ADR 0030).
 */
const SOURCE_FILTER_FACTOR = 5;

const embeddingKey = (provider: EmbeddingProvider): string => `${provider.name}/${provider.model}/${provider.dimensions}`;
const DEFAULT_WORKSPACE = 'default';
const UNTAGGED = '*';
const tagsOf = (agentIds: readonly string[]): string[] => (agentIds.length > 0 ? [...agentIds] : [UNTAGGED]);
/** Vector bytes a source stores: a float32 vector per chunk and agent tag (`embeddingModel` ends in its dimensions). */
const vectorBytes = (chunkCount: number, agentIds: readonly string[], embeddingModel: string): number =>
  chunkCount * tagsOf(agentIds).length * (Number(/\/(\d+)$/.exec(embeddingModel)?.[1]) || 0) * 4;
const megabytes = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MB`;

/**
 * Knowledge retrieval with sources (docs/data-model.md#retrieval): ingest chunks and embeds a source and swaps it into the index
 * atomically; search asks the index for the nearest chunks by embedding and the best BM25 matches among the
 * chunks the agent may read, and fuses the two lists (weighted sum, scores scaled to 0 … 1).
 */
export class KnowledgeService {
  private readonly vectorWeight: number;
  private readonly candidateFactor: number;
  private readonly budgets: BudgetGate;

  constructor(
    private readonly index: KnowledgeIndex,
    private readonly embeddings: EmbeddingProvider,
    private readonly options: KnowledgeServiceOptions = {},
  ) {
    this.vectorWeight = options.vectorWeight ?? DEFAULT_VECTOR_WEIGHT;
    this.candidateFactor = options.candidateFactor ?? DEFAULT_CANDIDATE_FACTOR;
    this.budgets = options.budgets ?? new BudgetGate({ store: undefined, prices: {} });
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
    const text =
      input.format === 'pdf'
        ? { format: 'markdown' as const, content: await pdfToMarkdown(pdfBytes(input.content)) }
        : { format: input.format, content: input.content };
    const chunks = chunkSource(
      { sourceId, title: input.title, ...text },
      this.options.maxChunkChars ? { maxChars: this.options.maxChunkChars } : {},
    );
    // Before the embedding is paid for: the workspace's quota with this source in place of its previous version.
    await this.checkQuota(sourceId, input.workspaceId ?? DEFAULT_WORKSPACE, agentIds, chunks.length);
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
      ...(input.workspaceId !== undefined ? { workspaceId: input.workspaceId } : {}),
    };
    await this.index.replaceSource(
      source,
      chunks.map((c, i) => ({ ...c, vector: vectors[i] ?? [] })),
    );
    return source;
  }

  /**
   * Refuses (MEMORY.LIMIT_EXCEEDED) a source that would take the workspace's sources over its partitions or vector
   * bytes. Two concurrent ingests of one workspace may each pass alone: the overshoot is bounded by one request's.
   */
  private async checkQuota(sourceId: string, workspaceId: string, agentIds: readonly string[], chunkCount: number): Promise<void> {
    const quota = this.options.quota;
    if (!quota) return;
    const others = (await this.index.listSources()).filter(
      (s) => s.sourceId !== sourceId && (s.workspaceId ?? DEFAULT_WORKSPACE) === workspaceId,
    );
    const partitions = new Set([...others.flatMap((s) => tagsOf(s.agentIds)), ...tagsOf(agentIds)]);
    if (partitions.size > quota.maxPartitionsPerWorkspace) {
      throw new MemoryDomainError(
        'MEMORY.LIMIT_EXCEEDED',
        `agent_ids would give workspace ${workspaceId}'s knowledge ${partitions.size} agent partitions, over its limit of ${quota.maxPartitionsPerWorkspace} (TENET_KNOWLEDGE_MAX_PARTITIONS)`,
      );
    }
    const bytes =
      others.reduce((sum, s) => sum + vectorBytes(s.chunkCount, s.agentIds, s.embeddingModel), 0) +
      vectorBytes(chunkCount, agentIds, embeddingKey(this.embeddings));
    if (bytes > quota.maxVectorBytesPerWorkspace) {
      throw new MemoryDomainError(
        'MEMORY.LIMIT_EXCEEDED',
        `content would bring workspace ${workspaceId}'s knowledge vectors (one per chunk and agent) to ${megabytes(bytes)}, over its limit of ${megabytes(quota.maxVectorBytesPerWorkspace)} (TENET_KNOWLEDGE_MAX_VECTOR_BYTES)`,
      );
    }
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
    return (await this.searchBilled(query)).hits;
  }

  /**
   * `search`, its query embedding charged to `budget` (a spent one rejects with the gate's `BUDGET.EXCEEDED` before
   * the call is made) and returned as a billed call for the caller to meter.
   */
  async searchBilled(query: KnowledgeQuery, budget?: readonly BudgetScopeV1[]): Promise<{ hits: KnowledgeHit[]; calls: CallUsageV1[] }> {
    if (query.query.trim() === '') throw new MemoryDomainError('MEMORY.INVALID_SOURCE', 'q must be a non-blank string');
    if (query.maxResults < 1) return { hits: [], calls: [] };
    const embedded = await this.budgets.run(
      budget,
      { provider: this.embeddings.name, model: this.embeddings.model, input: Math.ceil(query.query.length / 3), output: 0 },
      () => this.embeddings.embed([query.query], { purpose: 'knowledge.search', ...(query.agentId ? { agentId: query.agentId } : {}) }),
      (response) => [
        { provider: response.provider, model: response.model, usage: { inputTokens: response.usage.inputTokens, outputTokens: 0 } },
      ],
    );
    const calls: CallUsageV1[] = [
      {
        purpose: 'knowledge.search',
        provider: embedded.provider,
        model: embedded.model,
        input_tokens: embedded.usage.inputTokens,
        output_tokens: 0,
        latency_ms: Math.round(embedded.latencyMs),
      },
    ];
    const [queryVector = []] = embedded.vectors;
    // Each side's top k, from the index; a chunk found by one side only scores 0 on the other.
    const only = query.sourceIds && query.sourceIds.length > 0 ? new Set(query.sourceIds) : undefined;
    const k = Math.max(query.maxResults * this.candidateFactor, MIN_CANDIDATES) * (only ? SOURCE_FILTER_FACTOR : 1);
    const scope = {
      ...(query.agentId !== undefined ? { agentId: query.agentId } : {}),
      ...(query.workspaceId !== undefined ? { workspaceId: query.workspaceId } : {}),
    };
    const [nearest, lexical] = await Promise.all([
      this.index.nearest({ vector: queryVector, embeddingModel: embeddingKey(this.embeddings), k, ...scope }),
      this.index.lexical({ text: query.query, k, ...scope }),
    ]);
    const bestLexical = lexical[0]?.score ?? 0;
    const fused = new Map<string, { hit: ChunkHit; cosine: number; bm25: number }>();
    for (const hit of nearest) fused.set(hit.chunk.chunkId, { hit, cosine: Math.max(0, hit.score), bm25: 0 });
    for (const hit of lexical) {
      const bm25 = bestLexical > 0 ? hit.score / bestLexical : 0;
      const seen = fused.get(hit.chunk.chunkId);
      if (seen) seen.bm25 = bm25;
      else fused.set(hit.chunk.chunkId, { hit, cosine: 0, bm25 });
    }
    const hits = [...fused.values()]
      .filter(({ hit }) => !only || only.has(hit.chunk.sourceId))
      .map(({ hit: { chunk, source }, cosine, bm25 }) => ({
        sourceId: chunk.sourceId,
        chunkId: chunk.chunkId,
        title: source.title,
        ...(source.url !== undefined ? { url: source.url } : {}),
        heading: chunk.heading,
        sectionPath: chunk.heading,
        chunkIndex: chunk.ordinal,
        chunkText: chunk.text,
        score: Math.round((this.vectorWeight * cosine + (1 - this.vectorWeight) * bm25) * 1e6) / 1e6,
      }))
      .filter((hit) => hit.score > 0 && hit.score >= query.threshold)
      .sort((a, b) => b.score - a.score || a.chunkId.localeCompare(b.chunkId))
      .slice(0, query.maxResults);
    return { hits, calls };
  }
}
