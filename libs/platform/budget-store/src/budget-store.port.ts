/**
 * The budget store: counters of token budgets shared by every process that makes or requests LLM calls (gateway
 * replicas, matcher replicas). A call is admitted by reserving its estimate atomically on every scope it is charged
 * to, and settled with what it really cost — exactly once per reservation id, however often settle is called.
 * Two adapters: Redis (Lua scripts; distributed mode) and in-process (embedded mode). One conformance suite.
 */

/** One counter a call is charged to, in the period it is in now. */
export interface ScopeRef {
  /** Counter key (`agent:<id>:day:tokens`); the adapter adds its own prefix. */
  key: string;
  /** The counter's current period: a counter last written in another period counts as 0. */
  periodId: string;
}

export interface ReserveRequest {
  /** Unique per call: settle and release name it. */
  reservationId: string;
  /**
   * `heldBy`: the reservation that holds room for the whole turn this call belongs to (ADR 0019): it is the
   * caller's own, so it does not count against the call (only the other calls in flight do).
   */
  scopes: (ScopeRef & { limit: number; estimate: number; heldBy?: string })[];
  /** A reservation not settled within this long (its process died) stops holding budget. */
  ttlMs: number;
  /** Epoch ms (expiry of reservations); the caller's clock. */
  now: number;
}

export type ReserveResult =
  | { outcome: 'reserved' }
  /** A scope is spent, or has less left than the call's estimate: the call may not start. */
  | { outcome: 'exhausted'; key: string; used: number; limit: number }
  /** A scope has room only if the calls in flight use less than they reserved: try again once they settle. */
  | { outcome: 'wait'; key: string };

export interface Settlement {
  key: string;
  /** Used in the period before and after this charge (thresholds are judged from these). */
  before: number;
  after: number;
}

export interface BudgetStore {
  reserve(request: ReserveRequest): Promise<ReserveResult>;
  /**
   * Charges what the call cost and drops its reservation. Idempotent per reservation id: a second settle charges
   * nothing and returns `[]`. Also charges when the reservation has expired (the call was still billed).
   */
  settle(reservationId: string, charges: (ScopeRef & { amount: number })[]): Promise<Settlement[]>;
  /** Drops a reservation without charging (the call failed before the provider billed anything). */
  release(reservationId: string, keys: readonly string[]): Promise<void>;
  /** Used and reserved per key, in the given periods. */
  read(scopes: readonly ScopeRef[], now: number): Promise<Map<string, { used: number; reserved: number }>>;
  /**
   * Raises each counter to at least `used` in its period (a counter last written in another period takes `used`);
   * never lowers one. Resolves how many changed. For counters rebuilt from the event log's usage records, after the
   * store lost them (a process restart for the in-process adapter, a Redis restart without persistence).
   */
  raise(counters: readonly (ScopeRef & { used: number })[]): Promise<number>;
  /** Zeroes every counter of a period kind (`day`, `month`) not already in `currentPeriodId`; the count reset. */
  resetPeriod(period: 'day' | 'month', currentPeriodId: string): Promise<number>;
  /** True the first time a flag is set (per TTL): one warning per scope and period across replicas. */
  markOnce(flag: string, ttlMs: number): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
