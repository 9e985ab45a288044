import { MatchingDomainError } from './errors.js';
import type { MatchableGuideline } from './guideline-matching.js';
import { endpointMembers, type GuidelineRelationship } from './relationships.js';

export type KeptBecause = 'similarity' | 'high_criticality' | 'previously_applied' | 'continuous' | 'journey_active' | 'relationship';

/**
 * Cosine similarity of two vectors. A missing (empty) or all-zero vector is similar to nothing (0). Vectors of
 * different dimensions come from different embedding models and cannot be compared: that throws
 * `MATCHING.VECTOR_DIMENSION` rather than returning a meaningless number.
 */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  if (a.length !== b.length) throw new MatchingDomainError('MATCHING.VECTOR_DIMENSION', `cannot compare a ${a.length}-dimension vector with a ${b.length}-dimension one`);
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

/** What the prefilter keeps whatever its similarity. */
export interface AlwaysKeep {
  /** Guidelines a reply already applied in this session (a candidate's own `previously_applied` flag counts too). */
  previouslyApplied?: Iterable<string>;
  /** The active journey: its journey-scoped candidates are kept. */
  activeJourneyId?: string;
  /** The agent's relationships: partners of kept guidelines are kept (see `prefilterCandidates`). */
  relationships?: readonly GuidelineRelationship[];
}

export interface PrefilterInput extends AlwaysKeep {
  candidates: readonly MatchableGuideline[];
  /** Each candidate's embedding; a candidate without one has similarity 0 (it can still be kept for a reason). */
  vectors: ReadonlyMap<string, readonly number[]>;
  /** The embedding of the conversation's latest turns. */
  query: readonly number[];
  /** How many of the most similar candidates to keep. */
  k: number;
  /** The always-keep rules' inputs. The same fields at the top level are the older spelling and still work. */
  alwaysKeep?: AlwaysKeep;
}

export interface PrefilterResult {
  /** In candidate order. */
  kept: MatchableGuideline[];
  /** Why each kept candidate was kept (the first reason that applies, in the order of `KeptBecause`). */
  reasons: Map<string, KeptBecause>;
  similarity: Map<string, number>;
}

/**
 * The embedding prefilter that keeps LLM work flat as an agent grows (ADR 0008). The `k` candidates most similar
 * to the conversation go to the LLM (ties by id), plus every candidate a weak embedding must never hide:
 *
 * - `high_criticality` — marking a guideline high is the modeller's guarantee that it is evaluated;
 * - `previously_applied` — whether its condition arose anew has to be judged, not guessed from wording;
 * - `continuous` — it applies on every turn its condition holds, often with no words in common with the turn;
 * - `journey_active` — journey-scoped while its journey is active (candidates are journey-scoped already, step 2);
 * - `relationship` — partners of kept guidelines, followed transitively, because a relationship can only be
 *   resolved correctly if the ends it depends on were evaluated:
 *     dependency / dependency_any  kept source ⇒ its targets kept: else the source can never stay active;
 *     entailment                   kept source ⇒ its targets kept: the resolver would activate them anyway, but
 *                                  only an evaluated target gets its own score and extracted tool arguments;
 *     priority                     kept target ⇒ its sources kept: else the override can never fire;
 *     disambiguation               either end kept ⇒ the other ends kept: the ambiguity observation and the
 *                                  competing guidelines are only meaningful together.
 *   A tag endpoint stands for every candidate with that tag.
 */
export function prefilterCandidates(input: PrefilterInput): PrefilterResult {
  const previouslyApplied = new Set([...(input.alwaysKeep?.previouslyApplied ?? []), ...(input.previouslyApplied ?? [])]);
  const activeJourneyId = input.alwaysKeep?.activeJourneyId ?? input.activeJourneyId;
  const relationships = [...(input.alwaysKeep?.relationships ?? []), ...(input.relationships ?? [])];

  const similarity = new Map(input.candidates.map((g) => [g.id, cosineSimilarity(input.query, input.vectors.get(g.id) ?? [])]));
  const score = (id: string): number => similarity.get(id) ?? 0;
  const reasons = new Map<string, KeptBecause>();
  const ranked = [...input.candidates].sort((a, b) => score(b.id) - score(a.id) || a.id.localeCompare(b.id));
  for (const g of ranked.slice(0, Math.max(0, input.k))) reasons.set(g.id, 'similarity');

  for (const g of input.candidates) {
    if (reasons.has(g.id)) continue;
    if (g.criticality === 'high') reasons.set(g.id, 'high_criticality');
    else if (g.previously_applied === true || previouslyApplied.has(g.id)) reasons.set(g.id, 'previously_applied');
    else if (g.continuous === true) reasons.set(g.id, 'continuous');
    else if (g.journey_id !== undefined && g.journey_id === activeJourneyId) reasons.set(g.id, 'journey_active');
  }

  // Relationship partners, to a fixed point: each round can only add, so it ends within |candidates| rounds.
  const candidateIds = new Set(input.candidates.map((g) => g.id));
  const members = (endpoint: GuidelineRelationship['source']): string[] => endpointMembers(endpoint, input.candidates).filter((id) => candidateIds.has(id));
  const keep = (ids: readonly string[]): boolean => {
    let added = false;
    for (const id of ids) {
      if (reasons.has(id)) continue;
      reasons.set(id, 'relationship');
      added = true;
    }
    return added;
  };
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of relationships) {
      const sources = members(r.source);
      const targets = members(r.target);
      const anyKept = (ids: readonly string[]): boolean => ids.some((id) => reasons.has(id));
      switch (r.kind) {
        case 'dependency':
        case 'dependency_any':
        case 'entailment':
          if (anyKept(sources)) grew = keep(targets) || grew;
          break;
        case 'priority':
          if (anyKept(targets)) grew = keep(sources) || grew;
          break;
        case 'disambiguation':
          if (anyKept(sources) || anyKept(targets)) grew = keep([...sources, ...targets]) || grew;
          break;
        default:
          break;
      }
    }
  }
  return { kept: input.candidates.filter((g) => reasons.has(g.id)), reasons, similarity };
}
