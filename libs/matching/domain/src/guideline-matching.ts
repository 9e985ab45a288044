/**
 * Guideline matching (docs/data-model.md#matching), the steps that need no LLM, as pure functions. The service composes them:
 *
 *   1. enabled filter                      candidatesFor
 *   2. journey scope                       scopeToJourneys            (journey-scope.ts)
 *   3. required context present            candidatesFor
 *      previously-applied flags            withApplicationHistory     (application-history.ts)
 *      embedding prefilter, batching       prefilterCandidates, planBatches (prefilter.ts, batching.ts)
 *   4. relevance                           — an input: the LLM provider scores each candidate
 *   5. relevance threshold                 scoredMatches
 *      relationships to a fixed point      resolveRelationships       (relationships.ts)
 *   6. sort: priority, criticality, relevance
 *   7. top N (high criticality never cut)  rankMatches
 *   8. tool parameters                     — an input: extracted by the LLM, validated by the service
 *   9. combined action, deduplicated tools rankMatches
 *
 * `selectMatches` runs 5–7 and 9 in one call for callers without relationships.
 */

export type Criticality = 'low' | 'medium' | 'high';

export interface MatchableGuideline {
  id: string;
  condition: string;
  /** Absent: an observation — it can match (and drive relationships) but asks the agent to do nothing. */
  action?: string;
  priority: number;
  enabled: boolean;
  tools: string[];
  required_context: string[];
  /**
   * Parlant's criticality; default `medium`. `high`: never cut by top N, always sent past the prefilter.
   * `low`: Parlant's "general principles" — ranked last among equal priority and never tracked as applied.
   */
  criticality?: Criticality;
  /**
   * Default `false`. A continuous guideline applies on every turn its condition holds. A non-continuous one,
   * once a reply applied it, is sent flagged `previously_applied` and only applies again if its condition
   * arises anew (Parlant: `metadata.continuous` and the previously-applied batch).
   */
  continuous?: boolean;
  /** Tags a relationship endpoint of type `tag` refers to. Default none. */
  tags?: string[];
  /** Applies only while this journey is active (matching step 2). Default: not journey-scoped. */
  journey_id?: string;
  /** With `journey_id`: applies only at this step of the journey. */
  journey_step?: string;
  /** Set by `withApplicationHistory`; default `false`. */
  previously_applied?: boolean;
}

export interface RelevanceScore {
  guideline_id: string;
  relevance: number;
  confidence: number;
  reasoning: string;
  /** Step 8: the LLM's extracted arguments per tool, already validated against each tool's schema. */
  tool_parameters?: Record<string, Record<string, unknown>>;
}

export interface GuidelineMatch {
  guideline_id: string;
  priority: number;
  criticality: Criticality;
  relevance_score: number;
  confidence: number;
  condition: string;
  action?: string;
  tools: string[];
  matched_context: Record<string, unknown>;
  reasoning: string;
  /** Step 8: arguments per tool, already checked against each tool's parameter schema. */
  tool_parameters: Record<string, Record<string, unknown>>;
  /** Present (true) for continuous guidelines: never recorded as applied. */
  continuous?: boolean;
  /** Present (true) when the guideline was sent to the LLM flagged as previously applied. */
  previously_applied?: boolean;
  /** Present when an entailment relationship activated this match: the entailing guideline. */
  entailed_by?: string;
}

export interface ToolExecution {
  tool_name: string;
  priority: number;
  guideline_id: string;
  parameters: Record<string, unknown>;
}

export interface GuidelineMatchResult {
  matches: GuidelineMatch[];
  top_matches: GuidelineMatch[];
  combined_action?: string;
  tools_to_execute: ToolExecution[];
}

export interface MatchingOptions {
  /** Default 0.3: relevance at or above it matches. */
  threshold: number;
  /** Default 3. High-criticality matches come on top of these. */
  topN: number;
}

export const defaultMatchingOptions: MatchingOptions = { threshold: 0.3, topN: 3 };

/** Steps 1 and 3: which guidelines are worth asking the LLM about at all. */
export function candidatesFor<G extends MatchableGuideline>(guidelines: readonly G[], context: Readonly<Record<string, unknown>>): G[] {
  return guidelines.filter((g) => g.enabled && g.required_context.every((name) => context[name] !== undefined));
}

