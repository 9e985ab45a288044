import { jest } from '@jest/globals';
import { OfflineVectorizer, type EmbeddingProvider } from '@tenet/llm';
import { KnowledgeService } from './knowledge.service.js';
import { SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';

const handbook = `# Returns
## Refund window
You can get a refund within 30 days of delivery if the item is unused.

## Exchanges
Exchanges for another size are free of charge.

# Shipping
## Delivery times
Standard delivery takes 3 to 5 working days; express delivery arrives the next day.
`;

describe('KnowledgeService (hybrid retrieval over the SQLite index)', () => {
  let index: SqliteKnowledgeIndex;
  let embeddings: EmbeddingProvider;
  let service: KnowledgeService;
  let ids = 0;
  beforeEach(() => {
    index = new SqliteKnowledgeIndex();
    embeddings = new OfflineVectorizer();
    service = new KnowledgeService(index, embeddings, { now: () => new Date('2026-11-23T10:00:00Z'), newId: () => `src-${++ids}` });
  });
  afterEach(() => index.close());

  it('finds the section that answers, with its heading, title and url', async () => {
    const source = await service.ingest({ title: 'Help centre', url: 'https://shop.example/help', format: 'markdown', content: handbook });
    expect(source).toMatchObject({ chunkCount: 3, embeddingModel: 'offline/tenet-hashing-1/512' });
    const hits = await service.search({ query: 'how long does delivery take?', maxResults: 2, threshold: 0 });
    expect(hits[0]).toMatchObject({
      sourceId: source.sourceId,
      title: 'Help centre',
      url: 'https://shop.example/help',
      heading: 'Shipping › Delivery times',
    });
    expect(hits[0]?.chunkText).toContain('3 to 5 working days');
    expect(hits.length).toBeLessThanOrEqual(2);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]?.score ?? 0);
  });

  it('honours max_results and threshold', async () => {
    await service.ingest({ title: 'Help', format: 'markdown', content: handbook });
    const all = await service.search({ query: 'refund delivery exchange', maxResults: 10, threshold: 0 });
    expect(all.length).toBe(3);
    expect(await service.search({ query: 'refund delivery exchange', maxResults: 1, threshold: 0 })).toHaveLength(1);
    const cut = all[1]!.score;
    const above = await service.search({ query: 'refund delivery exchange', maxResults: 10, threshold: cut });
    expect(above.every((hit) => hit.score >= cut)).toBe(true);
    expect(above.length).toBeLessThan(all.length);
    expect(await service.search({ query: 'quantum chromodynamics', maxResults: 10, threshold: 0.2 })).toEqual([]);
  });

  it('re-ingesting a changed source replaces its chunks; unchanged content is not re-embedded', async () => {
    const first = await service.ingest({ sourceId: 'faq', title: 'FAQ', format: 'markdown', content: handbook });
    const embed = jest.spyOn(embeddings, 'embed');
    expect(await service.ingest({ sourceId: 'faq', title: 'FAQ', format: 'markdown', content: handbook })).toEqual(first);
    expect(embed).not.toHaveBeenCalled();
    await service.ingest({ sourceId: 'faq', title: 'FAQ', format: 'markdown', content: '# Returns\nRefunds are possible within 60 days.' });
    const hits = await service.search({ query: 'refund', maxResults: 10, threshold: 0 });
    expect(hits.map((h) => h.chunkText)).toEqual(['Refunds are possible within 60 days.']);
    expect(await service.search({ query: 'express delivery', maxResults: 10, threshold: 0 })).toEqual([]);
  });

  it('keeps the old version searchable when embedding the new one fails', async () => {
    await service.ingest({ sourceId: 'faq', title: 'FAQ', format: 'markdown', content: handbook });
    jest.spyOn(embeddings, 'embed').mockRejectedValueOnce(new Error('provider down'));
    await expect(service.ingest({ sourceId: 'faq', title: 'FAQ', format: 'markdown', content: '# New\nnothing' })).rejects.toThrow(
      'provider down',
    );
    expect((await service.search({ query: 'refund', maxResults: 1, threshold: 0 }))[0]?.heading).toBe('Returns › Refund window');
  });

  it('retrieves only from sources tagged to the agent or to none', async () => {
    await service.ingest({
      sourceId: 'a1-only',
      title: 'Internal',
      format: 'text',
      content: 'Refund override code procedure.',
      agentIds: ['a1'],
    });
    await service.ingest({ sourceId: 'public', title: 'Public', format: 'text', content: 'Refunds within 30 days.' });
    expect((await service.search({ query: 'refund', agentId: 'a2', maxResults: 5, threshold: 0 })).map((h) => h.sourceId)).toEqual([
      'public',
    ]);
    expect((await service.search({ query: 'refund', agentId: 'a1', maxResults: 5, threshold: 0 })).map((h) => h.sourceId).sort()).toEqual([
      'a1-only',
      'public',
    ]);
  });

  it('still ranks chunks embedded by another model, on BM25 alone', async () => {
    await service.ingest({ sourceId: 'faq', title: 'FAQ', format: 'markdown', content: handbook });
    const other = new KnowledgeService(index, new OfflineVectorizer({ dimensions: 64 }));
    const hits = await other.search({ query: 'exchanges size', maxResults: 1, threshold: 0 });
    expect(hits[0]?.heading).toBe('Returns › Exchanges');
  });
});
