import { InProcessBudgetStore } from '@tenet/budget-store';
import { BudgetGate } from '@tenet/metering-gate';
import type { BudgetScopeV1, ExtractContextRequestV1 } from '@tenet/contracts';
import { OfflineProvider } from '@tenet/llm';
import { ContextExtractor } from './context-extractor.js';
import { ProviderRegistry } from './provider-registry.js';

const scope = (limit: number): BudgetScopeV1 => ({
  key: 'agent:a:day:tokens',
  owner: { kind: 'agent', id: 'a' },
  period: 'day',
  period_id: '2026-11-26',
  unit: 'tokens',
  limit,
});
const request = (budget?: BudgetScopeV1[]): ExtractContextRequestV1 => ({
  session_id: 's1',
  agent: { id: 'a', name: 'Ada' },
  message: 'My name is Alice and my order number is 55555',
  history: [],
  variables: [{ name: 'order_number', extraction_prompt: "The customer's order number" }],
  facts: true,
  ...(budget ? { budget: { scopes: budget } } : {}),
});

/** The turn's extraction call is an LLM call like any other, so the agent's token budgets apply to it. */
describe('ContextExtractor within token budgets', () => {
  it('extracts while the budget lasts and is charged for it', async () => {
    const store = new InProcessBudgetStore();
    const extractor = new ContextExtractor(new ProviderRegistry(new OfflineProvider()), new BudgetGate({ store, prices: {} }));
    const reply = await extractor.extract(request([scope(100_000)]));
    expect(reply.values).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'order_number', value: '55555' })]));
    const used = (await store.read([{ key: 'agent:a:day:tokens', periodId: '2026-11-26' }], Date.now())).get('agent:a:day:tokens');
    expect(used?.used).toBeGreaterThan(0);
  });

  it('is refused with BUDGET.EXCEEDED once the budget is spent, without calling the model', async () => {
    const store = new InProcessBudgetStore();
    const extractor = new ContextExtractor(new ProviderRegistry(new OfflineProvider()), new BudgetGate({ store, prices: {} }));
    // A budget smaller than one call's estimate: the call is refused before it is made (nothing is charged).
    await expect(extractor.extract(request([scope(10)]))).rejects.toMatchObject({ code: 'BUDGET.EXCEEDED' });
    expect((await store.read([{ key: 'agent:a:day:tokens', periodId: '2026-11-26' }], Date.now())).get('agent:a:day:tokens')).toEqual({
      used: 0,
      reserved: 0,
    });
  });

  it('refuses a request that carries a budget when the matcher has no budget store (never runs it unchecked)', async () => {
    const extractor = new ContextExtractor(new ProviderRegistry(new OfflineProvider()));
    await expect(extractor.extract(request([scope(100_000)]))).rejects.toThrow();
    await expect(extractor.extract(request())).resolves.toMatchObject({ values: expect.any(Array) });
  });
});
