import { randomUUID } from 'node:crypto';
import type { BudgetScopeV1 } from '@tenet/contracts';
import type { BudgetStore } from '@tenet/budget-store';
import { billedCallsOf, conversationOf, type BilledCall, type LlmProvider, type LlmRequest, type LlmResponse } from '@tenet/llm';
import { chargeOf, estimateCostUsd, microUsd, type PriceTable } from '@tenet/metering-domain';
import { sleep } from '@tenet/messaging';

/** A call refused because a budget it would be charged to is spent. Travels to the gateway as `BUDGET.EXCEEDED`. */
export class BudgetExceededError extends Error {
  readonly code = 'BUDGET.EXCEEDED';
  readonly details: { scope: BudgetScopeV1; used: number };
  constructor(scope: BudgetScopeV1, used: number) {
    super(
      `token budget ${scope.key} (${scope.period} ${scope.period_id}) is spent: ${used} of ${scope.limit} ${scope.unit === 'usd' ? 'micro-USD' : 'tokens'}`,
    );
    this.name = 'BudgetExceededError';
    this.details = { scope, used };
  }
}

/**
 * The budget store is not configured in this matcher, or does not answer (Redis down), but a request carries a
 * budget: refuse, never run the call uncounted (ADR 0019, amendment: fail closed).
 */
export class BudgetStoreMissingError extends Error {
  readonly code = 'BUDGET.UNAVAILABLE';
}

/** A budget store operation, its failure turned into `BUDGET.UNAVAILABLE`. */
const counted = <T>(operation: Promise<T>): Promise<T> =>
  operation.catch((error: unknown) => {
    throw new BudgetStoreMissingError(`the budget store does not answer: ${error instanceof Error ? error.message : String(error)}`);
  });

/** Output tokens assumed for a call that sets no max_tokens. */
const DEFAULT_OUTPUT_ESTIMATE = 1_024;
/** A reservation outlives its call by at most this (a matcher that died mid-call stops holding budget after it). */
const RESERVATION_TTL_MS = 120_000;

/**
 * Upper-bound-ish estimate of a call's tokens before it is made: ~3 characters per input token (prompt, messages
 * and schema; English averages about 4, so this overestimates) and the call's output cap.
 */
export function estimateCall(request: LlmRequest): { input: number; output: number } {
  const chars =
    request.system.length + conversationOf(request).reduce((sum, m) => sum + m.content.length, 0) + JSON.stringify(request.schema).length;
  return { input: Math.ceil(chars / 3), output: request.maxTokens ?? DEFAULT_OUTPUT_ESTIMATE };
}

export interface BudgetGateOptions {
  store: BudgetStore | undefined;
  prices: PriceTable;
  now?: () => number;
}

/**
 * Checks a step's budgets before every LLM call it makes (match batches, repairs, compose, embeddings): the call's
 * estimate is reserved on every scope in the shared store (atomically, across processes), the call is refused with
 * `BudgetExceededError` when a scope is spent, and waits while calls in flight might take the last room. After the
 * call the reservation is settled with what the provider billed (failed attempts included), once per reservation
 * id — so a budget is never double-charged, and concurrent calls overshoot it by at most one call.
 */
export class BudgetGate {
  private readonly now: () => number;

  constructor(private readonly options: BudgetGateOptions) {
    this.now = options.now ?? Date.now;
  }

  private costOf(provider: string, model: string, input: number, output: number): number {
    return estimateCostUsd(this.options.prices, provider, model, input, output);
  }

  private charges(scopes: readonly BudgetScopeV1[], calls: readonly BilledCall[]) {
    return scopes.map((scope) => ({
      key: scope.key,
      periodId: scope.period_id,
      amount: calls.reduce(
        (sum, c) =>
          sum +
          chargeOf(scope.unit, {
            input_tokens: c.usage.inputTokens,
            output_tokens: c.usage.outputTokens,
            cost_estimate_usd: this.costOf(c.provider, c.model, c.usage.inputTokens, c.usage.outputTokens),
          }),
        0,
      ),
    }));
  }

  /** Runs one billed call within the budgets; `billed` says what it cost (or `billedCallsOf(error)` if it failed). */
  async run<T>(
    scopes: readonly BudgetScopeV1[] | undefined,
    call: { provider: string; model: string; input: number; output: number; signal?: AbortSignal | undefined },
    work: () => Promise<T>,
    billed: (result: T) => BilledCall[],
  ): Promise<T> {
    if (!scopes || scopes.length === 0) return work();
    const store = this.options.store;
    if (!store) throw new BudgetStoreMissingError('this matcher has no budget store, but the agent has a token budget');
    const estimated = { tokens: call.input + call.output, usd: microUsd(this.costOf(call.provider, call.model, call.input, call.output)) };
    const reservationId = randomUUID();
    for (let backoff = 20; ; backoff = Math.min(backoff * 2, 250)) {
      if (call.signal?.aborted)
        throw call.signal.reason instanceof Error ? call.signal.reason : new Error('the call was cancelled before it was made');
      const result = await counted(
        store.reserve({
          reservationId,
          ttlMs: RESERVATION_TTL_MS,
          now: this.now(),
          scopes: scopes.map((s) => ({
            key: s.key,
            periodId: s.period_id,
            limit: s.limit,
            estimate: estimated[s.unit],
            ...(s.held_by !== undefined ? { heldBy: s.held_by } : {}),
          })),
        }),
      );
      if (result.outcome === 'reserved') break;
      if (result.outcome === 'exhausted')
        throw new BudgetExceededError(scopes.find((s) => s.key === result.key) ?? (scopes[0] as BudgetScopeV1), result.used);
      await sleep(backoff, call.signal);
    }
    let result: T;
    try {
      result = await work();
    } catch (error) {
      const spent = billedCallsOf(error);
      if (spent.length > 0) await counted(store.settle(reservationId, this.charges(scopes, spent)));
      else
        await counted(
          store.release(
            reservationId,
            scopes.map((s) => s.key),
          ),
        );
      throw error;
    }
    await counted(store.settle(reservationId, this.charges(scopes, billed(result))));
    return result;
  }

  /** The step's provider with every `generate` run within the budgets. */
  provider(provider: LlmProvider, scopes: readonly BudgetScopeV1[] | undefined): LlmProvider {
    if (!scopes || scopes.length === 0) return provider;
    return {
      name: provider.name,
      model: provider.model,
      generate: <I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> => {
        const estimate = estimateCall(request);
        return this.run(
          scopes,
          { provider: provider.name, model: provider.model, ...estimate, signal: request.signal },
          () => provider.generate<I, O>(request),
          (response) => [...(response.billedBefore ?? []), { provider: response.provider, model: response.model, usage: response.usage }],
        );
      },
    };
  }
}
