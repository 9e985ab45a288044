/**
 * What a tool call of this turn returned, as the model reads it when it re-evaluates the guidelines and when it
 * composes the reply (Parlant feeds tool results back the same way). A failed call that the agent allows to
 * fail is reported too, so the reply can say the lookup did not work instead of inventing an answer.
 */
export interface ToolOutcome {
  /** `service:tool`, or the agent tool's name. */
  tool_id: string;
  arguments: Record<string, unknown>;
  status: 'succeeded' | 'failed';
  /** The tool's `result.data` when it succeeded. */
  data?: unknown;
  /** A customer-safe reason when it failed. */
  error?: string;
}

/** Keeps a prompt bounded however much data a tool returns. */
const MAX_RESULT_CHARS = 4_000;

const clip = (text: string): string => (text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}… (truncated)` : text);

/** The tool results as a prompt section (empty when no tool ran). */
export function toolResultsSection(results: readonly ToolOutcome[] | undefined): string {
  if (!results?.length) return '';
  const lines = results.map((r) =>
    r.status === 'succeeded'
      ? `- ${r.tool_id}(${JSON.stringify(r.arguments)}) returned: ${clip(JSON.stringify(r.data ?? null))}`
      : `- ${r.tool_id}(${JSON.stringify(r.arguments)}) FAILED: ${r.error ?? 'unknown error'} (do not make up its result)`,
  );
  return `\n\n[Tool results]\n${lines.join('\n')}`;
}
