import { admit } from '../admission.js';
import type { BudgetStore, ReserveRequest, ReserveResult, ScopeRef, Settlement } from '../budget-store.port.js';

interface Counter {
  periodId: string;
  used: number;
  /** reservation id → amount and expiry (epoch ms). */
  reservations: Map<string, { amount: number; expiresAt: number }>;
}

/**
 * Budget counters in this process's memory (embedded mode: one process makes every call). Same contract as the
 * Redis adapter. The counters go with the process; the gateway's start-up raises them again from the usage records of
 * the event log (`raise`, AgentBudgets.rebuildCounters), so a restart does not give the period's budgets back.
 */
export class InProcessBudgetStore implements BudgetStore {
  private readonly counters = new Map<string, Counter>();
  private readonly settled = new Map<string, number>();
  private readonly flags = new Map<string, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  private counter(key: string, periodId: string): Counter {
    let counter = this.counters.get(key);
    if (!counter) {
      counter = { periodId, used: 0, reservations: new Map() };
      this.counters.set(key, counter);
    }
    if (counter.periodId !== periodId) {
      counter.periodId = periodId;
      counter.used = 0;
    }
    return counter;
  }

  /** What the live reservations hold, but `except` (the caller's own hold). */
  private reservedOf(counter: Counter | undefined, now: number, except?: string): number {
    let reserved = 0;
    for (const [id, r] of counter?.reservations ?? []) {
      if (r.expiresAt <= now) counter?.reservations.delete(id);
      else if (id !== except) reserved += r.amount;
    }
    return reserved;
  }

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    for (const scope of request.scopes) {
      const counter = this.counters.get(scope.key);
      const used = counter && counter.periodId === scope.periodId ? counter.used : 0;
      const admission = admit({ used, reserved: this.reservedOf(counter, request.now, scope.heldBy) }, scope.limit, scope.estimate);
      if (admission.decision === 'exhausted') return { outcome: 'exhausted', key: scope.key, used, limit: scope.limit };
      if (admission.decision === 'wait') return { outcome: 'wait', key: scope.key };
    }
    for (const scope of request.scopes)
      this.counter(scope.key, scope.periodId).reservations.set(request.reservationId, {
        amount: scope.estimate,
        expiresAt: request.now + request.ttlMs,
      });
    return { outcome: 'reserved' };
  }

  async settle(reservationId: string, charges: (ScopeRef & { amount: number })[]): Promise<Settlement[]> {
    for (const charge of charges) this.counters.get(charge.key)?.reservations.delete(reservationId);
    if (this.settled.has(reservationId)) return [];
    this.settled.set(reservationId, this.clock());
    return charges.map((charge) => {
      const counter = this.counter(charge.key, charge.periodId);
      const before = counter.used;
      counter.used += charge.amount;
      return { key: charge.key, before, after: counter.used };
    });
  }

  async release(reservationId: string, keys: readonly string[]): Promise<void> {
    for (const key of keys) this.counters.get(key)?.reservations.delete(reservationId);
  }

  async read(scopes: readonly ScopeRef[], now: number): Promise<Map<string, { used: number; reserved: number }>> {
    return new Map(
      scopes.map((scope) => {
        const counter = this.counters.get(scope.key);
        return [
          scope.key,
          { used: counter && counter.periodId === scope.periodId ? counter.used : 0, reserved: this.reservedOf(counter, now) },
        ];
      }),
    );
  }

  async raise(counters: readonly (ScopeRef & { used: number })[]): Promise<number> {
    let raised = 0;
    for (const { key, periodId, used } of counters) {
      const existing = this.counters.get(key);
      const before = existing && existing.periodId === periodId ? existing.used : undefined;
      if (before !== undefined && before >= used) continue;
      this.counter(key, periodId).used = Math.max(0, Math.round(used));
      raised += 1;
    }
    return raised;
  }

  async resetPeriod(period: 'day' | 'month', currentPeriodId: string): Promise<number> {
    let reset = 0;
    for (const [key, counter] of this.counters) {
      if (!key.includes(`:${period}:`) || counter.periodId === currentPeriodId) continue;
      counter.periodId = currentPeriodId;
      counter.used = 0;
      reset += 1;
    }
    return reset;
  }

  async markOnce(flag: string, ttlMs: number): Promise<boolean> {
    const now = this.clock();
    const until = this.flags.get(flag);
    if (until !== undefined && until > now) return false;
    this.flags.set(flag, now + ttlMs);
    return true;
  }

  /** Always answers: the counters are in this process. */
  async ping(): Promise<void> {
    await Promise.resolve();
  }

  /** Nothing to release; the counters go with the process. */
  async close(): Promise<void> {
    await Promise.resolve();
  }
}
