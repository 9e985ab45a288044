import { LLM_USAGE_EVENT_TYPE, usageStreamId, type LlmUsageData } from '@tenet/contracts';
import type { EventStore } from '@tenet/event-store';
import type { LlmProvider, LlmRequest, LlmResponse } from '@tenet/llm';
import { estimateCostUsd, type PriceTable } from '@tenet/metering-domain';

/**
 * Wraps the provider so that every successful call appends a token record (seed 002 TokenRecord) to the
 * agent's `usage-<agentId>` stream, priced from the table; the relay publishes it as
 * `tenet.v1.metering.<agent>.llm_usage_recorded`. Provider errors pass through untouched.
 */
export class MeteredProvider implements LlmProvider {
  constructor(
    private readonly inner: LlmProvider,
    private readonly store: EventStore,
    private readonly prices: PriceTable,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  get model(): string {
    return this.inner.model;
  }

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    const response = await this.inner.generate<I, O>(request);
    const agentId = request.context.agentId;
    if (agentId !== undefined) {
      const record: LlmUsageData = {
        agent_id: agentId,
        ...(request.context.sessionId !== undefined ? { session_id: request.context.sessionId } : {}),
        purpose: request.context.purpose,
        provider: response.provider,
        model: response.model,
        input_tokens: response.usage.inputTokens,
        output_tokens: response.usage.outputTokens,
        cost_estimate_usd: estimateCostUsd(this.prices, response.provider, response.model, response.usage.inputTokens, response.usage.outputTokens),
        latency_ms: Math.round(response.latencyMs * 1000) / 1000,
      };
      await this.store.append(usageStreamId(agentId), [{ type: LLM_USAGE_EVENT_TYPE, data: record }]);
    }
    return response;
  }
}

/** Reads TENET_PRICES (JSON `{ "provider/model": { "inputPerMillion": n, "outputPerMillion": n } }`) over the defaults. */
export function priceTableFrom(env: Record<string, string | undefined>, defaults: PriceTable): PriceTable {
  const raw = env['TENET_PRICES'];
  if (!raw) return defaults;
  const parsed = JSON.parse(raw) as PriceTable;
  for (const [key, price] of Object.entries(parsed)) {
    if (!/^[^/]+\/.+$/.test(key) || typeof price?.inputPerMillion !== 'number' || typeof price.outputPerMillion !== 'number') {
      throw new TypeError(`TENET_PRICES entry "${key}" must be "provider/model": { inputPerMillion: number, outputPerMillion: number }`);
    }
  }
  return { ...defaults, ...parsed };
}
