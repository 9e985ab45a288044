import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';

/** HNSW graph parameters (ADR 0034): measured on the offline 512-dimension vectors at 100k chunks. */
export interface HnswParameters {
  /** Edges per node (HNSW M). */
  connectivity: number;
  /** Candidates kept while inserting (efConstruction). */
  expansionAdd: number;
  /** Candidates kept while searching (ef) at least; a search for more than this many keeps k. */
  expansionSearch: number;
  /**
   * The search expansion grows with the graph: max(expansionSearch, this × vectors in the graph / 1,000). A fixed
   * expansion that is enough at 10k vectors lost recall at 100k (ADR 0034, "Search expansion by graph size").
   */
  expansionSearchPerThousand: number;
  /**
   * How the graph stores its vectors: `i8` (one byte a dimension, each vector scaled so its largest component is
   * ±127 — cosine ignores the scale), `f16` or `f32`. The stored f32 vectors stay in SQLite, the record: a search
   * re-scores the graph's top `rerank` candidates with them (ADR 0034, "Quantized graphs, exact re-rank").
   */
  quantization: 'f32' | 'f16' | 'i8';
  /** Candidates per graph re-scored exactly with the stored vectors: max(k, this). */
  rerank: number;
}

/**
 * Measured at 10k and 100k chunks (docs/benchmarks.md, "Quantized graphs at 100k" and "Graph connectivity and
 * re-rank width at 100k"): int8 graphs insert ~2.4× faster and search ~2× faster than f32 at the same recall once the
 * top 40 are re-scored with the stored vectors. Connectivity 48 found more of the exact top 5 at expansion 896 than
 * connectivity 32 at 1,092, in about the same search time (each node visited has more edges to score), so a 90k-vector
 * graph searches with 10 per 1,000 vectors (900). Re-scoring 100 or 160 candidates instead of 40 found no more of the
 * exact top 5 at any expansion: the int8 graph's misses are vectors it never visits.
 */
export const DEFAULT_HNSW: HnswParameters = {
  connectivity: 48,
  expansionAdd: 256,
  expansionSearch: 256,
  expansionSearchPerThousand: 10,
  quantization: 'i8',
  rerank: 40,
};

/** The search expansion for a graph of `vectors` vectors. */
export const searchExpansion = (params: HnswParameters, vectors: number): number =>
  Math.max(params.expansionSearch, Math.ceil((params.expansionSearchPerThousand * vectors) / 1000));

/** Where a persisted partition stands: every vector row up to `adds` and every removal up to `removes` is applied. */
export interface Watermark {
  adds: number;
  removes: number;
}

/**
 * Which part of a partition a graph holds: shard `index` of `of` (vector row id mod `of`). An inline graph (on the
 * event loop) holds all of it, shard 0 of 1; graph workers hold one shard each (`hnsw-graph-workers.ts`).
 */
export interface GraphShard {
  index: number;
  of: number;
}
export const WHOLE: GraphShard = { index: 0, of: 1 };

/**
 * 2: the file key holds the quantization (format 1 files are all f32 and are rebuilt, not loaded). 3: graphs are
 * sharded over worker threads (`hnsw-graph-workers.ts`), the key holds `<shard>/<shards>`; an inline graph is shard 0 of
 * 1. A format-2 file is not loaded (its graph is rebuilt from the log) and is deleted as stale.
 */
export const GRAPH_FILE_FORMAT = 3;
const NOTHING_APPLIED: Watermark = { adds: 0, removes: 0 };
/** Vectors inserted per native call while draining in slices: small, so a slice ends close to its time budget. */
const DRAIN_BATCH = 8;
/** Vectors per native call when draining everything at once: large, so the per-call cost is spread thin. */
const BULK_BATCH = 1024;

const norm = (v: Float32Array): number => {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum) || 1;
};

/**
 * int8 copy of a vector for a cosine graph: scaled so its largest component is ±127, rounded. usearch's own cast
 * scales a vector to ±127 per unit of its length and truncates, which leaves a 512-dimension unit vector's components
 * (~0.04) about 5 levels; this one uses the whole range. Cosine is blind to the per-vector scale.
 */
export function toInt8(v: Float32Array): Int8Array {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? 127 / max : 0;
  const out = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.round((v[i] ?? 0) * scale);
  return out;
}

/** Up to n values from an iterator (advancing it). */
function take<T>(values: Iterator<T>, n: number): T[] {
  const taken: T[] = [];
  while (taken.length < n) {
    const next = values.next();
    if (next.done) break;
    taken.push(next.value);
  }
  return taken;
}
const FILE_PATTERN = /^([0-9a-f]{32})\.(\d+)-(\d+)-(\d+)\.usearch$/;

