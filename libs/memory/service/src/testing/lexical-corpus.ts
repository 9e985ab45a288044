/**
 * Seeded knowledge sources for the specs of the lexical side (BM25 snapshot, background open): the same texts every
 * run, varied enough that no two chunks tie on a score, and the answers of every query in every scope to compare an
 * index with another (chunks in order, scores to the last few bits: the summation order may differ).
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { seededRandom } from '@tenet/testing';
import type { IndexedChunk, KnowledgeSource } from '../knowledge-index.port.js';
import { BM25_SNAPSHOT_SUFFIX, SQLITE_KNOWLEDGE_FILE, SqliteKnowledgeIndex } from '../sqlite-knowledge-index.js';

/** Temporary data dirs under `prefix`, all removed by `removeAll` (the spec's afterAll). */
export function tempDirs(prefix: string): { make(): string; removeAll(): void } {
  const dirs: string[] = [];
  return {
    make: () => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    removeAll: () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })),
  };
}

/** The BM25 snapshot file of the index in `dir`. */
export const snapshotOf = (dir: string): string => join(dir, `${SQLITE_KNOWLEDGE_FILE}${BM25_SNAPSHOT_SUFFIX}`);

export interface LexicalCorpusOptions {
  /** Distinct words (`w0ord`, `w1ord`, …), drawn Zipf-like. */
  vocabulary: number;
  /** Words per chunk: `min` plus up to `spread` more. */
  words: { min: number; spread: number };
  /** Chunks per source, and the count the source row states (0: not stated). */
  perSource: number;
  statedChunkCount: number;
  embeddingModel: string;
}

export interface LexicalCorpus {
  /** The vocabulary, most frequent first. */
  words: readonly string[];
  source(sourceId: string, agentIds: string[], workspaceId?: string): KnowledgeSource;
  chunks(sourceId: string, seed: number, count?: number): IndexedChunk[];
}

export function lexicalCorpus(options: LexicalCorpusOptions): LexicalCorpus {
  const words = Array.from({ length: options.vocabulary }, (_, i) => `w${i.toString(36)}ord`);
  const textOf = (next: () => number): string =>
    Array.from(
      { length: options.words.min + Math.floor(next() * options.words.spread) },
      () => words[Math.floor(next() ** 2 * words.length)],
    ).join(' ');
  return {
    words,
    source: (sourceId, agentIds, workspaceId) => ({
      sourceId,
      title: sourceId,
      format: 'text',
      agentIds,
      contentHash: sourceId,
      chunkCount: options.statedChunkCount,
      embeddingModel: options.embeddingModel,
      ingestedAt: '2026-11-28T00:00:00.000Z',
      ...(workspaceId !== undefined ? { workspaceId } : {}),
    }),
    chunks: (sourceId, seed, count = options.perSource) => {
      const next = seededRandom(seed);
      return Array.from({ length: count }, (_, i) => ({
        chunkId: `${sourceId}:${i}`,
        sourceId,
        ordinal: i,
        heading: `part ${i}`,
        text: textOf(next),
        vector: [next(), next(), next(), next()],
      }));
    },
  };
}

/** Workspace and agent scopes every comparison searches in. */
export const SCOPES = [{}, { agentId: 'agent-1' }, { workspaceId: 'ws-b' }, { workspaceId: 'default', agentId: 'agent-2' }];

/** Every query in every scope: each hit's chunk and score, in order. */
export async function lexicalAnswers(index: SqliteKnowledgeIndex, queries: readonly string[], k: number): Promise<[string, number][][]> {
  const all: [string, number][][] = [];
  for (const scope of SCOPES)
    for (const text of queries)
      all.push((await index.lexical({ text, k, ...scope })).map((h) => [h.chunk.chunkId, h.score] as [string, number]));
  return all;
}

/** The same chunks in the same order and the same scores, over at least `minHits` hits in all (not an empty match). */
export function expectSameAnswers(actual: [string, number][][], expected: [string, number][][], minHits: number): void {
  expect(actual.map((hits) => hits.map(([id]) => id))).toEqual(expected.map((hits) => hits.map(([id]) => id)));
  actual.forEach((hits, i) => hits.forEach(([, score], j) => expect(score).toBeCloseTo(expected[i]?.[j]?.[1] ?? NaN, 9)));
  expect(actual.flat().length).toBeGreaterThan(minHits);
}

/**
 * What an index opened on `dir` from the text rows alone answers (`answers`), with no write under way: the BM25
 * snapshot is moved aside for the open and put back after.
 */
export async function answersWithoutSnapshot<T>(dir: string, answers: (index: SqliteKnowledgeIndex) => Promise<T>): Promise<T> {
  const file = snapshotOf(dir);
  const kept = `${file}.kept`;
  const had = existsSync(file);
  if (had) copyFileSync(file, kept);
  rmSync(file, { force: true });
  const rebuilt = new SqliteKnowledgeIndex({ dataDir: dir });
  try {
    await rebuilt.whenLexicalReady();
    expect(rebuilt.lexicalSnapshot.loaded).toBe(false);
    return await answers(rebuilt);
  } finally {
    await rebuilt.close();
    if (had) copyFileSync(kept, file);
    else rmSync(file, { force: true });
    rmSync(kept, { force: true });
  }
}
