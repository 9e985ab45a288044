import { BudgetExceededError, BudgetStoreMissingError } from '@tenet/metering-gate';
import { DEFAULT_RETRIEVAL } from '@tenet/memory-domain';
import type { RecallRequestV1, RecallResponseV1 } from '@tenet/contracts';
import type { CustomerMemoryStore } from './customer-memory.store.js';
import type { KnowledgeService } from './knowledge.service.js';

export const RECALL_DEFAULTS = {
  maxResults: DEFAULT_RETRIEVAL.max_results,
  threshold: DEFAULT_RETRIEVAL.threshold,
  maxTokens: 1_500,
} as const;
/** The share of the recall budget facts may take before the chunks have theirs. */
const FACT_SHARE = 0.5;

/** Token estimate used for the budget: ~4 characters per token (the same rule as the offline provider). */
const tokensOf = (text: string): number => Math.ceil(text.length / 4);

/**
 * Per-turn recall: the customer's facts true now (most recent first) and the knowledge chunks most relevant to
 * the message (best first), keeping the total within `max_tokens`. Facts first take up to FACT_SHARE of the
 * budget (short, always about this customer), then chunks the rest, then facts whatever the chunks left — so a
 * customer with a thousand facts does not crowd the documents out of the turn. Whatever does not fit is left out
 * and `truncated` says so. The query's embedding is charged to the turn's budgets (`request.budget`) and returned in
 * `calls`; a spent budget leaves the passages out (`truncated`) rather than make the call uncounted.
 */
export async function recall(
  request: RecallRequestV1,
  memory: CustomerMemoryStore,
  knowledge: KnowledgeService,
): Promise<RecallResponseV1> {
  const budget = request.max_tokens ?? RECALL_DEFAULTS.maxTokens;
  const [facts, searched] = await Promise.all([
    request.customer_id ? memory.facts(request.customer_id) : Promise.resolve([]),
    // A message of only spaces passes the contract but has nothing to search for.
    request.message.trim() === ''
      ? Promise.resolve({ hits: [], calls: [], refused: false })
      : knowledge
          .searchBilled(
            {
              query: request.message,
              agentId: request.agent_id,
              ...(request.workspace_id !== undefined ? { workspaceId: request.workspace_id } : {}),
              maxResults: request.max_results ?? RECALL_DEFAULTS.maxResults,
              threshold: request.threshold ?? RECALL_DEFAULTS.threshold,
              ...(request.source_ids ? { sourceIds: request.source_ids } : {}),
            },
            request.budget?.scopes,
          )
          .then(
            (found) => ({ ...found, refused: false }),
            // A spent budget (or none to count against): no embedding call, so no passages — the facts still come.
            (error: unknown) => {
              if (error instanceof BudgetExceededError || error instanceof BudgetStoreMissingError)
                return { hits: [], calls: [], refused: true };
              throw error;
            },
          ),
  ]);
  const { hits, calls } = searched;
  let used = 0;
  const fits = (text: string, limit: number): boolean => {
    const cost = tokensOf(text);
    if (used + cost > limit) return false;
    used += cost;
    return true;
  };
  const factText = (f: (typeof facts)[number]): string => `${f.subject} ${f.predicate} ${f.object}`;
  const byRecency = [...facts].sort((a, b) => b.recordedAt - a.recordedAt);
  const kept = new Set<(typeof facts)[number]>();
  const takeFacts = (limit: number): void => {
    for (const f of byRecency) if (!kept.has(f) && fits(factText(f), limit)) kept.add(f);
  };
  takeFacts(Math.floor(budget * FACT_SHARE));
  const keptHits = hits.filter((h) => fits(`${h.title} ${h.heading}\n${h.chunkText}`, budget));
  takeFacts(budget);
  const truncated = kept.size < facts.length || keptHits.length < hits.length || searched.refused;
  const keptFacts = byRecency
    .filter((f) => kept.has(f))
    .map((f) => ({
      fact_id: f.factId,
      subject: f.subject,
      predicate: f.predicate,
      object: f.object,
      confidence: f.confidence,
      recorded_at: new Date(f.recordedAt).toISOString(),
    }));
  const keptSources = keptHits.map((h) => ({
    source_id: h.sourceId,
    chunk_id: h.chunkId,
    title: h.title,
    url: h.url ?? null,
    heading: h.heading,
    section_path: h.sectionPath,
    chunk_index: h.chunkIndex,
    score: h.score,
    chunk_text: h.chunkText,
  }));
  return { facts: keptFacts, sources: keptSources, estimated_tokens: used, truncated, ...(calls.length > 0 ? { calls } : {}) };
}
