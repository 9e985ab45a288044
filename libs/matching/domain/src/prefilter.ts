import { MatchingDomainError } from './errors.js';
import type { MatchableGuideline } from './guideline-matching.js';
import { endpointMembers, type GuidelineRelationship } from './relationships.js';

export type KeptBecause = 'similarity' | 'high_criticality' | 'previously_applied' | 'continuous' | 'journey_active' | 'relationship';

/**
 * Cosine similarity of two vectors (plain arrays or typed arrays such as the cache's `Float32Array`s). A missing
 * (empty) or all-zero vector is similar to nothing (0). Vectors of different dimensions come from different
 * embedding models and cannot be compared: that throws `MATCHING.VECTOR_DIMENSION` rather than returning a
 * meaningless number.
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length === 0 || b.length === 0) return 0;
  if (a.length !== b.length)
    throw new MatchingDomainError(
      'MATCHING.VECTOR_DIMENSION',
      `cannot compare a ${a.length}-dimension vector with a ${b.length}-dimension one`,
    );
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
 * The always-keep cap when none is given: `max(k, 40)`. At the default k = 40 that is 40 — more than the 21 high
 * and 11 continuous guidelines a 1000-guideline agent with 2 % high and 1 % continuous has, so a normally
 * modelled agent loses nothing — and an agent that marks 400 of 1000 guidelines high sends at most k + 40 = 80
 * rule-kept and similar guidelines (plus relationship partners), one LLM batch, instead of all 400.
 */
export const MIN_ALWAYS_KEEP_CAP = 40;
export const defaultAlwaysKeepCap = (k: number): number => Math.max(Math.floor(k), MIN_ALWAYS_KEEP_CAP);

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
  vectors?: ReadonlyMap<string, ArrayLike<number>>;
  /** The embedding of the conversation's latest turns. */
  query?: ArrayLike<number>;
  /**
   * Each candidate's similarity to the conversation, computed elsewhere (the matcher's hybrid ranking — embedding
   * cosine fused with BM25 — or either alone). Given, it replaces `vectors` and `query`; a candidate without a
   * score has similarity 0.
   */
  similarity?: ReadonlyMap<string, number>;
  /** How many of the most similar candidates to keep. `k` ≥ the number of candidates keeps them all. */
  k: number;
  /** The always-keep rules' inputs. The same fields at the top level are the older spelling and still work. */
  alwaysKeep?: AlwaysKeep;
  /**
   * At most this many candidates are kept by an always-keep rule (high criticality, previously applied,
   * continuous, active journey) on top of the `k` most similar; relationship partners are not counted. Default
   * `defaultAlwaysKeepCap(k)` = max(k, 40); `Infinity` turns the cap off. See `prefilterCandidates`.
   */
  alwaysKeepCap?: number;
}

/** A candidate an always-keep rule wanted that the cap left out. */
export interface DroppedByCap {
  id: string;
  reason: KeptBecause;
  similarity: number;
}

export interface PrefilterResult {
  /** In candidate order. */
  kept: MatchableGuideline[];
  /** Why each kept candidate was kept (the first reason that applies, in the order of `KeptBecause`). */
  reasons: Map<string, KeptBecause>;
  similarity: Map<string, number>;
  /** The always-keep cap applied, and what it left out (best ranked first); `dropped` is empty when it did not bind. */
  cap: { limit: number; wanted: number; dropped: DroppedByCap[] };
}

/**
 * The embedding prefilter that keeps LLM work flat as an agent grows (ADR 0008). The `k` candidates most similar
 * to the conversation go to the LLM (ties by id), plus every candidate a weak embedding must never hide:
 *
 * - `high_criticality` — marking a guideline high is the modeller's guarantee that it is evaluated (within the
 *   cap below, which only an agent marking more than max(k, 40) guidelines high reaches);
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
 *
 * The rules are capped (`alwaysKeepCap`, default max(k, 40)): an agent that marks 400 of 1000 guidelines high
 * would otherwise send all 400 every turn, and its token cost would follow its modelling instead of `k`. When more
 * candidates than the cap qualify for a rule (beyond the `k` already kept by similarity), they are ranked —
 * high-criticality and active-journey ones first (the modeller's explicit guarantee, and the conversation's
 * current journey), then previously applied and continuous ones; by similarity within each tier, ties by id —
 * and the first `cap` are kept. The rest are reported in `cap.dropped`. Relationship partners are added after the
 * cap and are not counted against it: they are what the kept guidelines need to be resolved correctly, and they
 * are bounded by the relationships the agent declares.
 */
