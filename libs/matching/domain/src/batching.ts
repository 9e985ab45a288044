import { MatchingDomainError } from './errors.js';

export interface BatchPlanOptions<G> {
  /** Token budget of one LLM call's guideline section. */
  maxBatchTokens: number;
  /** Calls per turn never exceed this (ADR 0008: matching cost stays flat). */
  maxBatches: number;
  estimateTokens: (g: G) => number;
}

/**
 * Splits the candidates into LLM batches, keeping their order (each batch is a contiguous run):
 *
 * 1. As few batches as fit `maxBatchTokens` each — the fewest contiguous batches, found greedily. A single
 *    candidate larger than the budget gets a batch of its own (it cannot be split).
 * 2. If that is at most `maxBatches`, the candidates are spread evenly over that many batches (each batch holds
 *    the candidates whose token mid-point falls in its share of the total), as long as every batch still fits;
 *    otherwise the greedy split is used as is.
 * 3. If it is more than `maxBatches`, the candidates do not fit: exactly `maxBatches` batches are made, and the
 *    budget is exceeded evenly — the largest batch is as small as a contiguous split allows, and the batches are
 *    spread evenly within that bound. A guideline is never dropped to fit: dropping one silently would mean
 *    never following it, while a larger prompt only costs tokens.
 *
 * Throws `MATCHING.INVALID_OPTION` for a non-positive budget or fewer than one batch.
 */
export function planBatches<G>(candidates: readonly G[], options: BatchPlanOptions<G>): G[][] {
  if (!(options.maxBatchTokens > 0))
    throw new MatchingDomainError('MATCHING.INVALID_OPTION', `maxBatchTokens must be positive, got ${options.maxBatchTokens}`);
  if (!(options.maxBatches >= 1))
    throw new MatchingDomainError('MATCHING.INVALID_OPTION', `maxBatches must be at least 1, got ${options.maxBatches}`);
  if (candidates.length === 0) return [];

  const sizes = candidates.map((g) => Math.max(0, options.estimateTokens(g) || 0));
  const maxBatches = Math.floor(options.maxBatches);
  const fewest = greedySplit(sizes, options.maxBatchTokens).length;

  if (fewest <= maxBatches) {
    const even = evenSplit(sizes, fewest);
    const fits = even.every((batch) => batch.length === 1 || sum(batch.map((i) => sizes[i] ?? 0)) <= options.maxBatchTokens);
    return toBatches(candidates, fits ? even : greedySplit(sizes, options.maxBatchTokens));
  }

  const cap = smallestCap(sizes, maxBatches);
  const even = evenSplit(sizes, maxBatches);
  const withinCap = even.every((batch) => sum(batch.map((i) => sizes[i] ?? 0)) <= cap * (1 + 1e-9));
  return toBatches(candidates, withinCap ? even : greedySplit(sizes, cap));
}

const sum = (values: readonly number[]): number => values.reduce((total, v) => total + v, 0);

const toBatches = <G>(candidates: readonly G[], split: number[][]): G[][] => split.map((batch) => batch.map((i) => candidates[i] as G));

/** Contiguous batches, each closed when the next candidate would push it over `cap` (a batch is never empty). */
function greedySplit(sizes: readonly number[], cap: number): number[][] {
  const batches: number[][] = [];
  let current: number[] = [];
  let load = 0;
  sizes.forEach((size, i) => {
    if (current.length > 0 && load + size > cap) {
      batches.push(current);
      current = [];
      load = 0;
    }
    current.push(i);
    load += size;
  });
  if (current.length > 0) batches.push(current);
  return batches;
}

/** `count` contiguous batches of about equal load: a candidate goes to the batch its token mid-point falls in. */
function evenSplit(sizes: readonly number[], count: number): number[][] {
  const total = sum(sizes);
  const batches: number[][] = Array.from({ length: count }, () => []);
  let before = 0;
  sizes.forEach((size, i) => {
    const share = total === 0 ? Math.floor((i * count) / sizes.length) : Math.floor(((before + size / 2) / total) * count);
    batches[Math.min(count - 1, Math.max(0, share))]?.push(i);
    before += size;
  });
  return batches.filter((batch) => batch.length > 0);
}

/** The smallest per-batch load with which a greedy contiguous split needs at most `count` batches. */
function smallestCap(sizes: readonly number[], count: number): number {
  let low = Math.max(sum(sizes) / count, ...sizes);
  let high = sum(sizes);
  if (greedySplit(sizes, low).length <= count) return low;
  for (let round = 0; round < 60 && high - low > 1e-6 * Math.max(1, high); round++) {
    const middle = (low + high) / 2;
    if (greedySplit(sizes, middle).length <= count) high = middle;
    else low = middle;
  }
  return high;
}
