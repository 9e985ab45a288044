import { Body, Controller, Delete, Get, HttpCode, HttpException, HttpStatus, Param, Post, Query, Req } from '@nestjs/common';
import { callerWorkspaceOf } from '@tenet/platform-runtime';
import type { Request } from 'express';
import { invalid, memoryCall, notFound } from './http-errors.js';
import { KnowledgeIndexNotReadyError, type KnowledgeFormat, type KnowledgeSource } from './knowledge-index.port.js';
import { KnowledgeService, type KnowledgeHit } from './knowledge.service.js';
import { INGESTIBLE_FORMATS, KnowledgeSourceDto } from './memory.dto.js';

/** What a 503 from a search asks the client to wait: a 100k-chunk knowledge base opens in seconds (docs/benchmarks.md). */
const NOT_READY_RETRY_S = 5;

export interface KnowledgeSourceView {
  id: string;
  title: string;
  url: string | null;
  format: KnowledgeFormat;
  agent_ids: string[];
  chunk_count: number;
  content_hash: string;
  embedding_model: string;
  ingested_at: string;
}

export interface KnowledgeHitView {
  source_id: string;
  chunk_id: string;
  title: string;
  url: string | null;
  heading: string;
  /** The headings the chunk sits under, outermost first, joined with " › " (today the same as `heading`, kept for Parlant-era clients). */
  section_path: string;
  /** The chunk's position in its source, from 0. */
  chunk_index: number;
  chunk_text: string;
  score: number;
}

/** What `GET /knowledge/search` answers (docs/data-model.md#retrieval). */
export interface KnowledgeSearchView {
  query: string;
  chunks: KnowledgeHitView[];
  /** Time the search took in the memory store (embedding the query, both index sides, fusion), in milliseconds. */
  latency_ms: number;
  /** When the search ran. */
  timestamp: string;
}

const MAX_RESULTS = 50;
const DEFAULT_RESULTS = 5;

const sourceView = (s: KnowledgeSource): KnowledgeSourceView => ({
  id: s.sourceId,
  title: s.title,
  url: s.url ?? null,
  format: s.format,
  agent_ids: s.agentIds,
  chunk_count: s.chunkCount,
  content_hash: s.contentHash,
  embedding_model: s.embeddingModel,
  ingested_at: s.ingestedAt,
});

export const hitView = (h: KnowledgeHit): KnowledgeHitView => ({
  source_id: h.sourceId,
  chunk_id: h.chunkId,
  title: h.title,
  url: h.url ?? null,
  heading: h.heading,
  section_path: h.sectionPath,
  chunk_index: h.chunkIndex,
  chunk_text: h.chunkText,
  score: h.score,
});

/**
 * Knowledge sources (docs/data-model.md#retrieval): ingest JSON text/markdown/html or a base64 PDF, list, delete,
 * hybrid search with sources. The search answers `{query, chunks, latency_ms, timestamp}` (it once answered the
 * bare array of chunks; no client of Tenet's own read it — ADR 0030).
 */
@Controller('knowledge')
export class KnowledgeHttpController {
  constructor(private readonly knowledge: KnowledgeService) {}

  /** Creates a source, or replaces one with `id` (its chunks swap atomically); 201 either way. */
  @Post('sources')
  @HttpCode(HttpStatus.CREATED)
  async ingest(@Body() body: KnowledgeSourceDto, @Req() request: Request): Promise<KnowledgeSourceView> {
    const workspaceId = callerWorkspaceOf(request);
    if (!(INGESTIBLE_FORMATS as readonly string[]).includes(body.format))
      throw new HttpException(
        { detail: `format "${body.format}" is not supported; supported formats: ${INGESTIBLE_FORMATS.join(', ')}` },
        HttpStatus.UNSUPPORTED_MEDIA_TYPE,
      );
    const source = await memoryCall(() =>
      this.knowledge.ingest({
        ...(body.id !== undefined ? { sourceId: body.id } : {}),
        title: body.title,
        ...(body.url !== undefined ? { url: body.url } : {}),
        format: body.format as KnowledgeFormat,
        content: body.content,
        agentIds: body.agent_ids ?? [],
        ...(workspaceId !== undefined ? { workspaceId } : {}),
      }),
    );
    return sourceView(source);
  }

  @Get('sources')
  async list(): Promise<KnowledgeSourceView[]> {
    return (await this.knowledge.listSources()).map(sourceView);
  }

  @Get('sources/:sourceId')
  async read(@Param('sourceId') id: string): Promise<KnowledgeSourceView> {
    const source = await this.knowledge.getSource(id);
    if (!source) throw notFound('knowledge source', id);
    return sourceView(source);
  }

  @Delete('sources/:sourceId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('sourceId') id: string): Promise<void> {
    if (!(await this.knowledge.deleteSource(id))) throw notFound('knowledge source', id);
  }

  @Get('search')
  async search(
    @Req() request: Request,
    @Query('q') q?: string,
    @Query('agent_id') agentId?: string,
    @Query('max_results') maxResults?: string,
    @Query('threshold') threshold?: string,
  ): Promise<KnowledgeSearchView> {
    const problems: HttpException[] = [];
    if (typeof q !== 'string' || q.trim() === '' || q.length > 2_000)
      problems.push(invalid(['query', 'q'], 'q must be a non-blank string of at most 2000 characters'));
    const limit = maxResults === undefined ? DEFAULT_RESULTS : Number(maxResults);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RESULTS)
      problems.push(invalid(['query', 'max_results'], `max_results must be an integer 1-${MAX_RESULTS}`));
    const floor = threshold === undefined ? 0 : Number(threshold);
    if (threshold !== undefined && (threshold.trim() === '' || !Number.isFinite(floor) || floor < 0 || floor > 1))
      problems.push(invalid(['query', 'threshold'], 'threshold must be a number from 0 to 1'));
    if (agentId !== undefined && typeof agentId !== 'string') problems.push(invalid(['query', 'agent_id'], 'agent_id must be given once'));
    if (problems[0])
      throw problems.length === 1
        ? problems[0]
        : new HttpException(
            { detail: problems.flatMap((p) => (p.getResponse() as { detail: unknown[] }).detail) },
            HttpStatus.UNPROCESSABLE_ENTITY,
          );
    const started = performance.now();
    const timestamp = new Date().toISOString();
    // Only the caller's workspace's sources (ADR 0034); no guard on this host: every workspace's.
    const workspaceId = callerWorkspaceOf(request);
    const hits = await this.knowledge
      .search({
        query: q as string,
        ...(agentId ? { agentId } : {}),
        ...(workspaceId !== undefined ? { workspaceId } : {}),
        maxResults: limit,
        threshold: floor,
      })
      .catch((error: unknown) => {
        // Still opening (a restart of a large knowledge base): unavailable for now, not an answer from half the index.
        if (!(error instanceof KnowledgeIndexNotReadyError)) throw error;
        request.res?.setHeader('retry-after', String(NOT_READY_RETRY_S));
        throw new HttpException({ detail: error.message }, HttpStatus.SERVICE_UNAVAILABLE);
      });
    return { query: q as string, chunks: hits.map(hitView), latency_ms: Math.round((performance.now() - started) * 100) / 100, timestamp };
  }
}
