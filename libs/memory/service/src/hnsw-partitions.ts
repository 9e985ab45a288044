import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
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
}

/** Measured at 10k and 100k chunks (docs/benchmarks.md): 91k vectors in a graph search with expansion 1,092. */
export const DEFAULT_HNSW: HnswParameters = { connectivity: 32, expansionAdd: 256, expansionSearch: 256, expansionSearchPerThousand: 12 };

/** The search expansion for a graph of `vectors` vectors. */
export const searchExpansion = (params: HnswParameters, vectors: number): number =>
  Math.max(params.expansionSearch, Math.ceil((params.expansionSearchPerThousand * vectors) / 1000));

/** Where a persisted partition stands: every vector row up to `adds` and every removal up to `removes` is applied. */
export interface Watermark {
  adds: number;
  removes: number;
}

const FILE_FORMAT = 1;
/** Vectors inserted per native call while draining in slices: small, so a slice ends close to its time budget. */
const DRAIN_BATCH = 8;
/** Vectors per native call when draining everything at once: large, so usearch spreads each call over its threads. */
const BULK_BATCH = 1024;

const norm = (v: Float32Array): number => {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum) || 1;
};

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

  constructor(
    /** The database's graph epoch: part of the file name, with the scope and the graph's shape. */
    private readonly epoch: string,
    readonly scope: string,
    readonly dims: number,
    private readonly params: HnswParameters,
  ) {
    this.index = new Index({
      dimensions: dims,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      connectivity: params.connectivity,
      expansion_add: params.expansionAdd,
      expansion_search: params.expansionSearch,
      multi: false,
    });
  }

  get fileKey(): string {
    return createHash('sha256')
      .update(`${FILE_FORMAT}\u0000${this.epoch}\u0000${this.scope}\u0000${this.params.connectivity}`)
      .digest('hex')
      .slice(0, 32);
  }

  /** Stages a vector for the graph (searchable at once); a key already in the graph is left alone, so replaying a log twice is harmless. */
  stage(key: number, vector: Float32Array): void {
    if (this.staged.has(key) || this.index.contains(BigInt(key))) return;
    this.staged.set(key, { vector, norm: norm(vector) });
    this.dirty = true;
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
   * `bulk` (no time budget): large batches over every core usearch sees (threads 0) — for a caller that blocks
   * anyway; a slice inserts small batches on one thread so it ends near its budget.
   */
  drain(budgetMs: number, bulk = false): number {
    const started = performance.now();
    // One iterator for the whole drain: restarting from the front each batch would walk the deleted entries again.
    const pending = this.staged.entries();
    while (this.staged.size > 0) {
      const batch = take(pending, bulk ? BULK_BATCH : DRAIN_BATCH);
      if (batch.length === 0) break;
      const matrix = new Float32Array(batch.length * this.dims);
      batch.forEach(([, staged], i) => matrix.set(staged.vector, i * this.dims));
      this.index.add(
        BigUint64Array.from(batch, ([key]) => BigInt(key)),
        matrix,
        bulk ? 0 : 1,
      );
      for (const [key] of batch) this.staged.delete(key);
      if (performance.now() - started >= budgetMs) break;
    }
    return this.staged.size;
  }

  /** The k nearest keys with their cosine distance (0 identical … 2 opposite): the graph's, and the staged vectors' exactly. */
  search(vector: Float32Array, k: number): { key: number; distance: number }[] {
    const found: { key: number; distance: number }[] = [];
    if (this.index.size() > 0) {
      // usearch keeps max(k, its expansion) candidates: asking for the expansion's worth sets it per search.
      const matches = this.index.search(vector, Math.max(k, searchExpansion(this.params, this.index.size())), 1);
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

  /** Writes the graph (staged vectors must be drained first) as `<key>.<format>-<adds>-<removes>.usearch` (a temporary file renamed: a reader sees a whole one). */
  save(dir: string, at: Watermark): void {
    mkdirSync(dir, { recursive: true });
    const name = `${this.fileKey}.${FILE_FORMAT}-${at.adds}-${at.removes}.usearch`;
    const tmp = join(dir, `${name}.tmp-${process.pid}`);
    this.index.save(tmp);
    renameSync(tmp, join(dir, name));
    for (const other of readdirSync(dir))
      if (other !== name && other.startsWith(`${this.fileKey}.`)) rmSync(join(dir, other), { force: true });
    this.dirty = false;
  }

  /** Loads the newest persisted graph of this partition, if any and readable: its watermark, or undefined. */
  load(dir: string): Watermark | undefined {
    const saved = persistedFiles(dir)
      .filter((f) => f.key === this.fileKey)
      .sort((a, b) => b.at.adds - a.at.adds || b.at.removes - a.at.removes)[0];
    if (!saved) return undefined;
    try {
      this.index.load(join(dir, saved.name));
    } catch {
      return undefined;
    }
    if (this.index.dimensions() !== this.dims) return undefined;
    return saved.at;
  }
}

function persistedFiles(dir: string): { name: string; key: string; at: Watermark }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const match = FILE_PATTERN.exec(name);
    return match?.[1] !== undefined && Number(match[2]) === FILE_FORMAT
      ? [{ name, key: match[1], at: { adds: Number(match[3]), removes: Number(match[4]) } }]
      : [];
  });
}

/** Deletes persisted graphs of partitions that are gone (their key is not in `keep`). */
export function removeStaleFiles(dir: string, keep: ReadonlySet<string>): void {
  for (const { name, key } of persistedFiles(dir)) if (!keep.has(key)) rmSync(join(dir, name), { force: true });
}
