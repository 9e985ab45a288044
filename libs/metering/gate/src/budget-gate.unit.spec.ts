import { InProcessBudgetStore } from '@tenet/budget-store';
import type { BudgetScopeV1 } from '@tenet/contracts';
import { InvalidStructuredOutputError, type LlmProvider, type LlmRequest, type LlmResponse } from '@tenet/llm';
import { BudgetExceededError, BudgetGate, BudgetStoreMissingError, estimateCall } from './budget-gate.js';

const request: LlmRequest = {
  task: { kind: 'x', input: {} },
  system: 'abc',
  prompt: 'hello there',
  schemaName: 'x',
  schema: { type: 'object' },
  maxTokens: 40,
  context: { purpose: 'test' },
};
const scope = (limit: number): BudgetScopeV1 => ({
  key: 'agent:a:day:tokens',
  owner: { kind: 'agent', id: 'a' },
  period: 'day',
  period_id: '2026-11-26',
  unit: 'tokens',
  limit,
});

function provider(answer: () => Promise<LlmResponse>): LlmProvider & { calls: number } {
  const p = {
    name: 'openai',
    model: 'gpt-4o-mini',
    calls: 0,
    generate: async <I, O>(_r: LlmRequest<I>): Promise<LlmResponse<O>> => {
      p.calls += 1;
      return (await answer()) as LlmResponse<O>;
    },
  };
  return p;
}

const ok = (input: number, output: number): Promise<LlmResponse> =>
  Promise.resolve({
    value: {},
    usage: { inputTokens: input, outputTokens: output },
    provider: 'openai',
    model: 'gpt-4o-mini',
    latencyMs: 1,
  });

describe('BudgetGate', () => {
  it('charges what each call billed and refuses a call whose estimate exceeds what is left, without calling the provider', async () => {
    const store = new InProcessBudgetStore();
    const inner = provider(() => ok(60, 10));
    const { input, output } = estimateCall(request);
    // Room for two calls of 70 and the estimate of a third, less one token.
    const gated = new BudgetGate({ store, prices: {} }).provider(inner, [scope(140 + input + output - 1)]);
    await gated.generate(request);
    await gated.generate(request);
    await expect(gated.generate(request)).rejects.toBeInstanceOf(BudgetExceededError);
    expect(inner.calls).toBe(2);
    expect((await store.read([{ key: 'agent:a:day:tokens', periodId: '2026-11-26' }], Date.now())).get('agent:a:day:tokens')).toEqual({
      used: 140,
      reserved: 0,
    });
  });

  it('charges the billed attempts of a failed call, and releases the reservation of an unbilled failure', async () => {
    const store = new InProcessBudgetStore();
    const invalid = new InvalidStructuredOutputError('openai', 'x', '/', ['bad']);
    invalid.billed = [{ provider: 'openai', model: 'gpt-4o-mini', usage: { inputTokens: 30, outputTokens: 5 } }];
    const failing = new BudgetGate({ store, prices: {} }).provider(
      provider(() => Promise.reject(invalid)),
      [scope(1000)],
    );
    await expect(failing.generate(request)).rejects.toBe(invalid);
    const refused = new BudgetGate({ store, prices: {} }).provider(
      provider(() => Promise.reject(new Error('network'))),
      [scope(1000)],
    );
    await expect(refused.generate(request)).rejects.toThrow('network');
    expect((await store.read([{ key: 'agent:a:day:tokens', periodId: '2026-11-26' }], Date.now())).get('agent:a:day:tokens')).toEqual({
      used: 35,
      reserved: 0,
    });
  });

  it('refuses a budgeted call without a store instead of running it unchecked; no budget, no check', async () => {
    const inner = provider(() => ok(1, 1));
    await expect(new BudgetGate({ store: undefined, prices: {} }).provider(inner, [scope(10)]).generate(request)).rejects.toBeInstanceOf(
      BudgetStoreMissingError,
    );
    await new BudgetGate({ store: undefined, prices: {} }).provider(inner, undefined).generate(request);
    expect(inner.calls).toBe(1);
    expect(estimateCall(request)).toEqual({
      input: Math.ceil(('abc'.length + 'hello there'.length + JSON.stringify({ type: 'object' }).length) / 3),
      output: 40,
    });
  });
});