/**
 * One partition's vectors (embedding model, workspace, agent tag) in memory: an HNSW graph, and the vectors staged
 * for it but not inserted yet — inserting costs milliseconds a vector, so writes stage and `drain` inserts in
 * slices between other work. A search covers both: the graph approximately, the staged vectors exactly. Keys are
 * vector row ids.
 */
export class HnswPartition {
  private readonly index: Index;
  private readonly staged = new Map<number, { vector: Float32Array; norm: number }>();
  /** Changed since it was loaded or saved. */
  dirty = false;
  // Fields, not constructor parameter properties: a graph worker run from source loads this file with Node's own type
  // stripping, which takes erasable TypeScript only (`hnsw-graph-workers.ts`).
  /** The database's graph epoch: part of the file name, with the scope and the graph's shape. */
  private readonly epoch: string;
  readonly scope: string;
  readonly dims: number;
  private readonly params: HnswParameters;
  private readonly shard: GraphShard;

  constructor(epoch: string, scope: string, dims: number, params: HnswParameters, shard: GraphShard = WHOLE) {
    this.epoch = epoch;
    this.scope = scope;
    this.dims = dims;
    this.params = params;
    this.shard = shard;
    this.index = new Index({
      dimensions: dims,
      metric: MetricKind.Cos,
      quantization: params.quantization === 'i8' ? ScalarKind.I8 : params.quantization === 'f16' ? ScalarKind.F16 : ScalarKind.F32,
      connectivity: params.connectivity,
      expansion_add: params.expansionAdd,
      expansion_search: params.expansionSearch,
      multi: false,
    });
  }

  get fileKey(): string {
    return createHash('sha256')
      .update(
        `${GRAPH_FILE_FORMAT}\u0000${this.epoch}\u0000${this.scope}\u0000${this.params.connectivity}\u0000${this.params.quantization}\u0000${this.shard.index}/${this.shard.of}`,
      )
      .digest('hex')
      .slice(0, 32);
  }

  /** Stages a vector for the graph (searchable at once); a key already in the graph is left alone, so replaying a log twice is harmless. */
  stage(key: number, vector: Float32Array): void {
    if (this.staged.has(key) || this.index.contains(BigInt(key))) return;
    this.staged.set(key, { vector, norm: norm(vector) });
    this.dirty = true;
  }

