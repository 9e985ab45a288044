import { DEFAULT_HNSW, HnswPartition, searchExpansion, toInt8 } from './hnsw-partitions.js';
import { seededRandom } from '@tenet/testing';

describe('HNSW search expansion (ADR 0034)', () => {
  it('grows with the graph from the floor: the default keeps 256 at 10k vectors and widens past it', () => {
    expect(searchExpansion(DEFAULT_HNSW, 0)).toBe(256);
    expect(searchExpansion(DEFAULT_HNSW, 9_000)).toBe(256);
    expect(searchExpansion(DEFAULT_HNSW, 25_600)).toBe(256);
    expect(searchExpansion(DEFAULT_HNSW, 30_000)).toBe(300);
    expect(searchExpansion(DEFAULT_HNSW, 90_000)).toBe(900);
    expect(searchExpansion({ ...DEFAULT_HNSW, expansionSearch: 64, expansionSearchPerThousand: 0 }, 1_000_000)).toBe(64);
  });

  it('answers k keys, nearest first, and with an expansion as wide as the graph the exact top k', () => {
    const random = seededRandom(7);
    const dims = 16;
    const vectors = Array.from({ length: 400 }, () => Float32Array.from({ length: dims }, () => random() - 0.5));
    const graph = new HnswPartition('epoch', 'scope', dims, {
      connectivity: 8,
      expansionAdd: 16,
      expansionSearch: 8,
      expansionSearchPerThousand: 1_000,
      quantization: 'f32',
      rerank: 0,
    });
    vectors.forEach((v, key) => graph.stage(key, v));
    expect(graph.drain(Infinity)).toBe(0);
    expect(graph.size).toBe(vectors.length);
    const cosine = (a: Float32Array, b: Float32Array): number => {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i++) {
        dot += a[i]! * b[i]!;
        na += a[i]! * a[i]!;
        nb += b[i]! * b[i]!;
      }
      return dot / Math.sqrt(na * nb);
    };
    for (let q = 0; q < 20; q++) {
      const query = Float32Array.from({ length: dims }, () => random() - 0.5);
      const found = graph.search(query, 5);
      expect(found).toHaveLength(5);
      expect(found.map((f) => f.distance)).toEqual([...found.map((f) => f.distance)].sort((a, b) => a - b));
      const exact = vectors
        .map((v, key) => ({ key, score: cosine(query, v) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 5)
        .map((x) => x.key);
      expect(found.map((f) => f.key)).toEqual(exact);
    }
  });

  it('an int8 graph holds every exact top 5 among its top `rerank` candidates (what the index re-scores with the stored vectors)', () => {
    const random = seededRandom(11);
    const dims = 64;
    const vectors = Array.from({ length: 1_000 }, () => Float32Array.from({ length: dims }, () => random() - 0.5));
    const graph = new HnswPartition('epoch', 'scope', dims, { ...DEFAULT_HNSW, quantization: 'i8' });
    vectors.forEach((v, key) => graph.stage(key, v));
    // One thread: the same graph every run (threaded insertion orders the links differently).
    expect(graph.drain(Infinity)).toBe(0);
    expect(graph.size).toBe(vectors.length);
    const cosine = (a: Float32Array, b: Float32Array): number => {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i++) {
        dot += a[i]! * b[i]!;
        na += a[i]! * a[i]!;
        nb += b[i]! * b[i]!;
      }
      return dot / Math.sqrt(na * nb);
    };
    for (let q = 0; q < 20; q++) {
      const query = Float32Array.from({ length: dims }, () => random() - 0.5);
      const candidates = graph.search(query, DEFAULT_HNSW.rerank).map((f) => f.key);
      const exact = vectors
        .map((v, key) => ({ key, score: cosine(query, v) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 5)
        .map((x) => x.key);
      expect(candidates).toEqual(expect.arrayContaining(exact));
    }
  });

  it('quantizes to int8 over the whole range: the largest component is ±127, zero stays zero', () => {
    const q = toInt8(Float32Array.from([0.25, -0.5, 0.125, 0]));
    expect(Array.from(q)).toEqual([64, -127, 32, 0]);
    expect(Array.from(toInt8(new Float32Array(3)))).toEqual([0, 0, 0]);
  });

  it('a bulk drain after slices have grown the graph inserts every vector (usearch threads once raced here)', () => {
    const random = seededRandom(11);
    for (let trial = 60; trial < 80; trial++) {
      const graph = new HnswPartition('epoch', 'scope', 32, DEFAULT_HNSW);
      let key = 1;
      const stage = (n: number): void => {
        for (let i = 0; i < n; i++)
          graph.stage(
            key++,
            Float32Array.from({ length: 32 }, () => random() - 0.5),
          );
      };
      stage(100 + trial * 7);
      while (graph.pending > 0) graph.drain(1);
      stage(300 + trial * 3);
      expect(graph.drain(Infinity, true)).toBe(0);
      expect(graph.size).toBe(key - 1);
    }
  });
});
