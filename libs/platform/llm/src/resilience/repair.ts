import { cancelledCall, InvalidStructuredOutputError } from '../errors.js';
import { conversationOf, type BilledCall, type LlmProvider, type LlmRequest, type LlmResponse } from '../llm.port.js';

/** How an answer was obtained (`provenance.attempts`). */
export interface RepairOutcome<O> {
  response: LlmResponse<O>;
  /** The first answer broke the schema and the model was asked once more with the validation error. */
  repaired: boolean;
}

/** The billed calls an error carries (answers out of schema, calls before a fallback), for metering. */
export const billedCallsOf = (error: unknown): BilledCall[] => {
  const billed = (error as { billed?: unknown } | undefined)?.billed;
  return Array.isArray(billed) ? (billed as BilledCall[]) : [];
};

const withBilled = (error: unknown, billed: readonly BilledCall[]): unknown => {
  if (billed.length > 0 && typeof error === 'object' && error !== null) (error as { billed?: BilledCall[] }).billed = [...billed];
  return error;
};

/** The message that gives the model its validation error. */
const repairMessage = (error: InvalidStructuredOutputError): string =>
  `Your previous answer did not match the required "${error.schemaName}" schema at ${error.path}: ${error.problems.join('; ')}. Answer again with output that follows the schema exactly.`;

/**
 * One request, and — when the answer breaks the schema — once more with the validation error appended as a user
 * message (docs/reliability.md#model-output-that-breaks-the-schema), at `repairTemperature` if given. Any other failure, or a second answer out of schema,
 * is thrown; the error carries every billed call (`billedCallsOf`), and an answer after a repair carries the first
 * one in `billedBefore`. Nothing is sent once `request.signal` has fired.
 */
export async function generateWithRepair<I, O>(
  provider: LlmProvider,
  request: LlmRequest<I>,
  repairTemperature?: number,
): Promise<RepairOutcome<O>> {
  if (request.signal?.aborted) throw cancelledCall(provider.name);
  let first: InvalidStructuredOutputError;
  try {
    return { response: await provider.generate<I, O>(request), repaired: false };
  } catch (error) {
    if (!(error instanceof InvalidStructuredOutputError) || request.signal?.aborted) throw error;
    first = error;
  }
  const billed = [...first.billed];
  try {
    const response = await provider.generate<I, O>({
      ...request,
      messages: [...conversationOf(request), { role: 'user', content: repairMessage(first) }],
      prompt: undefined,
      ...(repairTemperature !== undefined ? { temperature: repairTemperature } : {}),
    });
    return { response: { ...response, billedBefore: [...billed, ...(response.billedBefore ?? [])] }, repaired: true };
  } catch (error) {
    throw withBilled(error, [...billed, ...billedCallsOf(error)]);
  }
}

export { withBilled };