const clamp01 = (value: number): number => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/** Step 5: the candidates the provider scored at or above the threshold, as matches (scores clamped into 0..1). */
export function scoredMatches(
  candidates: readonly MatchableGuideline[],
  scores: readonly RelevanceScore[],
  context: Readonly<Record<string, unknown>>,
  threshold: number = defaultMatchingOptions.threshold,
): GuidelineMatch[] {
  const byId = new Map(scores.map((s) => [s.guideline_id, s]));
  const matches: GuidelineMatch[] = [];
  for (const guideline of candidates) {
    const score = byId.get(guideline.id);
    if (!score) continue;
    const relevance = clamp01(score.relevance);
    if (relevance < threshold) continue;
    matches.push(toMatch(guideline, relevance, clamp01(score.confidence), score.reasoning, context, score.tool_parameters ?? {}));
  }
  return matches;
}

export function toMatch(
  guideline: MatchableGuideline,
  relevance: number,
  confidence: number,
  reasoning: string,
  context: Readonly<Record<string, unknown>>,
  toolParameters: Record<string, Record<string, unknown>> = {},
): GuidelineMatch {
  return {
    guideline_id: guideline.id,
    priority: guideline.priority,
    criticality: guideline.criticality ?? 'medium',
    relevance_score: relevance,
    confidence,
    condition: guideline.condition,
    ...(guideline.action !== undefined ? { action: guideline.action } : {}),
    tools: guideline.tools,
    matched_context: Object.fromEntries(guideline.required_context.map((name) => [name, context[name]])),
    reasoning,
    // Only the tools the guideline names: an LLM that extracts arguments for another tool does not schedule it.
    tool_parameters: Object.fromEntries(Object.entries(toolParameters).filter(([tool]) => guideline.tools.includes(tool))),
    ...(guideline.continuous ? { continuous: true } : {}),
    ...(guideline.previously_applied ? { previously_applied: true } : {}),
  };
}

const CRITICALITY_RANK: Record<Criticality, number> = { high: 2, medium: 1, low: 0 };

/** Step 6 order: priority (desc), then criticality (high first), then relevance (desc), then id for stability. */
export function compareMatches(a: GuidelineMatch, b: GuidelineMatch): number {
  return (
    b.priority - a.priority ||
    CRITICALITY_RANK[b.criticality] - CRITICALITY_RANK[a.criticality] ||
    b.relevance_score - a.relevance_score ||
    a.guideline_id.localeCompare(b.guideline_id)
  );
}

/**
 * Steps 6, 7 and 9.
 *
 * - Sort by priority, then criticality (high first among equal priority), then relevance.
 * - Top N: the first `topN` — plus every high-criticality match, which is never cut. So more than `topN` come
 *   out exactly when high-criticality matches fall outside the first `topN`; they keep their sorted position.
 * - The combined action joins the actions of the top matches in that order (observations have none).
 * - Tools: each tool once, from the highest-ranked top match naming it, with that match's extracted parameters.
 *   Only top matches schedule tools: a match cut by top N does not act.
 */
export function rankMatches(matches: readonly GuidelineMatch[], topN: number = defaultMatchingOptions.topN): GuidelineMatchResult {
  const sorted = [...matches].sort(compareMatches);
  const top = sorted.filter((m, index) => index < topN || m.criticality === 'high');
  const actions = top.flatMap((m) => (m.action ? [m.action] : []));
  const tools = new Map<string, ToolExecution>();
  for (const match of top) {
    for (const tool of match.tools) {
      if (!tools.has(tool))
        tools.set(tool, {
          tool_name: tool,
          priority: match.priority,
          guideline_id: match.guideline_id,
          parameters: match.tool_parameters[tool] ?? {},
        });
    }
  }
  return {
    matches: sorted,
    top_matches: top,
    ...(actions.length > 0 ? { combined_action: actions.join('\n') } : {}),
    tools_to_execute: [...tools.values()],
  };
}

/**
 * The ranking again without the matches `excluded` names (a journey's conditions: evaluated in the same call,
 * but with no action to take a top-N place with).
 */
export function rankWithout(
  matches: readonly GuidelineMatch[],
  excluded: (guidelineId: string) => boolean,
  topN: number = defaultMatchingOptions.topN,
): GuidelineMatchResult {
  return rankMatches(
    matches.filter((m) => !excluded(m.guideline_id)),
    topN,
  );
}

/**
 * Steps 5–7 and 9 over the candidates and the provider's relevance scores (with each score's extracted tool
 * parameters). Options are the agent's; any it leaves out take the defaults (docs/data-model.md#matching).
 */
export function selectMatches(
  candidates: readonly MatchableGuideline[],
  scores: readonly RelevanceScore[],
  context: Readonly<Record<string, unknown>>,
  options: Partial<MatchingOptions> = defaultMatchingOptions,
): GuidelineMatchResult {
  const threshold = options.threshold ?? defaultMatchingOptions.threshold;
  const topN = options.topN ?? defaultMatchingOptions.topN;
  return rankMatches(scoredMatches(candidates, scores, context, threshold), topN);
}
