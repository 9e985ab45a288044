import type { IndexedChunk, KnowledgeSource } from '../knowledge-index.port.js';

/** The seeded vector corpus of the graph-worker specs: 100 chunks a source, every third source tagged to an agent. */
export const GRAPH_DIMS = 32;
export const GRAPH_MODEL = `test/graphs/${GRAPH_DIMS}`;
export const CHUNKS_PER_SOURCE = 100;

/** A seeded vector (a hash of seed and component), spread like real embeddings: no two are close by construction. */
export const seededVector = (seed: number): number[] =>
  Array.from({ length: GRAPH_DIMS }, (_, i) => {
    const x = Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453;
    return x - Math.floor(x) - 0.5;
  });

/** Source s: untagged, or tagged to `agent-<s mod 3>` when s mod 3 is 1 or 2; in workspace `ws-<s mod 2>`. */
export const seededSource = (s: number): KnowledgeSource => ({
  sourceId: `src-${s}`,
  title: `src-${s}`,
  format: 'text',
  agentIds: s % 3 === 0 ? [] : [`agent-${s % 3}`],
  contentHash: `h-${s}`,
  chunkCount: CHUNKS_PER_SOURCE,
  embeddingModel: GRAPH_MODEL,
  ingestedAt: '2026-11-28T00:00:00.000Z',
  workspaceId: `ws-${s % 2}`,
});

export const seededChunks = (s: number, version = 0): IndexedChunk[] =>
  Array.from({ length: CHUNKS_PER_SOURCE }, (_, i) => ({
    chunkId: `src-${s}:${i}`,
    sourceId: `src-${s}`,
    ordinal: i,
    heading: `src-${s}`,
    text: `words of source ${s}`,
    vector: seededVector(s * CHUNKS_PER_SOURCE + i + version * 1_000_003),
  }));
