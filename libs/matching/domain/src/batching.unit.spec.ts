import { planBatches } from './batching.js';

interface Item {
  id: string;
  tokens: number;
}
const items = (...tokens: number[]): Item[] => tokens.map((t, i) => ({ id: `g${i}`, tokens: t }));
const estimateTokens = (x: Item) => x.tokens;
const loads = (batches: Item[][]) => batches.map((b) => b.reduce((sum, x) => sum + x.tokens, 0));
const sizes = (batches: Item[][]) => batches.map((b) => b.length);

describe('planBatches', () => {
  const ten = items(...Array<number>(10).fill(100));

  it('given candidates that fit one budget, when planning, then there is one batch', () => {
    expect(sizes(planBatches(ten, { maxBatchTokens: 5_000, maxBatches: 3, estimateTokens }))).toEqual([10]);
  });

  it('given candidates needing three batches, when planning, then there are three, filled evenly, in order', () => {
    const batches = planBatches(ten, { maxBatchTokens: 400, maxBatches: 3, estimateTokens });
    expect(sizes(batches)).toEqual([3, 4, 3]);
    expect(batches.flat()).toEqual(ten);
  });

  it('given uneven sizes where an even split would overflow, when planning, then every batch still fits the budget', () => {
    const uneven = items(60, 60, 60, 20);
    const batches = planBatches(uneven, { maxBatchTokens: 100, maxBatches: 3, estimateTokens });
    expect(loads(batches).every((load) => load <= 100)).toBe(true);
    expect(batches).toHaveLength(3);
    expect(batches.flat()).toEqual(uneven);
  });

  it('given more than maxBatches worth, when planning, then there are exactly maxBatches and the budget is exceeded evenly — nothing is dropped', () => {
    const two = planBatches(ten, { maxBatchTokens: 100, maxBatches: 2, estimateTokens });
    expect(sizes(two)).toEqual([5, 5]);
    const three = planBatches(ten, { maxBatchTokens: 100, maxBatches: 3, estimateTokens });
    expect(sizes(three)).toEqual([3, 4, 3]);
    expect(three.flat()).toEqual(ten);
  });

  it('given one candidate larger than the budget, when planning, then it gets a batch of its own', () => {
    expect(loads(planBatches(items(50, 500, 50), { maxBatchTokens: 100, maxBatches: 3, estimateTokens }))).toEqual([50, 500, 50]);
  });

  it('given a heavy candidate and more than maxBatches worth, when planning, then the largest batch is as small as a contiguous split allows', () => {
    const batches = planBatches(items(400, 100, 100, 100, 100), { maxBatchTokens: 100, maxBatches: 2, estimateTokens });
    expect(loads(batches)).toEqual([400, 400]);
  });

  it('given no candidates, when planning, then there are no batches', () => {
    expect(planBatches([], { maxBatchTokens: 100, maxBatches: 2, estimateTokens })).toEqual([]);
  });

  it('given a non-positive budget or no batches allowed, when planning, then it refuses', () => {
    expect(() => planBatches(ten, { maxBatchTokens: 0, maxBatches: 2, estimateTokens })).toThrow(
      expect.objectContaining({ code: 'MATCHING.INVALID_OPTION' }),
    );
    expect(() => planBatches(ten, { maxBatchTokens: 100, maxBatches: 0, estimateTokens })).toThrow(
      expect.objectContaining({ code: 'MATCHING.INVALID_OPTION' }),
    );
  });
});
