/**
 * An agent's retrieval settings (docs/data-model.md#retrieval: `max_results`, `threshold`, `sources`): how many
 * knowledge chunks a turn recalls at most, the fused relevance score (0 … 1) a chunk needs to be recalled, and
 * which knowledge sources it recalls from (empty: every source the agent may read).
 *
 * The defaults (5 chunks, threshold 0.5) hold for the offline embedder too: over the bundled demo document
 * (examples/acme-policies.md) the passage answering a policy question scores 0.6–0.8 and the runner-up sections
 * 0.2–0.35, so 0.5 keeps the answer and drops the neighbouring sections the former fixed 0.15 also recalled (ADR 0030).
 */
export interface RetrievalSettings {
  max_results: number;
  threshold: number;
  sources: string[];
}

export const RETRIEVAL_LIMITS = { maxResults: { min: 1, max: 20 }, threshold: { min: 0, max: 1 }, maxSources: 100 } as const;

export const DEFAULT_RETRIEVAL: Readonly<RetrievalSettings> = Object.freeze({ max_results: 5, threshold: 0.5, sources: [] as string[] });

/** The settings with the defaults filled in (agents stored before `retrieval` existed read with the defaults). */
export function retrievalOf(stored: Partial<RetrievalSettings> | undefined): RetrievalSettings {
  return {
    max_results: stored?.max_results ?? DEFAULT_RETRIEVAL.max_results,
    threshold: stored?.threshold ?? DEFAULT_RETRIEVAL.threshold,
    sources: [...(stored?.sources ?? DEFAULT_RETRIEVAL.sources)],
  };
}

/** The recall request's fields for an agent's settings (`source_ids` only when the agent narrows its sources). */
export function recallSettings(stored: Partial<RetrievalSettings> | undefined): {
  max_results: number;
  threshold: number;
  source_ids?: string[];
} {
  const settings = retrievalOf(stored);
  return {
    max_results: settings.max_results,
    threshold: settings.threshold,
    ...(settings.sources.length > 0 ? { source_ids: settings.sources } : {}),
  };
}
