/**
 * Seed 000 §8 guideline matching, the steps that need no LLM, as pure functions:
 *   1. enabled filter            3. required context present
 *   5. relevance threshold       6. sort by priority, then relevance
 *   7. top N                     9. combined action, deduplicated tools
 * Step 4 (relevance) is an input: scores come from the LLM provider. Steps 2 (journeys) and 8 (tool
 * parameters) arrive with journeys and tools.
 */

export interface MatchableGuideline {
  id: string;
  condition: string;
  action?: string;
  priority: number;
  enabled: boolean;
  tools: string[];
  required_context: string[];
}

export interface RelevanceScore {
  guideline_id: string;
  relevance: number;
  confidence: number;
  reasoning: string;
}

export interface GuidelineMatch {
  guideline_id: string;
  priority: number;
  relevance_score: number;
  confidence: number;
  condition: string;
  action?: string;
  tools: string[];
  matched_context: Record<string, unknown>;
  reasoning: string;
}

export interface GuidelineMatchResult {
  matches: GuidelineMatch[];
  top_matches: GuidelineMatch[];
  combined_action?: string;
  tools_to_execute: { tool_name: string; priority: number; guideline_id: string }[];
}

export interface MatchingOptions {
  /** Seed default 0.3. */
  threshold: number;
  /** Seed default 3. */
  topN: number;
}

export const defaultMatchingOptions: MatchingOptions = { threshold: 0.3, topN: 3 };

/** Steps 1 and 3: which guidelines are worth asking the LLM about at all. */
export function candidatesFor(guidelines: readonly MatchableGuideline[], context: Readonly<Record<string, unknown>>): MatchableGuideline[] {
  return guidelines.filter((g) => g.enabled && g.required_context.every((name) => context[name] !== undefined));
}

const clamp01 = (value: number): number => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/** Steps 5–7 and 9 over the candidates and the provider's relevance scores. */
export function selectMatches(
  candidates: readonly MatchableGuideline[],
  scores: readonly RelevanceScore[],
  context: Readonly<Record<string, unknown>>,
  options: MatchingOptions = defaultMatchingOptions,
): GuidelineMatchResult {
  const byId = new Map(scores.map((s) => [s.guideline_id, s]));
  const matches: GuidelineMatch[] = [];
  for (const guideline of candidates) {
    const score = byId.get(guideline.id);
    if (!score) continue;
    const relevance = clamp01(score.relevance);
    if (relevance < options.threshold) continue;
    matches.push({
      guideline_id: guideline.id,
      priority: guideline.priority,
      relevance_score: relevance,
      confidence: clamp01(score.confidence),
      condition: guideline.condition,
      ...(guideline.action !== undefined ? { action: guideline.action } : {}),
      tools: guideline.tools,
      matched_context: Object.fromEntries(guideline.required_context.map((name) => [name, context[name]])),
      reasoning: score.reasoning,
    });
  }
  matches.sort((a, b) => b.priority - a.priority || b.relevance_score - a.relevance_score || a.guideline_id.localeCompare(b.guideline_id));
  const top = matches.slice(0, options.topN);
  const actions = top.flatMap((m) => (m.action ? [m.action] : []));
  const tools = new Map<string, { tool_name: string; priority: number; guideline_id: string }>();
  for (const match of top) for (const tool of match.tools) if (!tools.has(tool)) tools.set(tool, { tool_name: tool, priority: match.priority, guideline_id: match.guideline_id });
  return {
    matches,
    top_matches: top,
    ...(actions.length > 0 ? { combined_action: actions.join('\n') } : {}),
    tools_to_execute: [...tools.values()],
  };
}
