import { LLM_USAGE_EVENT_TYPE, usageStreamId, type CallUsageV1, type LlmUsageData } from '@tenet/contracts';
import type { EventStore, NewEvent } from '@tenet/event-store';
import type { UsageRecord, UsageSink } from '@tenet/llm';
import { estimateCostUsd, priceTableFrom, type PriceTable } from '@tenet/metering-domain';
import { traceHeaders } from '@tenet/observability';

/**
 * Where the gateway records the LLM calls a turn made (the matcher reports each call's tokens in its reply):
 * each becomes a usage event (a token record: docs/data-model.md#budgets) on the agent's `usage-<agentId>` stream, priced from
 * the table. The log is the outbox: the relay publishes it as `tenet.v1.metering.<agent>.llm_usage_recorded`,
 * which the metering service consumes. Also a `UsageSink` for `withUsageReporting` around a local provider.
 */
export class UsageStreamSink implements UsageSink {
  constructor(
    private readonly store: EventStore,
    private readonly prices: PriceTable,
  ) {}

  /** A call the matcher made for a turn (or an evaluation: no session), as it reported it; resolves to its estimated cost. */
  async recordCall(agentId: string, sessionId: string | undefined, usage: CallUsageV1): Promise<number> {
    const [cost] = await this.recordCalls(agentId, sessionId, [usage]);
    return cost ?? 0;
  }

  /**
   * The calls of one reply (a matcher reply may report several), in one append — one write for all of them, each
   * still its own usage event — resolving to each call's estimated cost, in order.
   */
  async recordCalls(agentId: string, sessionId: string | undefined, calls: readonly CallUsageV1[]): Promise<number[]> {
    const at = new Date();
    const events = calls.map((usage) =>
      this.usageEvent({
        agentId,
        ...(sessionId !== undefined ? { sessionId } : {}),
        purpose: usage.purpose,
        provider: usage.provider,
        model: usage.model,
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        latencyMs: usage.latency_ms,
        ...(usage.fallback_from !== undefined ? { fallbackFrom: usage.fallback_from } : {}),
        at,
      }),
    );
    if (events.length > 0) await this.store.append(usageStreamId(agentId), events);
    return calls.map((usage) => estimateCostUsd(this.prices, usage.provider, usage.model, usage.input_tokens, usage.output_tokens));
  }

  /** The estimated cost of tokens on a model (0 for a model missing from the price table). */
  costOf(provider: string, model: string, inputTokens: number, outputTokens: number): number {
    return estimateCostUsd(this.prices, provider, model, inputTokens, outputTokens);
  }

  async record(usage: UsageRecord): Promise<void> {
    if (usage.agentId === undefined) return;
    await this.store.append(usageStreamId(usage.agentId), [this.usageEvent({ ...usage, agentId: usage.agentId })]);
  }

  private usageEvent(usage: UsageRecord & { agentId: string }): NewEvent {
    const record: LlmUsageData = {
      agent_id: usage.agentId,
      ...(usage.sessionId !== undefined ? { session_id: usage.sessionId } : {}),
      purpose: usage.purpose,
      provider: usage.provider,
      model: usage.model,
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cost_estimate_usd: estimateCostUsd(this.prices, usage.provider, usage.model, usage.inputTokens, usage.outputTokens),
      latency_ms: Math.round(usage.latencyMs * 1000) / 1000,
      ...(usage.fallbackFrom !== undefined ? { fallback_from: usage.fallbackFrom } : {}),
    };
    // Inside a traced turn, the trace context rides along: metering's span of this record joins the turn's trace.
    const trace_context = traceHeaders();
    return { type: LLM_USAGE_EVENT_TYPE, data: record, ...(Object.keys(trace_context).length > 0 ? { metadata: { trace_context } } : {}) };
  }
}

/** Reads TENET_PRICES over the defaults (now in metering-domain: the matcher prices budget reservations with it too). */
export { priceTableFrom };
