import { eventually } from '@tenet/testing';
import type { ChunkHit, IndexedChunk, KnowledgeIndex, KnowledgeSource } from '../knowledge-index.port.js';

export interface KnowledgeIndexHarness {
  /** A fresh, empty index. */
  create(): Promise<KnowledgeIndex>;
  /** When the adapter is durable: a second index over the same storage (the first one is closed by it). */
  reopen?(index: KnowledgeIndex): Promise<KnowledgeIndex>;
  /**
   * How long a search may lag a write (search indexes maintained asynchronously, as Atlas Search's are); 0 or
   * omitted: searches see a write as soon as it returns.
   */
  searchLagMs?: number;
}

/**
 * The one conformance suite of the `KnowledgeIndex` port: every adapter runs it — storage, atomic replacement,
 * agent scoping, and both search sides (nearest by cosine, lexical by full-text relevance).
 */
export function knowledgeIndexConformance(name: string, harness: KnowledgeIndexHarness): void {
  const source = (sourceId: string, extra: Partial<KnowledgeSource> = {}): KnowledgeSource => ({
    sourceId,
    title: `Title ${sourceId}`,
    format: 'markdown',
    agentIds: [],
    contentHash: `hash-${sourceId}`,
    chunkCount: 0,
    embeddingModel: 'offline/test/3',
    ingestedAt: '2026-11-23T10:00:00.000Z',
    ...extra,
  });
  const chunk = (sourceId: string, ordinal: number, text = `text ${ordinal}`, vector: number[] = [ordinal, 0.5, -1]): IndexedChunk => ({
    chunkId: `${sourceId}:${ordinal}`,
    sourceId,
    heading: `H${ordinal}`,
    text,
    ordinal,
    vector,
  });
  const ids = (hits: ChunkHit[]): string[] => hits.map((h) => h.chunk.chunkId);
  /** A search assertion, retried while the adapter's search may lag its writes. */
  const searched = async (assertion: () => Promise<void>): Promise<void> => {
    if (harness.searchLagMs) await eventually(assertion, { timeoutMs: harness.searchLagMs, intervalMs: 500 });
    else await assertion();
  };
  const timeout = 30_000 + 3 * (harness.searchLagMs ?? 0);

  describe(`KnowledgeIndex conformance: ${name}`, () => {
    let index: KnowledgeIndex;
    beforeEach(async () => {
      index = await harness.create();
    }, timeout);
    afterEach(async () => {
      await index.close();
    });

    it('stores a source with its chunks and vectors, in order', async () => {
      await index.replaceSource(source('s1', { url: 'https://example.com/help', agentIds: ['a1'] }), [chunk('s1', 0), chunk('s1', 1)]);
      expect(await index.getSource('s1')).toEqual(source('s1', { url: 'https://example.com/help', agentIds: ['a1'], chunkCount: 2 }));
      expect((await index.sourceChunks('s1')).map((c) => [c.chunkId, c.heading, c.text, c.vector])).toEqual([
        ['s1:0', 'H0', 'text 0', [0, 0.5, -1]],
        ['s1:1', 'H1', 'text 1', [1, 0.5, -1]],
      ]);
      expect(await index.sourceChunks('none')).toEqual([]);
    });

    it(
      'replaces all chunks of a re-ingested source, on both search sides, and nothing of other sources',
      async () => {
        await index.replaceSource(source('s1'), [chunk('s1', 0, 'apples'), chunk('s1', 1, 'apples'), chunk('s1', 2, 'apples')]);
        await index.replaceSource(source('s2'), [chunk('s2', 0, 'pears')]);
        await index.replaceSource(source('s1', { title: 'New' }), [chunk('s1', 0, 'cherries')]);
        expect((await index.sourceChunks('s1')).map((c) => c.text)).toEqual(['cherries']);
        expect((await index.sourceChunks('s2')).map((c) => c.text)).toEqual(['pears']);
        expect((await index.getSource('s1'))?.chunkCount).toBe(1);
        await searched(async () => {
          expect(await index.lexical({ text: 'apples', k: 10 })).toEqual([]);
          const cherries = await index.lexical({ text: 'cherries', k: 10 });
          expect(cherries.map((h) => [h.chunk.chunkId, h.chunk.text, h.source.title])).toEqual([['s1:0', 'cherries', 'New']]);
          expect(ids(await index.nearest({ vector: [0, 0.5, -1], embeddingModel: 'offline/test/3', k: 10 })).sort()).toEqual([
            's1:0',
            's2:0',
          ]);
        });
      },
      timeout,
    );

    it(
      'leaves the previous version in place when a replacement fails half-way',
      async () => {
        await index.replaceSource(source('s1'), [chunk('s1', 0, 'old')]);
        const foreign = chunk('s2', 9);
        await expect(index.replaceSource(source('s1', { title: 'New' }), [chunk('s1', 0, 'new'), foreign])).rejects.toThrow();
        expect((await index.sourceChunks('s1')).map((c) => c.text)).toEqual(['old']);
        expect((await index.getSource('s1'))?.title).toBe('Title s1');
        expect(await index.sourceChunks('s2')).toEqual([]);
        await searched(async () => {
          expect((await index.lexical({ text: 'old new', k: 10 })).map((h) => [h.chunk.text, h.source.title])).toEqual([
            ['old', 'Title s1'],
          ]);
        });
      },
      timeout,
    );

    it(
      'answers the k nearest chunks by cosine, best first, scored by cosine similarity',
      async () => {
        await index.replaceSource(source('s1'), [
          chunk('s1', 0, 'x', [1, 0, 0]),
          chunk('s1', 1, 'y', [0.8, 0.6, 0]),
          chunk('s1', 2, 'z', [0, 0, 1]),
          chunk('s1', 3, 'w', [-1, 0, 0]),
        ]);
        await searched(async () => {
          const hits = await index.nearest({ vector: [2, 0, 0], embeddingModel: 'offline/test/3', k: 2 });
          expect(ids(hits)).toEqual(['s1:0', 's1:1']);
          expect(hits[0]!.score).toBeCloseTo(1, 4);
          expect(hits[1]!.score).toBeCloseTo(0.8, 4);
          expect(hits[0]!.source.sourceId).toBe('s1');
          expect(hits[0]!.chunk).toEqual({ chunkId: 's1:0', sourceId: 's1', ordinal: 0, heading: 'H0', text: 'x' });
          expect(ids(await index.nearest({ vector: [2, 0, 0], embeddingModel: 'offline/test/3', k: 10 }))).toEqual([
            's1:0',
            's1:1',
            's1:2',
            's1:3',
          ]);
        });
      },
      timeout,
    );

    it(
      'compares vectors only within one embedding model',
      async () => {
        await index.replaceSource(source('old', { embeddingModel: 'other/model/3' }), [chunk('old', 0, 'x', [1, 0, 0])]);
        await index.replaceSource(source('new'), [chunk('new', 0, 'x', [0, 1, 0])]);
        await index.replaceSource(source('wide', { embeddingModel: 'offline/test/4' }), [chunk('wide', 0, 'x', [1, 0, 0, 0])]);
        await searched(async () => {
          expect(ids(await index.nearest({ vector: [1, 0, 0], embeddingModel: 'offline/test/3', k: 5 }))).toEqual(['new:0']);
          expect(ids(await index.nearest({ vector: [1, 0, 0], embeddingModel: 'other/model/3', k: 5 }))).toEqual(['old:0']);
          expect(ids(await index.nearest({ vector: [1, 0, 0, 0], embeddingModel: 'offline/test/4', k: 5 }))).toEqual(['wide:0']);
          expect(await index.nearest({ vector: [1, 0, 0], embeddingModel: 'unknown', k: 5 })).toEqual([]);
        });
      },
      timeout,
    );

    it(
      'answers the k best full-text matches, best first, and none when no word matches',
      async () => {
        await index.replaceSource(source('s1'), [
          chunk('s1', 0, 'Refunds are paid within 30 days of a return.'),
          chunk('s1', 1, 'Delivery takes three days; express delivery is next day.'),
          chunk('s1', 2, 'Our shop opens at nine.'),
        ]);
        await searched(async () => {
          const hits = await index.lexical({ text: 'How long does express delivery take?', k: 5 });
          expect(ids(hits)[0]).toBe('s1:1');
          expect(hits.every((h) => h.score > 0)).toBe(true);
          expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
          expect(ids(await index.lexical({ text: 'refund', k: 5 }))).toEqual(['s1:0']);
          expect(await index.lexical({ text: 'quantum chromodynamics', k: 5 })).toEqual([]);
          expect(await index.lexical({ text: '?!', k: 5 })).toEqual([]);
          expect(await index.lexical({ text: 'days', k: 1 })).toHaveLength(1);
        });
      },
      timeout,
    );

    it(
      'scopes both searches to the agents a source is tagged with; untagged sources serve every agent',
      async () => {
        await index.replaceSource(source('shared'), [chunk('shared', 0, 'refund policy', [1, 0, 0])]);
        await index.replaceSource(source('mine', { agentIds: ['a1', 'a 3/odd'] }), [chunk('mine', 0, 'refund override', [1, 0.1, 0])]);
        await index.replaceSource(source('theirs', { agentIds: ['a2'] }), [chunk('theirs', 0, 'refund secret', [1, 0.05, 0])]);
        const sourcesOf = (hits: ChunkHit[]): string[] => hits.map((h) => h.source.sourceId).sort();
        const vector = { vector: [1, 0, 0], embeddingModel: 'offline/test/3', k: 10 };
        await searched(async () => {
          expect(sourcesOf(await index.nearest({ ...vector, agentId: 'a1' }))).toEqual(['mine', 'shared']);
          expect(sourcesOf(await index.nearest({ ...vector, agentId: 'a 3/odd' }))).toEqual(['mine', 'shared']);
          expect(sourcesOf(await index.nearest({ ...vector, agentId: 'a9' }))).toEqual(['shared']);
          expect(sourcesOf(await index.nearest(vector))).toEqual(['mine', 'shared', 'theirs']);
          expect(sourcesOf(await index.lexical({ text: 'refund', agentId: 'a1', k: 10 }))).toEqual(['mine', 'shared']);
          expect(sourcesOf(await index.lexical({ text: 'refund', agentId: 'a2', k: 10 }))).toEqual(['shared', 'theirs']);
          expect(sourcesOf(await index.lexical({ text: 'secret', agentId: 'a1', k: 10 }))).toEqual([]);
          expect(sourcesOf(await index.lexical({ text: 'refund', k: 10 }))).toEqual(['mine', 'shared', 'theirs']);
        });
      },
      timeout,
    );

    it(
      'moves a re-tagged source to its new agents on both search sides',
      async () => {
        await index.replaceSource(source('s1', { agentIds: ['a1'] }), [chunk('s1', 0, 'refund rules', [1, 0, 0])]);
        await index.replaceSource(source('s1', { agentIds: ['a2'] }), [chunk('s1', 0, 'refund rules', [1, 0, 0])]);
        const vector = { vector: [1, 0, 0], embeddingModel: 'offline/test/3', k: 5 };
        await searched(async () => {
          expect(await index.nearest({ ...vector, agentId: 'a1' })).toEqual([]);
          expect(ids(await index.nearest({ ...vector, agentId: 'a2' }))).toEqual(['s1:0']);
          expect(await index.lexical({ text: 'refund', agentId: 'a1', k: 5 })).toEqual([]);
          expect(ids(await index.lexical({ text: 'refund', agentId: 'a2', k: 5 }))).toEqual(['s1:0']);
        });
        await index.replaceSource(source('s1'), [chunk('s1', 0, 'refund rules', [1, 0, 0])]);
        await searched(async () => {
          expect(ids(await index.nearest({ ...vector, agentId: 'a1' }))).toEqual(['s1:0']);
          expect(ids(await index.lexical({ text: 'refund', agentId: 'a9', k: 5 }))).toEqual(['s1:0']);
        });
      },
      timeout,
    );

    it(
      'lists and deletes sources with their chunks, on both search sides',
      async () => {
        await index.replaceSource(source('s1'), [chunk('s1', 0, 'alpha')]);
        await index.replaceSource(source('s2', { ingestedAt: '2026-11-23T11:00:00.000Z' }), [chunk('s2', 0, 'beta')]);
        expect((await index.listSources()).map((s) => s.sourceId)).toEqual(['s1', 's2']);
        expect(await index.deleteSource('s1')).toBe(true);
        expect(await index.deleteSource('s1')).toBe(false);
        expect(await index.getSource('s1')).toBeUndefined();
        expect(await index.sourceChunks('s1')).toEqual([]);
        await searched(async () => {
          expect(await index.lexical({ text: 'alpha beta', k: 10 }).then(ids)).toEqual(['s2:0']);
          expect(await index.nearest({ vector: [0, 0.5, -1], embeddingModel: 'offline/test/3', k: 10 }).then(ids)).toEqual(['s2:0']);
        });
      },
      timeout,
    );

    if (harness.reopen) {
      const reopen = harness.reopen;
      it(
        'keeps sources, chunks and both search sides across a restart',
        async () => {
          await index.replaceSource(source('s1'), [chunk('s1', 0, 'durable words')]);
          const again = await reopen(index);
          index = again;
          expect((await again.sourceChunks('s1')).map((c) => [c.chunkId, c.vector])).toEqual([['s1:0', [0, 0.5, -1]]]);
          await searched(async () => {
            expect(await again.lexical({ text: 'durable', k: 5 }).then(ids)).toEqual(['s1:0']);
            expect(await again.nearest({ vector: [0, 0.5, -1], embeddingModel: 'offline/test/3', k: 5 }).then(ids)).toEqual(['s1:0']);
          });
        },
        timeout,
      );
    }
  });
}