  /** `stage` for a vector as SQLite stores it (f32 bytes; copied: the driver's buffer is not kept). */
  stageBlob(key: number, blob: Uint8Array): void {
    this.stage(key, new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + this.dims * 4)));
  }

  remove(key: number): void {
    if (this.staged.delete(key)) return;
    if (this.index.contains(BigInt(key))) {
      this.index.remove(BigInt(key));
      this.dirty = true;
    }
  }

  get pending(): number {
    return this.staged.size;
  }

  /**
   * Inserts staged vectors into the graph until `budgetMs` is spent (at least one batch); answers how many are left.
   * `bulk`: large batches, for a caller that blocks anyway; a slice inserts small batches so it ends near its budget.
   * Always on the calling thread: usearch's own threads (its `add` with threads ≠ 1) race on a graph that reserved fewer
   * thread contexts — it reserves them only when it grows, for that call's count — which showed as "Duplicate keys" and
   * "Reserve capacity ahead of insertions!" after slices had grown the graph on one thread.
   */
  drain(budgetMs: number, bulk = false): number {
    const started = performance.now();
    // One iterator for the whole drain: restarting from the front each batch would walk the deleted entries again.
    const pending = this.staged.entries();
    while (this.staged.size > 0) {
      const batch = take(pending, bulk ? BULK_BATCH : DRAIN_BATCH);
      if (batch.length === 0) break;
      const matrix =
        this.params.quantization === 'i8' ? new Int8Array(batch.length * this.dims) : new Float32Array(batch.length * this.dims);
      batch.forEach(([, staged], i) =>
        matrix.set(this.params.quantization === 'i8' ? toInt8(staged.vector) : staged.vector, i * this.dims),
      );
      this.index.add(
        BigUint64Array.from(batch, ([key]) => BigInt(key)),
        matrix,
        1,
      );
      for (const [key] of batch) this.staged.delete(key);
      if (performance.now() - started >= budgetMs) break;
    }
    return this.staged.size;
  }

  /**
   * The k nearest keys with their cosine distance (0 identical … 2 opposite): the graph's (approximate, and computed
   * on the quantized vectors unless f32), and the staged vectors' exactly.
   */
  search(vector: Float32Array, k: number): { key: number; distance: number }[] {
    const found: { key: number; distance: number }[] = [];
    if (this.index.size() > 0) {
      // usearch keeps max(k, its expansion) candidates: asking for the expansion's worth sets it per search.
      const query = this.params.quantization === 'i8' ? toInt8(vector) : vector;
      const matches = this.index.search(query, Math.max(k, searchExpansion(this.params, this.index.size())), 1);
      for (let i = 0; i < Math.min(k, matches.keys.length); i++)
        found.push({ key: Number(matches.keys[i]), distance: matches.distances[i] ?? 2 });
    }
    if (this.staged.size === 0) return found;
    const queryNorm = norm(vector);
    for (const [key, staged] of this.staged) {
      let dot = 0;
      const other = staged.vector;
      for (let i = 0; i < vector.length; i++) dot += (vector[i] ?? 0) * (other[i] ?? 0);
      found.push({ key, distance: 1 - dot / (queryNorm * staged.norm) });
    }
    return found.sort((a, b) => a.distance - b.distance).slice(0, k);
  }

  /** Vectors in the graph (staged ones not counted). */
  get size(): number {
    return this.index.size();
  }

  /**
   * Writes the graph (staged vectors must be drained first) as `<key>.<format>-<adds>-<removes>.usearch` (a temporary
   * file renamed: a reader sees a whole one). A failed write (a full disk) throws and leaves no partial file; the
   * graph stays dirty, and its older file, if any, stays.
   */
  save(dir: string, at: Watermark): void {
    mkdirSync(dir, { recursive: true });
    const name = `${this.fileKey}.${GRAPH_FILE_FORMAT}-${at.adds}-${at.removes}.usearch`;
    const tmp = join(dir, `${name}.tmp-${process.pid}`);
    try {
      this.index.save(tmp);
      renameSync(tmp, join(dir, name));
    } catch (error) {
      rmSync(tmp, { force: true });
      throw error;
    }
    for (const other of readdirSync(dir))
      if (other !== name && other.startsWith(`${this.fileKey}.`)) rmSync(join(dir, other), { force: true });
    this.dirty = false;
  }

  /**
   * Loads the newest persisted graph of this partition at or below `head` (a file ahead of the log belongs to another
   * history of the database, e.g. a restored backup): its watermark; `none` when there is no such file (the graph is
   * untouched); `unusable` when one could not be read or does not fit (the graph may be half-filled).
   */
  private load(dir: string, head: Watermark): Watermark | 'none' | 'unusable' {
    const saved = persistedFiles(dir)
      .filter((f) => f.key === this.fileKey && f.format === GRAPH_FILE_FORMAT && f.at.adds <= head.adds && f.at.removes <= head.removes)
      .sort((a, b) => b.at.adds - a.at.adds || b.at.removes - a.at.removes)[0];
    if (!saved) return 'none';
    try {
      this.index.load(join(dir, saved.name));
    } catch {
      return 'unusable';
    }
    if (this.index.dimensions() !== this.dims) return 'unusable';
    return saved.at;
  }

  /**
   * A partition's graph as persisted in `dir` (when given): its newest readable file at or below the log's `head`, or a
   * new empty graph. `from` is the watermark the log must be replayed from: the file's, or nothing for a new graph.
   */
  static open(
    partition: { epoch: string; scope: string; dims: number; params: HnswParameters; shard?: GraphShard },
    dir: string | undefined,
    head: Watermark,
  ): { graph: HnswPartition; from: Watermark } {
    const create = (): HnswPartition =>
      new HnswPartition(partition.epoch, partition.scope, partition.dims, partition.params, partition.shard);
    const graph = create();
    const saved = dir ? graph.load(dir, head) : 'none';
    if (saved === 'none') return { graph, from: NOTHING_APPLIED };
    if (typeof saved === 'object' && graph.size > 0) return { graph, from: saved };
    // A file that failed to load or does not fit (which may leave the graph half-filled), or an empty one: a new graph.
    return { graph: create(), from: NOTHING_APPLIED };
  }
}

/** The graph files in `dir` of any format (`format` tells which: only the current one is loaded). */
function persistedFiles(dir: string): { name: string; key: string; format: number; at: Watermark }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const match = FILE_PATTERN.exec(name);
    return match?.[1] !== undefined
      ? [{ name, key: match[1], format: Number(match[2]), at: { adds: Number(match[3]), removes: Number(match[4]) } }]
      : [];
  });
}

/** Why a graph could not be saved, for a log line: the error, and the space left where it was written (a full disk says so). */
export function saveFailure(error: unknown, dir: string): string {
  const { code, message } = (error ?? {}) as Partial<NodeJS.ErrnoException>;
  const reason = code ?? message ?? String(error);
  try {
    const { bavail, bsize } = statfsSync(dir);
    return `${reason}; ${Math.floor((bavail * bsize) / 1024 ** 2)} MB free in ${dir}`;
  } catch {
    return reason;
  }
}

/** Deletes persisted graphs of partitions that are gone (their key is not in `keep`) and of an older file format. */
export function removeStaleFiles(dir: string, keep: ReadonlySet<string>): void {
  for (const { name, key, format } of persistedFiles(dir))
    if (!keep.has(key) || format !== GRAPH_FILE_FORMAT) rmSync(join(dir, name), { force: true });
}
