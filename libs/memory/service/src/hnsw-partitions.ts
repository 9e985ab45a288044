import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';

/** HNSW graph parameters (ADR 0032): measured on the offline 512-dimension vectors at 100k chunks. */
export interface HnswParameters {
  /** Edges per node (HNSW M). */
  connectivity: number;
  /** Candidates kept while inserting (efConstruction). */
  expansionAdd: number;
  /** Candidates kept while searching (ef); a search for more than this many keeps k. */
  expansionSearch: number;
}

export const DEFAULT_HNSW: HnswParameters = { connectivity: 32, expansionAdd: 128, expansionSearch: 256 };

/** Where a persisted partition stands: every vector row up to `adds` and every removal up to `removes` is applied. */
export interface Watermark {
  adds: number;
  removes: number;
}

const FILE_FORMAT = 1;
const FILE_PATTERN = /^([0-9a-f]{32})\.(\d+)-(\d+)-(\d+)\.usearch$/;

/** One in-memory HNSW graph of one partition (embedding model, workspace, agent tag): keys are vector row ids. */
export class HnswPartition {
  readonly index: Index;
  dirty = false;

  constructor(
    /** The database's graph epoch: part of the file name, with the scope and the graph's shape. */
    private readonly epoch: string,
    readonly scope: string,
    readonly dims: number,
    private readonly params: HnswParameters,
  ) {
    this.index = new Index({ dimensions: dims, metric: MetricKind.Cos, quantization: ScalarKind.F32, connectivity: params.connectivity, expansion_add: params.expansionAdd, expansion_search: params.expansionSearch, multi: false });
  }

  get fileKey(): string {
    return createHash('sha256').update(`${FILE_FORMAT}\u0000${this.epoch}\u0000${this.scope}\u0000${this.params.connectivity}`).digest('hex').slice(0, 32);
  }

  /** Adds vectors (row-major in `matrix`); keys already present are skipped, so replaying a log twice is harmless. */
  add(keys: readonly number[], matrix: Float32Array): void {
    const fresh: number[] = [];
    const rows: number[] = [];
    keys.forEach((key, i) => {
      if (!this.index.contains(BigInt(key))) {
        fresh.push(key);
        rows.push(i);
      }
    });
    if (fresh.length === 0) return;
    const vectors = fresh.length === keys.length ? matrix : new Float32Array(fresh.length * this.dims);
    if (vectors !== matrix) rows.forEach((row, i) => vectors.set(matrix.subarray(row * this.dims, (row + 1) * this.dims), i * this.dims));
    // usearch spreads a batch over the cores; one vector is inserted on this thread.
    this.index.add(BigUint64Array.from(fresh, BigInt), vectors, fresh.length > 1 ? 0 : 1);
    this.dirty = true;
  }

  remove(key: number): void {
    if (this.index.contains(BigInt(key))) {
      this.index.remove(BigInt(key));
      this.dirty = true;
    }
  }

  /** The k nearest keys with their cosine distance (0 identical … 2 opposite). */
  search(vector: Float32Array, k: number): { key: number; distance: number }[] {
    if (this.index.size() === 0) return [];
    const found = this.index.search(vector, k, 1);
    return Array.from(found.keys, (key, i) => ({ key: Number(key), distance: found.distances[i] ?? 2 }));
  }

  get size(): number {
    return this.index.size();
  }

  /** Writes the graph as `<key>.<format>-<adds>-<removes>.usearch` (a temporary file renamed: a reader sees a whole one). */
  save(dir: string, at: Watermark): void {
    mkdirSync(dir, { recursive: true });
    const name = `${this.fileKey}.${FILE_FORMAT}-${at.adds}-${at.removes}.usearch`;
    const tmp = join(dir, `${name}.tmp-${process.pid}`);
    this.index.save(tmp);
    renameSync(tmp, join(dir, name));
    for (const other of readdirSync(dir)) if (other !== name && other.startsWith(`${this.fileKey}.`)) rmSync(join(dir, other), { force: true });
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
    return match && Number(match[2]) === FILE_FORMAT ? [{ name, key: match[1]!, at: { adds: Number(match[3]), removes: Number(match[4]) } }] : [];
  });
}

/** Deletes persisted graphs of partitions that are gone (their key is not in `keep`). */
export function removeStaleFiles(dir: string, keep: ReadonlySet<string>): void {
  for (const { name, key } of persistedFiles(dir)) if (!keep.has(key)) rmSync(join(dir, name), { force: true });
}
