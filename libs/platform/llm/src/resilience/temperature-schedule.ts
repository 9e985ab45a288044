import { InvalidStructuredOutputError, ProviderUnavailableError, type LlmError } from '../errors.js';
import type { LlmProvider, LlmRequest, LlmResponse } from '../llm.port.js';

export interface ScheduleAttempt {
  temperature: number;
  /** Why this attempt did not answer; absent for the attempt that did. */
  error?: LlmError;
}

export interface ScheduledResponse<O> {
  response: LlmResponse<O>;
  /** Every attempt made, in order; the last one answered. */
  attempts: ScheduleAttempt[];
}

const worthAnotherTemperature = (error: unknown): error is InvalidStructuredOutputError | ProviderUnavailableError =>
  error instanceof InvalidStructuredOutputError || error instanceof ProviderUnavailableError;

/**
 * Sends the request at each temperature in turn until one answers: an answer out of schema is often fixed by
 * sampling differently (usually: start at 0, then warmer), and a provider that rejected or dropped the request
 * (`LLM.UNAVAILABLE`, after the adapter's own retries) gets another chance. Other errors — rate limits (the
 * adapter already waited what the provider asked), authentication, unsupported tasks, bugs — end the schedule
 * at once. When every temperature fails, the last attempt's error is thrown.
 */
export async function generateWithSchedule<I, O>(provider: LlmProvider, request: LlmRequest<I>, temperatures: readonly number[]): Promise<ScheduledResponse<O>> {
  if (temperatures.length === 0) throw new RangeError('generateWithSchedule needs at least one temperature');
  const attempts: ScheduleAttempt[] = [];
  for (const [i, temperature] of temperatures.entries()) {
    try {
      const response = await provider.generate<I, O>({ ...request, temperature });
      attempts.push({ temperature });
      return { response, attempts };
    } catch (error) {
      if (!worthAnotherTemperature(error) || i === temperatures.length - 1) throw error;
      attempts.push({ temperature, error });
    }
  }
  throw new RangeError('unreachable: the last temperature either answers or throws');
}
