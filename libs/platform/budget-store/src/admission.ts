/**
 * The admission rule of every budget store adapter (the Redis adapter's Lua script applies the same rule atomically);
 * it belongs to the store, so the platform lib imports no context's domain (ADR 0027).
 */

/** A counter as the store holds it for the current period. */
export interface BudgetCounter {
  used: number;
  /** Held by the other calls and turns in flight (their estimates), released when they settle. */
  reserved: number;
}

export type Admission = { decision: 'admit' } | { decision: 'exhausted' } | { decision: 'wait' };

/**
 * Whether a call (or a whole turn's estimate) may start against one counter. Spent (used ≥ limit), or less left than
 * its estimate alone: never — the estimate is an upper bound, so an admitted call cannot overshoot by more than the
 * estimate's error. Otherwise it starts if its estimate fits beside what others hold in flight; if not, it waits for
 * them to settle, so concurrent calls on any number of processes sharing the store cannot take the same room twice.
 */
export function admit(counter: BudgetCounter, limit: number, estimate: number): Admission {
  if (counter.used >= limit || counter.used + estimate > limit) return { decision: 'exhausted' };
  if (counter.used + counter.reserved + estimate <= limit) return { decision: 'admit' };
  return { decision: 'wait' };
}
