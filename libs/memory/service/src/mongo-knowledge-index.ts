import type { mongo } from 'mongoose';
import {
  queryWords,
  type ChunkHit,
  type IndexedChunk,
  type KnowledgeIndex,
  type KnowledgeSource,
  type LexicalQuery,
  type NearestQuery,
} from './knowledge-index.port.js';

/** The MongoDB driver, loaded by `connect` (ADR 0035): a process on the SQLite index never loads it. */
let driver: typeof mongo | undefined;
const serverErrorOf = (error: unknown): mongo.MongoServerError | undefined =>
  driver !== undefined && error instanceof driver.MongoServerError ? error : undefined;

export interface MongoKnowledgeIndexOptions {
  /** A replica set or Atlas URI: a source's replacement is a multi-document transaction. */
  uri: string;
  dbName: string;
  /** Prefix of the collection names, e.g. `tenet_` → `tenet_knowledge_chunks`. Default none. */
  collectionPrefix?: string;
  connectOptions?: mongo.MongoClientOptions;
}

interface SourceDocument extends Omit<KnowledgeSource, 'sourceId' | 'url'> {
  _id: string;
  url: string | null;
}

/** One chunk; its vector is stored under `v<dims>`, the path of that dimension's vector search index. */
interface ChunkDocument {
  _id: string;
  sourceId: string;
  ordinal: number;
  heading: string;
  text: string;
  /** Heading and text: what the text index covers. */
  body: string;
  embeddingModel: string;
  /** The source's agent tags, or ['*'] for every agent: the filter of both searches. */
  scopes: string[];
  dims: number;
  [vectorPath: `v${number}`]: number[] | undefined;
}

const EVERY_AGENT = '*';
const TEXT_INDEX = 'knowledge_text';
const RELIST_MS = 10_000;
const vectorIndexName = (dims: number): string => `knowledge_vectors_${dims}`;
const vectorPath = (dims: number): `v${number}` => `v${dims}`;
const isZero = (vector: readonly number[]): boolean => vector.every((x) => x === 0);

const toSource = (doc: SourceDocument): KnowledgeSource => {
  const { _id, url, ...rest } = doc;
  return {
    sourceId: _id,
    title: rest.title,
    ...(url !== null ? { url } : {}),
    format: rest.format,
    agentIds: rest.agentIds,
    contentHash: rest.contentHash,
    chunkCount: rest.chunkCount,
    embeddingModel: rest.embeddingModel,
    ingestedAt: rest.ingestedAt,
    ...(rest.workspaceId !== undefined ? { workspaceId: rest.workspaceId } : {}),
  };
};

/**
 * The production knowledge index (ADR 0016): MongoDB with Atlas Vector Search. Vectors are searched by
 * `$vectorSearch` (one `vectorSearch` index per vector dimension, `scopes` and `embeddingModel` as its filter
 * fields, so an agent's query never considers other agents' chunks), text by a `$text` index (MongoDB's
 * relevance score; Atlas Search would need a second search index for little gain at this size). A source's
 * replacement is one transaction; Atlas maintains search indexes asynchronously, so a search can lag a write
 * by about a second (the conformance suite allows for that).
 */
export class MongoKnowledgeIndex implements KnowledgeIndex {
  private readonly vectorIndexes = new Set<number>();
  private listedAt = 0;

  private constructor(
    private readonly client: mongo.MongoClient,
    private readonly sources: mongo.Collection<SourceDocument>,
    private readonly chunks: mongo.Collection<ChunkDocument>,
  ) {}

