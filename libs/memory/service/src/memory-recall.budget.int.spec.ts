import { InMemoryEventStore } from '@tenet/event-store';
import { OfflineVectorizer } from '@tenet/llm';
import { CustomerMemoryStore } from './customer-memory.store.js';
import { KnowledgeService } from './knowledge.service.js';
import { recall } from './memory-recall.js';
import { SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';

describe('recall within its token budget', () => {
  let index: SqliteKnowledgeIndex;
  let memory: CustomerMemoryStore;
  let knowledge: KnowledgeService;
  beforeEach(async () => {
    index = new SqliteKnowledgeIndex();
    knowledge = new KnowledgeService(index, new OfflineVectorizer());
    let clock = Date.parse('2026-11-01T00:00:00Z');
    memory = new CustomerMemoryStore(new InMemoryEventStore(), () => new Date((clock += 1_000)));
    await knowledge.ingest({
      sourceId: 'policies',
      title: 'Policies',
      format: 'markdown',
      content: '# Refunds\nRefunds are paid within 30 days of delivery.\n\n# Warranty\nElectronics carry a two-year warranty.',
    });
  });
  afterEach(() => index.close());

  it('keeps the relevant chunks when the customer has far more facts than fit: facts take at most half first', async () => {
    for (let i = 0; i < 300; i++)
      await memory.record('c1', {
        subject: 'customer',
        predicate: `preference_${i}`,
        object: `likes item number ${i} in blue`,
        confidence: 0.9,
        source: { kind: 'import' },
      });
    const reply = await recall(
      { agent_id: 'a1', customer_id: 'c1', message: 'how long do refunds take?', max_tokens: 400 },
      memory,
      knowledge,
    );
    expect(reply.sources.map((s) => s.heading)).toContain('Refunds');
    expect(reply.facts.length).toBeGreaterThan(10);
    expect(reply.facts[0]?.predicate).toBe('preference_299'); // most recent first
    expect(reply.estimated_tokens).toBeLessThanOrEqual(400);
    expect(reply.truncated).toBe(true);
  });

  it('gives facts the rest of the budget when there is no chunk to recall', async () => {
    for (let i = 0; i < 300; i++)
      await memory.record('c1', {
        subject: 'customer',
        predicate: `preference_${i}`,
        object: `likes item number ${i} in blue`,
        confidence: 0.9,
        source: { kind: 'import' },
      });
    const withChunks = await recall(
      { agent_id: 'a1', customer_id: 'c1', message: 'how long do refunds take?', max_tokens: 400 },
      memory,
      knowledge,
    );
    const factsOnly = await recall(
      { agent_id: 'a1', customer_id: 'c1', message: 'quantum chromodynamics', max_tokens: 400 },
      memory,
      knowledge,
    );
    expect(factsOnly.sources).toEqual([]);
    expect(factsOnly.facts.length).toBeGreaterThan(withChunks.facts.length);
    expect(factsOnly.estimated_tokens).toBeGreaterThan(380);
  });
});
