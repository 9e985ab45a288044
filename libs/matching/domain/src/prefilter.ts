import type { MatchableGuideline } from './guideline-matching.js';
import type { GuidelineRelationship } from './relationships.js';

export type KeptBecause = 'similarity' | 'high_criticality' | 'previously_applied' | 'continuous' | 'journey_active' | 'relationship';

export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * The embedding prefilter that keeps LLM work flat as an agent grows: only the `k` guidelines most similar to
 * the conversation go to the LLM — plus every guideline that must never be missed because of a weak embedding:
 * high criticality, previously applied (its re-application must be judged), continuous, journey-scoped while
 * the journey is active, and guidelines tied by dependency/entailment/disambiguation to a kept one (a
 * relationship can only be resolved if both ends were evaluated). What it drops was ranked below `k` on
 * similarity; docs/benchmarks.md reports its recall on a labelled set.
 */
export function prefilterCandidates(input: {
  candidates: readonly MatchableGuideline[];
  vectors: ReadonlyMap<string, readonly number[]>;
  query: readonly number[];
  k: number;
  previouslyApplied?: ReadonlySet<string>;
  activeJourneyId?: string;
  relationships?: readonly GuidelineRelationship[];
}): { kept: MatchableGuideline[]; reasons: Map<string, KeptBecause>; similarity: Map<string, number> } {
  const similarity = new Map(input.candidates.map((g) => [g.id, cosineSimilarity(input.query, input.vectors.get(g.id) ?? [])]));
  const reasons = new Map<string, KeptBecause>();
  const score = (id: string): number => similarity.get(id) ?? 0;
  const ranked = [...input.candidates].sort((a, b) => score(b.id) - score(a.id) || a.id.localeCompare(b.id));
  for (const g of ranked.slice(0, input.k)) reasons.set(g.id, 'similarity');
  for (const g of input.candidates) {
    if (reasons.has(g.id)) continue;
    if (g.criticality === 'high') reasons.set(g.id, 'high_criticality');
    else if (input.previouslyApplied?.has(g.id)) reasons.set(g.id, 'previously_applied');
    else if (g.continuous) reasons.set(g.id, 'continuous');
    else if (g.journey_id !== undefined && g.journey_id === input.activeJourneyId) reasons.set(g.id, 'journey_active');
  }
  // Relationship closure: both ends of a dependency, entailment or disambiguation must be evaluated together.
  const byTag = (tag: string) => input.candidates.filter((g) => g.tags?.includes(tag)).map((g) => g.id);
  const ends = (e: GuidelineRelationship['source']) => (e.type === 'guideline' ? [e.id] : byTag(e.id));
  const candidateIds = new Set(input.candidates.map((g) => g.id));
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of input.relationships ?? []) {
      if (r.kind === 'priority') continue;
      const linked = [...ends(r.source), ...ends(r.target)];
      if (!linked.some((id) => reasons.has(id))) continue;
      for (const id of linked) {
        if (candidateIds.has(id) && !reasons.has(id)) {
          reasons.set(id, 'relationship');
          grew = true;
        }
      }
    }
  }
  return { kept: input.candidates.filter((g) => reasons.has(g.id)), reasons, similarity };
}

/**
 * Splits candidates into as few batches as fit `maxBatchTokens` each, and never more than `maxBatches`: when they
 * do not fit, the batches are made even and each exceeds the budget — a guideline is never dropped to fit.
 */
export function planBatches<G>(candidates: readonly G[], options: { maxBatchTokens: number; maxBatches: number; estimateTokens: (g: G) => number }): G[][] {
  if (candidates.length === 0) return [];
  const total = candidates.reduce((sum, g) => sum + options.estimateTokens(g), 0);
  const count = Math.min(options.maxBatches, Math.max(1, Math.ceil(total / options.maxBatchTokens)), candidates.length);
  const target = total / count;
  let current: G[] = [];
  const batches: G[][] = [current];
  let size = 0;
  for (const g of candidates) {
    const tokens = options.estimateTokens(g);
    if (size > 0 && size + tokens > target * 1.0001 && batches.length < count) {
      current = [];
      batches.push(current);
      size = 0;
    }
    current.push(g);
    size += tokens;
  }
  return batches;
}
