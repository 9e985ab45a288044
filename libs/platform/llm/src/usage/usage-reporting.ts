import type { LlmProvider, LlmRequest, LlmResponse } from '../llm.port.js';

/** One successful LLM call's token usage, attributed to who asked and why. */
export interface UsageRecord {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  purpose: string;
  sessionId?: string;
  agentId?: string;
  /** When the answer arrived. */
  at: Date;
  latencyMs: number;
  /** The configured provider that failed (`provider/model`) when a fallback answered; see `withFallback`. */
  fallbackFrom?: string;
}

/** Where usage goes: the metering service publishes each record as an integration event. */
export interface UsageSink {
  record(usage: UsageRecord): void | Promise<void>;
}

/**
 * Reports every successful call's usage to the sink. Failed calls report nothing (the providers bill no
 * tokens we can see) and their errors reach the caller unchanged. The sink is awaited and its failure fails
 * the call: usage that cannot be recorded must not be silently lost, and the caller can retry the turn.
 */
export function withUsageReporting(provider: LlmProvider, sink: UsageSink, now: () => Date = () => new Date()): LlmProvider {
  return {
    name: provider.name,
    model: provider.model,
    async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
      const response = await provider.generate<I, O>(request);
      const { purpose, sessionId, agentId } = request.context;
      await sink.record({
        provider: response.provider,
        model: response.model,
        inputTokens: response.usage.inputTokens,
        outputTokens: response.usage.outputTokens,
        purpose,
        ...(sessionId !== undefined ? { sessionId } : {}),
        ...(agentId !== undefined ? { agentId } : {}),
        at: now(),
        latencyMs: response.latencyMs,
        ...(response.fallbackFrom !== undefined ? { fallbackFrom: response.fallbackFrom } : {}),
      });
      return response;
    },
  };
}
