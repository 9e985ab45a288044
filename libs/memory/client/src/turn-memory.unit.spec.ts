import { loadConfig } from '@tenet/config';
import type { RecallResponseV1 } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import type { ContextVariablesRepository } from '@tenet/catalog-data-access';
import { TurnMemory, type TurnDeadline, type TurnMemoryInput } from './turn-memory.js';

const recalled: RecallResponseV1 = {
  facts: [
    { fact_id: 'f1', subject: 'customer', predicate: 'name', object: 'Alice', confidence: 0.9, recorded_at: '2026-11-24T10:00:00.000Z' },
  ],
  sources: [
    { source_id: 's', chunk_id: 's:1', title: 'Policies', url: null, heading: 'Policies › Warranty', score: 0.8, chunk_text: 'Two years.' },
    { source_id: 's', chunk_id: 's:2', title: 'Policies', url: null, heading: 'Policies › Shipping', score: 0.4, chunk_text: '3-5 days.' },
  ],
  estimated_tokens: 20,
  truncated: false,
};

function setup(answer: () => Promise<unknown>) {
  let requests = 0;
  const budgets: number[] = [];
  const deadline = {
    at: Date.now() + 60_000,
    requestWithin: async (budgetMs: number) => (requests++, budgets.push(budgetMs), answer()),
  } as unknown as TurnDeadline;
  const memory = new TurnMemory(
    { list: async () => [] } as unknown as ContextVariablesRepository,
    {} as EventStore,
    loadConfig('session-gateway', { TENET_RECALL_BUDGET_MS: '5000' }),
  );
  const input: TurnMemoryInput = {
    agent: { id: 'a1', name: 'Ada', config: {} },
    sessionId: 's1',
    customerId: 'c1',
    messageId: 'm1',
    message: 'what warranty?',
    history: [],
    deadline,
    billed: async () => [],
    now: () => new Date(),
  };
  return { memory, input, requests: () => requests, budgets };
}

describe('TurnMemory', () => {
  it('gives the reply the recalled facts and chunks, and cites only the chunks the reply used', async () => {
    const { memory, input } = setup(async () => recalled);
    const run = memory.begin(input);
    const remembered = await run.forCompose();
    expect(remembered.compose.facts).toEqual([{ subject: 'customer', predicate: 'name', object: 'Alice', confidence: 0.9 }]);
    expect(remembered.compose.knowledge?.map((k) => k.chunk_id)).toEqual(['s:1', 's:2']);
    expect(remembered.calls).toEqual([]);
    expect(run.messageData(['s:2', 'unknown'])).toEqual({
      sources: [{ source_id: 's', title: 'Policies', url: null, heading: 'Policies › Shipping', score: 0.4, chunk_text: '3-5 days.' }],
    });
    expect(run.messageData([])).toEqual({});
    expect(run.readyData()).toEqual({ memory: { recalled: true, knowledge_chunks: ['s:1', 's:2'] } });
  });

  it('a failed recall costs the reply its memory, not the turn; the next turns only probe for it, and recall in full once it answers', async () => {
    let down = true;
    const { memory, input, requests, budgets } = setup(async () => {
      if (down) throw new Error('no responders');
      return recalled;
    });
    const run = memory.begin(input);
    expect((await run.forCompose()).compose).toEqual({});
    expect(run.readyData()).toEqual({ memory: { recalled: false, knowledge_chunks: [] } });
    // Still down: the next turn waits the short probe budget, not the full one.
    await memory.begin(input).forCompose();
    // Back: the very next turn recalls (with the probe budget), and the one after has the full budget again.
    down = false;
    const back = memory.begin(input);
    expect((await back.forCompose()).compose.facts).toHaveLength(1);
    await memory.begin(input).forCompose();
    expect(requests()).toBe(4);
    expect(budgets).toEqual([5_000, 250, 250, 5_000]);
  });
});
