import type { RecallRequestV1, RecallResponseV1 } from '@tenet/contracts';
import type { CustomerMemoryStore } from './customer-memory.store.js';
import type { KnowledgeService } from './knowledge.service.js';

export const RECALL_DEFAULTS = { maxResults: 5, threshold: 0.15, maxTokens: 1_500 } as const;

/** Token estimate used for the budget: ~4 characters per token (the same rule as the offline provider). */
const tokensOf = (text: string): number => Math.ceil(text.length / 4);

/**
 * Per-turn recall: the customer's facts true now, then the knowledge chunks most relevant to the message, best
 * first, keeping the total within `max_tokens`. Facts go first (short, always about this customer); a chunk
 * that would overflow the budget is left out and `truncated` says so.
 */
export async function recall(request: RecallRequestV1, memory: CustomerMemoryStore, knowledge: KnowledgeService): Promise<RecallResponseV1> {
  const budget = request.max_tokens ?? RECALL_DEFAULTS.maxTokens;
  const [facts, hits] = await Promise.all([
    request.customer_id ? memory.facts(request.customer_id) : Promise.resolve([]),
    // A message of only spaces passes the contract but has nothing to search for.
    request.message.trim() === ''
      ? Promise.resolve([])
      : knowledge.search({
          query: request.message,
          agentId: request.agent_id,
          maxResults: request.max_results ?? RECALL_DEFAULTS.maxResults,
          threshold: request.threshold ?? RECALL_DEFAULTS.threshold,
        }),
  ]);
  let used = 0;
  let truncated = false;
  const fits = (text: string): boolean => {
    const cost = tokensOf(text);
    if (used + cost > budget) {
      truncated = true;
      return false;
    }
    used += cost;
    return true;
  };
  const keptFacts = [...facts]
    .sort((a, b) => b.recordedAt - a.recordedAt)
    .filter((f) => fits(`${f.subject} ${f.predicate} ${f.object}`))
    .map((f) => ({ fact_id: f.factId, subject: f.subject, predicate: f.predicate, object: f.object, confidence: f.confidence, recorded_at: new Date(f.recordedAt).toISOString() }));
  const keptSources = hits
    .filter((h) => fits(`${h.title} ${h.heading}\n${h.chunkText}`))
    .map((h) => ({ source_id: h.sourceId, chunk_id: h.chunkId, title: h.title, url: h.url ?? null, heading: h.heading, score: h.score, chunk_text: h.chunkText }));
  return { facts: keptFacts, sources: keptSources, estimated_tokens: used, truncated };
}
