/**
 * Seed 000 §8 guideline matching, the steps that need no LLM, as pure functions:
 *   1. enabled filter            3. required context present
 *   5. relevance threshold       6. sort by priority, then relevance
 *   7. top N                     9. combined action, deduplicated tools
 * Step 4 (relevance) is an input: scores come from the LLM provider. Steps 2 (journeys) and 8 (tool
 * parameters) arrive with journeys and tools.
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
  /** Parlant's criticality; default `medium`. High-criticality matches are never cut by top N. */
  criticality?: Criticality;
  /** Applies on every turn its condition holds; a non-continuous one is not re-applied once applied. */
  continuous?: boolean;
  tags?: string[];
  journey_id?: string;
  journey_step?: string;
}

export interface RelevanceScore {
  guideline_id: string;
  relevance: number;
  confidence: number;
  reasoning: string;
  /** Validated step-8 arguments per tool, when the guideline has tools. */
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
}

export interface GuidelineMatchResult {
  matches: GuidelineMatch[];
  top_matches: GuidelineMatch[];
  combined_action?: string;
  tools_to_execute: { tool_name: string; priority: number; guideline_id: string; parameters: Record<string, unknown> }[];
}

export interface MatchingOptions {
  /** Seed default 0.3. */
  threshold: number;
  /** Seed default 3. */
  topN: number;
}

export const defaultMatchingOptions: MatchingOptions = { threshold: 0.3, topN: 3 };

/** Step 2: a journey-scoped guideline applies only while its journey is active (and, if it names one, at its step). */
export function scopeToJourneys<G extends MatchableGuideline>(guidelines: readonly G[], active?: { journey_id: string; step_id?: string }): G[] {
  return guidelines.filter(
    (g) => g.journey_id === undefined || (active !== undefined && g.journey_id === active.journey_id && (g.journey_step === undefined || g.journey_step === active.step_id)),
  );
}

/** Steps 1 and 3: which guidelines are worth asking the LLM about at all. */
export function candidatesFor(guidelines: readonly MatchableGuideline[], context: Readonly<Record<string, unknown>>): MatchableGuideline[] {
  return guidelines.filter((g) => g.enabled && g.required_context.every((name) => context[name] !== undefined));
}

const clamp01 = (value: number): number => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/** Step 5: the candidates the provider scored at or above the threshold, as matches. */
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
    tool_parameters: toolParameters,
  };
}

const CRITICALITY_RANK: Record<Criticality, number> = { high: 2, medium: 1, low: 0 };

/**
 * Steps 6, 7 and 9: sort by priority, then relevance (high criticality first among equals), keep the top N —
 * plus every high-criticality match, which is never cut — then combine the actions and deduplicate the tools
 * (each tool once, from its highest-ranked guideline, with that guideline's parameters).
 */
export function rankMatches(matches: readonly GuidelineMatch[], topN: number = defaultMatchingOptions.topN): GuidelineMatchResult {
  const sorted = [...matches].sort(
    (a, b) =>
      b.priority - a.priority ||
      CRITICALITY_RANK[b.criticality] - CRITICALITY_RANK[a.criticality] ||
      b.relevance_score - a.relevance_score ||
      a.guideline_id.localeCompare(b.guideline_id),
  );
  const top = sorted.filter((m, index) => index < topN || m.criticality === 'high');
  const actions = top.flatMap((m) => (m.action ? [m.action] : []));
  const tools = new Map<string, GuidelineMatchResult['tools_to_execute'][number]>();
  for (const match of top) {
    for (const tool of match.tools) {
      if (!tools.has(tool)) tools.set(tool, { tool_name: tool, priority: match.priority, guideline_id: match.guideline_id, parameters: match.tool_parameters[tool] ?? {} });
    }
  }
  return {
    matches: sorted,
    top_matches: top,
    ...(actions.length > 0 ? { combined_action: actions.join('\n') } : {}),
    tools_to_execute: [...tools.values()],
  };
}

/** Steps 5–7 and 9 over the candidates and the provider's relevance scores. */
export function selectMatches(
  candidates: readonly MatchableGuideline[],
  scores: readonly RelevanceScore[],
  context: Readonly<Record<string, unknown>>,
  options: MatchingOptions = defaultMatchingOptions,
): GuidelineMatchResult {
  return rankMatches(scoredMatches(candidates, scores, context, options.threshold), options.topN);
}
