import { AuthenticationError, InvalidStructuredOutputError, ProviderUnavailableError, RateLimitedError } from '../errors.js';
import type { LlmProvider, LlmRequest, LlmResponse } from '../llm.port.js';

/**
 * The failures a second provider can help with: the primary is down or refusing the request, throttling us after
 * its own retries, rejecting our key, or answering out of schema. Anything else — an unsupported task, a bug in
 * the caller — would fail the fallback the same way, so it reaches the caller unchanged.
 */
export const fallsBack = (error: unknown): boolean =>
  error instanceof ProviderUnavailableError || error instanceof RateLimitedError || error instanceof AuthenticationError || error instanceof InvalidStructuredOutputError;

const retryable = (error: unknown): boolean => typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;

/** A provider that answers through `fallback` when `primary` fails in a way another provider may not (seed 002 `AgentDef.fallback`). */
export class FallbackProvider implements LlmProvider {
  /** The primary's: the provider the agent is configured for. Responses name the one that actually answered. */
  readonly name: string;
  readonly model: string;

  constructor(
    readonly primary: LlmProvider,
    readonly fallback: LlmProvider,
  ) {
    this.name = primary.name;
    this.model = primary.model;
  }

  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    let primaryError: unknown;
    try {
      return await this.primary.generate<I, O>(request);
    } catch (error) {
      if (!fallsBack(error)) throw error;
      primaryError = error;
    }
    try {
      const response = await this.fallback.generate<I, O>(request);
      // In a chain the fallback may have fallen back itself: the outermost primary is the configured provider, name it.
      return { ...response, fallbackFrom: `${this.primary.name}/${this.primary.model}` };
    } catch (fallbackError) {
      // Retry decisions depend on the error: report the primary's unless only the fallback's is worth retrying.
      throw retryable(fallbackError) && !retryable(primaryError) ? fallbackError : primaryError;
    }
  }
}

/**
 * `primary`, answered by `fallback` when it fails with `LLM.UNAVAILABLE`, `LLM.RATE_LIMITED` (its retries
 * spent), `LLM.AUTHENTICATION` or `LLM.INVALID_OUTPUT`. The fallback's response carries `fallbackFrom`
 * (`provider/model` of the primary) so that usage records show the switch. When both fail, the primary's error
 * is thrown, unless only the fallback's is retryable.
 */
export function withFallback(primary: LlmProvider, fallback: LlmProvider): FallbackProvider {
  return new FallbackProvider(primary, fallback);
}
