import { AuthenticationError, InvalidStructuredOutputError, ProviderUnavailableError, RateLimitedError } from '../errors.js';
import type { LlmProvider, LlmRequest, LlmResponse } from '../llm.port.js';
import { billedCallsOf, generateWithRepair, withBilled, type RepairOutcome } from './repair.js';

/**
 * The failures a second provider can help with: the primary is down or refusing the request, throttling us after
 * its own retries, rejecting our key, or answering out of schema. Anything else — an unsupported task, a bug in
 * the caller — would fail the fallback the same way, so it reaches the caller unchanged.
 */
export const fallsBack = (error: unknown): boolean =>
  error instanceof ProviderUnavailableError ||
  error instanceof RateLimitedError ||
  error instanceof AuthenticationError ||
  error instanceof InvalidStructuredOutputError;

const retryable = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;

/** A provider that answers through `fallback` when `primary` fails in a way another provider may not (docs/data-model.md#fallback). */
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

  /**
   * The primary, repaired once when its answer breaks the schema (`generateWithRepair`), then the fallback; a
   * cancelled request (its signal fired) never falls back. Billed calls of the failed attempts travel on in
   * `billedBefore` or on the thrown error.
   */
  async generate<I, O>(request: LlmRequest<I>): Promise<LlmResponse<O>> {
    let primaryError: unknown;
    try {
      return (await generateWithRepair<I, O>(this.primary, request)).response;
    } catch (error) {
      if (!fallsBack(error) || request.signal?.aborted) throw error;
      primaryError = error;
    }
    const billed = billedCallsOf(primaryError);
    try {
      const response = await this.fallback.generate<I, O>(request);
      // In a chain the fallback may have fallen back itself: the outermost primary is the configured provider, name it.
      return {
        ...response,
        fallbackFrom: `${this.primary.name}/${this.primary.model}`,
        billedBefore: [...billed, ...(response.billedBefore ?? [])],
      };
    } catch (fallbackError) {
      // Retry decisions depend on the error: report the primary's unless only the fallback's is worth retrying.
      throw withBilled(retryable(fallbackError) && !retryable(primaryError) ? fallbackError : primaryError, [
        ...billed,
        ...billedCallsOf(fallbackError),
      ]);
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

/**
 * What a task asks of its provider (docs/reliability.md#model-output-that-breaks-the-schema): the answer, or — when it breaks the schema — one repair with
 * the validation error, then the agent's fallback provider (when it has one), then the error. A `FallbackProvider`
 * repairs its primary itself, so it is called once; any other provider is repaired here.
 */
export async function generateWithRecovery<I, O>(
  provider: LlmProvider,
  request: LlmRequest<I>,
  repairTemperature?: number,
): Promise<RepairOutcome<O>> {
  if (!(provider instanceof FallbackProvider)) return generateWithRepair<I, O>(provider, request, repairTemperature);
  const response = await provider.generate<I, O>(request);
  return { response, repaired: (response.billedBefore?.length ?? 0) > 0 };
}