export function prefilterCandidates(input: PrefilterInput): PrefilterResult {
  const previouslyApplied = new Set([...(input.alwaysKeep?.previouslyApplied ?? []), ...(input.previouslyApplied ?? [])]);
  const activeJourneyId = input.alwaysKeep?.activeJourneyId ?? input.activeJourneyId;
  const relationships = [...(input.alwaysKeep?.relationships ?? []), ...(input.relationships ?? [])];
  if (Number.isNaN(input.k)) throw new MatchingDomainError('MATCHING.INVALID_OPTION', 'k must be a number, got NaN');
  const k = Math.max(0, Math.floor(Number.isFinite(input.k) ? input.k : input.candidates.length));
  const limit = input.alwaysKeepCap ?? defaultAlwaysKeepCap(k);
  if (Number.isNaN(limit) || limit < 0)
    throw new MatchingDomainError('MATCHING.INVALID_OPTION', `alwaysKeepCap must be a non-negative number, got ${limit}`);

  const given = input.similarity;
  const query = input.query ?? [];
  const similarity = new Map(
    input.candidates.map((g) => [g.id, given ? (given.get(g.id) ?? 0) : cosineSimilarity(query, input.vectors?.get(g.id) ?? [])]),
  );
  const score = (id: string): number => similarity.get(id) ?? 0;
  const reasons = new Map<string, KeptBecause>();
  const bySimilarity = (a: MatchableGuideline, b: MatchableGuideline): number => score(b.id) - score(a.id) || a.id.localeCompare(b.id);
  const ranked = [...input.candidates].sort(bySimilarity);
  for (const g of ranked.slice(0, k)) reasons.set(g.id, 'similarity');

  const journeyActive = (g: MatchableGuideline): boolean => g.journey_id !== undefined && g.journey_id === activeJourneyId;
  const ruleOf = (g: MatchableGuideline): KeptBecause | undefined => {
    if (g.criticality === 'high') return 'high_criticality';
    if (g.previously_applied === true || previouslyApplied.has(g.id)) return 'previously_applied';
    if (g.continuous === true) return 'continuous';
    if (journeyActive(g)) return 'journey_active';
    return undefined;
  };
  const tier = (g: MatchableGuideline): number => (g.criticality === 'high' || journeyActive(g) ? 0 : 1);
  const wanted = ranked.flatMap((g) => {
    const rule = reasons.has(g.id) ? undefined : ruleOf(g);
    return rule ? [{ g, rule }] : [];
  });
  wanted.sort((a, b) => tier(a.g) - tier(b.g) || bySimilarity(a.g, b.g));
  const allowed = wanted.slice(0, limit);
  for (const { g, rule } of allowed) reasons.set(g.id, rule);

  // Relationship partners, to a fixed point: each round can only add, so it ends within |candidates| rounds.
  const candidateIds = new Set(input.candidates.map((g) => g.id));
  const members = (endpoint: GuidelineRelationship['source']): string[] =>
    endpointMembers(endpoint, input.candidates).filter((id) => candidateIds.has(id));
  const keep = (ids: readonly string[]): boolean => {
    let added = false;
    for (const id of ids) {
      if (reasons.has(id)) continue;
      reasons.set(id, 'relationship');
      added = true;
    }
    return added;
  };
  for (let grew = true; grew;) {
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
  // A candidate the cap left out may come back as a relationship partner: then it is kept, not dropped.
  const dropped = wanted
    .slice(allowed.length)
    .filter(({ g }) => !reasons.has(g.id))
    .map(({ g, rule }) => ({ id: g.id, reason: rule, similarity: score(g.id) }));
  return { kept: input.candidates.filter((g) => reasons.has(g.id)), reasons, similarity, cap: { limit, wanted: wanted.length, dropped } };
}