  static async connect(options: MongoKnowledgeIndexOptions): Promise<MongoKnowledgeIndex> {
    driver ??= (await import('mongoose')).mongo;
    const client = await new driver.MongoClient(options.uri, options.connectOptions).connect();
    try {
      const db = client.db(options.dbName);
      const prefix = options.collectionPrefix ?? '';
      const index = new MongoKnowledgeIndex(
        client,
        db.collection<SourceDocument>(`${prefix}knowledge_sources`),
        db.collection<ChunkDocument>(`${prefix}knowledge_chunks`),
      );
      await index.chunks.createIndex({ sourceId: 1, ordinal: 1 });
      await index.chunks.createIndex({ body: 'text' }, { name: TEXT_INDEX, default_language: 'english' });
      await index.sources.createIndex({ ingestedAt: 1, _id: 1 });
      await index.listVectorIndexes();
      index.listedAt = Date.now();
      return index;
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** Whether a vector index of this size exists — also one another replica created since (re-listed at most every 10 s). */
  private async hasVectorIndex(dims: number): Promise<boolean> {
    if (this.vectorIndexes.has(dims)) return true;
    if (Date.now() - this.listedAt < RELIST_MS) return false;
    this.listedAt = Date.now();
    await this.listVectorIndexes();
    return this.vectorIndexes.has(dims);
  }

  private async listVectorIndexes(): Promise<void> {
    // Before the first ingest the collection may not exist, and neither do its search indexes.
    const existing = await this.chunks
      .listSearchIndexes()
      .toArray()
      .catch(() => []);
    for (const found of existing) {
      const match = /^knowledge_vectors_(\d+)$/.exec(String(found['name']));
      if (match) this.vectorIndexes.add(Number(match[1]));
    }
  }

  /** Creates the vector search index of a dimension on first use (Atlas builds it in the background). */
  private async ensureVectorIndex(dims: number): Promise<void> {
    if (this.vectorIndexes.has(dims)) return;
    // The collection must exist before a search index can be defined on it.
    await this.chunks.db.createCollection(this.chunks.collectionName).catch((error: unknown) => {
      if (serverErrorOf(error)?.codeName !== 'NamespaceExists') throw error;
    });
    try {
      await this.chunks.createSearchIndex({
        name: vectorIndexName(dims),
        type: 'vectorSearch',
        definition: {
          fields: [
            { type: 'vector', path: vectorPath(dims), numDimensions: dims, similarity: 'cosine' },
            { type: 'filter', path: 'embeddingModel' },
            { type: 'filter', path: 'scopes' },
          ],
        },
      });
    } catch (error) {
      // Another process created it first.
      const serverError = serverErrorOf(error);
      if (!(serverError && /already exists|IndexAlreadyExists|Duplicate/i.test(`${serverError.codeName ?? ''} ${serverError.message}`)))
        throw error;
    }
    this.vectorIndexes.add(dims);
  }

  async replaceSource(source: KnowledgeSource, chunks: readonly IndexedChunk[]): Promise<void> {
    for (const dims of new Set(chunks.filter((c) => c.vector.length > 0).map((c) => c.vector.length))) await this.ensureVectorIndex(dims);
    const scopes = source.agentIds.length > 0 ? source.agentIds : [EVERY_AGENT];
    const session = this.client.startSession();
    try {
      await session.withTransaction(async () => {
        const { sourceId, url, ...rest } = source;
        await this.sources.replaceOne(
          { _id: sourceId },
          { ...rest, url: url ?? null, chunkCount: chunks.length },
          { upsert: true, session },
        );
        await this.chunks.deleteMany({ sourceId }, { session });
        const documents = chunks.map((chunk): ChunkDocument => {
          if (chunk.sourceId !== sourceId)
            throw new RangeError(`chunk ${chunk.chunkId} belongs to source ${chunk.sourceId}, not ${sourceId}`);
          const dims = chunk.vector.length;
          return {
            _id: chunk.chunkId,
            sourceId,
            ordinal: chunk.ordinal,
            heading: chunk.heading,
            text: chunk.text,
            body: `${chunk.heading}\n${chunk.text}`,
            embeddingModel: source.embeddingModel,
            scopes,
            dims,
            // A zero vector has no cosine; it is stored for the record but left out of the vector index's path.
            ...(dims > 0 && !isZero(chunk.vector) ? { [vectorPath(dims)]: chunk.vector } : { vector: chunk.vector }),
          };
        });
        if (documents.length > 0) await this.chunks.insertMany(documents, { session });
      });
    } finally {
      await session.endSession();
    }
  }

  async getSource(sourceId: string): Promise<KnowledgeSource | undefined> {
    const doc = await this.sources.findOne({ _id: sourceId });
    return doc ? toSource(doc) : undefined;
  }

  async listSources(): Promise<KnowledgeSource[]> {
    return (await this.sources.find().sort({ ingestedAt: 1, _id: 1 }).toArray()).map(toSource);
  }

  async deleteSource(sourceId: string): Promise<boolean> {
    const session = this.client.startSession();
    try {
      let deleted = false;
      await session.withTransaction(async () => {
        await this.chunks.deleteMany({ sourceId }, { session });
        deleted = (await this.sources.deleteOne({ _id: sourceId }, { session })).deletedCount > 0;
      });
      return deleted;
    } finally {
      await session.endSession();
    }
  }

  async sourceChunks(sourceId: string): Promise<IndexedChunk[]> {
    const docs = await this.chunks.find({ sourceId }).sort({ ordinal: 1 }).toArray();
    return docs.map((doc) => ({
      chunkId: doc._id,
      sourceId: doc.sourceId,
      ordinal: doc.ordinal,
      heading: doc.heading,
      text: doc.text,
      vector: doc[vectorPath(doc.dims)] ?? (doc as unknown as { vector?: number[] }).vector ?? [],
    }));
  }

  private scopeFilter(agentId: string | undefined): Record<string, unknown> {
    return agentId !== undefined ? { scopes: { $in: [agentId, EVERY_AGENT] } } : {};
  }

  async nearest(query: NearestQuery): Promise<ChunkHit[]> {
    const dims = query.vector.length;
    if (dims === 0 || isZero(query.vector) || query.k < 1 || !(await this.hasVectorIndex(dims))) return [];
    const docs = await this.chunks
      .aggregate<ChunkDocument & { score: number }>([
        {
          $vectorSearch: {
            index: vectorIndexName(dims),
            path: vectorPath(dims),
            queryVector: [...query.vector],
            numCandidates: Math.min(10_000, Math.max(query.k * 20, 100)),
            limit: query.k,
            filter: { embeddingModel: { $eq: query.embeddingModel }, ...this.scopeFilter(query.agentId) },
          },
        },
        { $addFields: { score: { $meta: 'vectorSearchScore' } } },
        { $project: { body: 0, [vectorPath(dims)]: 0 } },
      ])
      .toArray();
    // Atlas scores cosine as (1 + cos) / 2.
    return this.hits(
      docs.map((doc) => ({ doc, score: 2 * doc.score - 1 })),
      query.workspaceId,
    );
  }

  async lexical(query: LexicalQuery): Promise<ChunkHit[]> {
    const words = queryWords(query.text);
    if (words.length === 0 || query.k < 1) return [];
    const docs = await this.chunks
      .find<ChunkDocument & { score: number }>(
        { $text: { $search: words.join(' ') }, ...this.scopeFilter(query.agentId) },
        { projection: { body: 0, score: { $meta: 'textScore' } } },
      )
      .sort({ score: { $meta: 'textScore' }, _id: 1 })
      .limit(query.k)
      .toArray();
    return this.hits(
      docs.map((doc) => ({ doc, score: doc.score })),
      query.workspaceId,
    );
  }

  /**
   * `workspaceId`: only that workspace's sources — checked on the found chunks' sources (the Atlas indexes filter by
   * model and agent only), so a query never sees another workspace's chunk but may find fewer than k.
   */
  private async hits(found: { doc: ChunkDocument; score: number }[], workspaceId: string | undefined): Promise<ChunkHit[]> {
    const ids = [...new Set(found.map((f) => f.doc.sourceId))];
    const sources = new Map((await this.sources.find({ _id: { $in: ids } }).toArray()).map((doc) => [doc._id, toSource(doc)]));
    return found
      .sort((a, b) => b.score - a.score || a.doc._id.localeCompare(b.doc._id))
      .flatMap(({ doc, score }) => {
        const source = sources.get(doc.sourceId);
        return source && (workspaceId === undefined || (source.workspaceId ?? 'default') === workspaceId)
          ? [
              {
                chunk: { chunkId: doc._id, sourceId: doc.sourceId, ordinal: doc.ordinal, heading: doc.heading, text: doc.text },
                source,
                score,
              },
            ]
          : [];
      });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
