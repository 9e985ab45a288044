import type { IndexedChunk, KnowledgeIndex, KnowledgeSource } from '../knowledge-index.port.js';

/**
 * The one conformance suite of the `KnowledgeIndex` port: every adapter runs it. `create` returns a fresh,
 * empty index; `reopen` (when the adapter is durable) a second index over the same storage.
 */
export function knowledgeIndexConformance(name: string, factory: { create(): Promise<KnowledgeIndex>; reopen?(index: KnowledgeIndex): Promise<KnowledgeIndex> }): void {
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
  const chunk = (sourceId: string, ordinal: number, text = `text ${ordinal}`): IndexedChunk => ({
    chunkId: `${sourceId}:${ordinal}`,
    sourceId,
    heading: `H${ordinal}`,
    text,
    ordinal,
    vector: [ordinal, 0.5, -1],
  });

  describe(`KnowledgeIndex conformance: ${name}`, () => {
    let index: KnowledgeIndex;
    beforeEach(async () => {
      index = await factory.create();
    });
    afterEach(async () => {
      await index.close();
    });

    it('stores a source with its chunks and vectors, in order', async () => {
      await index.replaceSource(source('s1', { url: 'https://example.com/help', agentIds: ['a1'] }), [chunk('s1', 0), chunk('s1', 1)]);
      expect(await index.getSource('s1')).toEqual(source('s1', { url: 'https://example.com/help', agentIds: ['a1'], chunkCount: 2 }));
      const chunks = await index.candidateChunks();
      expect(chunks.map((c) => [c.chunkId, c.heading, c.text, c.vector])).toEqual([
        ['s1:0', 'H0', 'text 0', [0, 0.5, -1]],
        ['s1:1', 'H1', 'text 1', [1, 0.5, -1]],
      ]);
    });

    it('replaces all chunks of a re-ingested source and nothing of other sources', async () => {
      await index.replaceSource(source('s1'), [chunk('s1', 0), chunk('s1', 1), chunk('s1', 2)]);
      await index.replaceSource(source('s2'), [chunk('s2', 0)]);
      await index.replaceSource(source('s1', { title: 'New' }), [chunk('s1', 0, 'changed')]);
      const chunks = await index.candidateChunks();
      expect(chunks.map((c) => [c.chunkId, c.text, c.source.title])).toEqual([
        ['s1:0', 'changed', 'New'],
        ['s2:0', 'text 0', 'Title s2'],
      ]);
      expect((await index.getSource('s1'))?.chunkCount).toBe(1);
    });

    it('leaves the previous version in place when a replacement fails half-way', async () => {
      await index.replaceSource(source('s1'), [chunk('s1', 0, 'old')]);
      const foreign = chunk('s2', 9);
      await expect(index.replaceSource(source('s1', { title: 'New' }), [chunk('s1', 0, 'new'), foreign])).rejects.toThrow();
      expect((await index.candidateChunks()).map((c) => [c.text, c.source.title])).toEqual([['old', 'Title s1']]);
    });

    it('scopes chunks to the agents a source is tagged with; untagged sources serve every agent', async () => {
      await index.replaceSource(source('shared'), [chunk('shared', 0)]);
      await index.replaceSource(source('mine', { agentIds: ['a1'] }), [chunk('mine', 0)]);
      expect((await index.candidateChunks('a1')).map((c) => c.sourceId).sort()).toEqual(['mine', 'shared']);
      expect((await index.candidateChunks('a2')).map((c) => c.sourceId)).toEqual(['shared']);
      expect((await index.candidateChunks()).length).toBe(2);
    });

    it('lists and deletes sources with their chunks', async () => {
      await index.replaceSource(source('s1'), [chunk('s1', 0)]);
      await index.replaceSource(source('s2', { ingestedAt: '2026-11-23T11:00:00.000Z' }), [chunk('s2', 0)]);
      expect((await index.listSources()).map((s) => s.sourceId)).toEqual(['s1', 's2']);
      expect(await index.deleteSource('s1')).toBe(true);
      expect(await index.deleteSource('s1')).toBe(false);
      expect(await index.getSource('s1')).toBeUndefined();
      expect((await index.candidateChunks()).map((c) => c.sourceId)).toEqual(['s2']);
    });

    if (factory.reopen) {
      const reopen = factory.reopen;
      it('keeps sources and chunks across a restart', async () => {
        await index.replaceSource(source('s1'), [chunk('s1', 0)]);
        const again = await reopen(index);
        try {
          expect((await again.candidateChunks()).map((c) => [c.chunkId, c.vector])).toEqual([['s1:0', [0, 0.5, -1]]]);
        } finally {
          await again.close();
        }
      });
    }
  });
}
