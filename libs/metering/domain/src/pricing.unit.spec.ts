import { defaultPriceTable, estimateCostUsd, priceOf, summarizeUsage, type UsageRecord } from './index.js';

describe('metering', () => {
  it('estimates cost from the price table per million tokens', () => {
    expect(estimateCostUsd(defaultPriceTable, 'openai', 'gpt-4o-mini', 1_000_000, 1_000_000)).toBeCloseTo(0.75, 10);
    expect(estimateCostUsd(defaultPriceTable, 'anthropic', 'claude-sonnet-4-5', 1000, 100)).toBeCloseTo(0.0045, 10);
  });

  it('finds dated model snapshots by prefix and prices unknown models at 0', () => {
    expect(priceOf(defaultPriceTable, 'openai', 'gpt-4o-mini-2024-07-18')).toEqual(defaultPriceTable['openai/gpt-4o-mini']);
    expect(estimateCostUsd(defaultPriceTable, 'acme', 'mystery', 10, 10)).toBe(0);
  });

  it('sums records in [from, to) in total and per model', () => {
    const r = (at: string, model: string, input: number, output: number, cost: number): UsageRecord => ({
      at,
      provider: 'openai',
      model,
      input_tokens: input,
      output_tokens: output,
      cost_estimate_usd: cost,
    });
    const records = [
      r('2026-11-01T00:00:00Z', 'a', 10, 1, 0.1),
      r('2026-11-02T00:00:00Z', 'a', 20, 2, 0.2),
      r('2026-11-02T00:00:00Z', 'b', 5, 5, 0.05),
      r('2026-11-03T00:00:00Z', 'a', 99, 9, 9),
    ];
    const summary = summarizeUsage(records, '2026-11-02T00:00:00Z', '2026-11-03T00:00:00Z');
    expect(summary).toMatchObject({ calls: 2, input_tokens: 25, output_tokens: 7 });
    expect(summary.cost_estimate_usd).toBeCloseTo(0.25, 10);
    expect(summary.by_model.map((m) => [m.model, m.calls])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(summarizeUsage(records).calls).toBe(4);
  });
});
