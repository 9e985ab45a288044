import type { Criticality, MatchableGuideline } from './guideline-matching.js';

/**
 * Parlant's applied-guideline tracking (src/parlant/core/engines/alpha/engine.py `_add_agent_state`,
 * generic_guideline_matching_strategy.py `create_matching_batches`):
 *
 * - After a reply, the matched guidelines it applied are added to the session's applied list. Parlant asks an
 *   LLM (response analysis); Tenet's reply cites the guideline ids it followed, so the cited ones are applied.
 * - Never recorded as applied: observations (no action), continuous guidelines, and low-criticality ones —
 *   Parlant leaves all three out of response analysis. (Parlant also skips journey-node and transient
 *   guidelines and those with `track=false`; Tenet has none of those.)
 * - Next turn, a non-continuous guideline with an action that is in the applied list goes to the LLM flagged
 *   `previously_applied`: it applies again only if its condition arose anew. A continuous guideline is always
 *   evaluated afresh, whatever the list says.
 */

/** Step before prefiltering: flags each candidate that a reply already applied, so the prompt can ask whether its condition arose anew. */
export function withApplicationHistory<G extends MatchableGuideline>(
  guidelines: readonly G[],
  appliedIds: Iterable<string>,
): (G & { previously_applied: boolean })[] {
  const applied = new Set(appliedIds);
  return guidelines.map((g) => ({ ...g, previously_applied: applied.has(g.id) && g.action !== undefined && g.continuous !== true }));
}

/** What `appliedAfterReply` needs to know of a match; a `GuidelineMatch` is one. */
export interface AppliedCandidate {
  guideline_id: string;
  action?: string;
  continuous?: boolean;
  criticality?: Criticality;
}

/**
 * After the reply: which of this turn's matches it applied — the ones it cites, minus those that are never
 * tracked (observations, continuous and low-criticality guidelines). A cited id that did not match is ignored.
 * The result is this turn's addition; the session keeps the union over its turns.
 */
export function appliedAfterReply(matched: readonly AppliedCandidate[], citedIds: readonly string[]): string[] {
  const cited = new Set(citedIds);
  const applied = new Set<string>();
  for (const m of matched) {
    if (m.action === undefined || m.continuous === true || m.criticality === 'low') continue;
    if (cited.has(m.guideline_id)) applied.add(m.guideline_id);
  }
  return [...applied];
}
