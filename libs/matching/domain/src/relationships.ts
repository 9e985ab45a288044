import { toMatch, type GuidelineMatch, type MatchableGuideline } from './guideline-matching.js';

/**
 * Relationships between guidelines (or tags standing for every guideline they tag), resolved over the LLM's
 * matches to a fixed point, as Parlant's relational resolver does. Each iteration runs, in order:
 *
 *   1. dependency      — source stays active only if ALL its targets are active (a tag target: all its guidelines)
 *      dependency_any  — source stays active only if ANY of its targets is active (a tag target: any of them)
 *   2. priority        — source active ⇒ target deactivated; a guideline removed by priority stays removed
 *   3. entailment      — source active ⇒ target activated, scored with the source's relevance
 *
 * until nothing changes (at most `maxIterations`, 3 by default like Parlant's: the steps interact — priority
 * can remove a dependency target, entailment can add one). Then **disambiguation**: an active source with two
 * or more active targets deactivates those targets and asks the customer to choose among them.
 *
 * Unlike Parlant, there is no "numerical priority ceiling" step that drops every match below the highest
 * priority: Tenet follows seed 000 §8 (sort by priority, then relevance, top N), so priority orders matches and
 * only a priority *relationship* removes one.
 */
export type RelationshipKind = 'priority' | 'entailment' | 'dependency' | 'dependency_any' | 'disambiguation';

export interface GuidelineRelationship {
  id: string;
  kind: RelationshipKind | (string & {});
  source: { type: 'guideline' | 'tag'; id: string };
  target: { type: 'guideline' | 'tag'; id: string };
}

export interface ResolutionStep {
  iteration: number;
  relationship_id: string;
  kind: string;
  effect: 'activated' | 'deactivated';
  guideline_id: string;
  because: string;
}

export interface RelationshipResolution {
  active: GuidelineMatch[];
  steps: ResolutionStep[];
  iterations: number;
  /** True when the iteration limit was reached before the set stopped changing (a cycle). */
  capped: boolean;
  disambiguation?: { source_id: string; candidates: string[] };
}

export function resolveRelationships(
  matched: readonly GuidelineMatch[],
  guidelines: readonly MatchableGuideline[],
  relationships: readonly GuidelineRelationship[],
  context: Readonly<Record<string, unknown>> = {},
  maxIterations = 3,
): RelationshipResolution {
  const byId = new Map(guidelines.map((g) => [g.id, g]));
  const members = (endpoint: GuidelineRelationship['source']): string[] =>
    endpoint.type === 'guideline' ? (byId.has(endpoint.id) ? [endpoint.id] : []) : guidelines.filter((g) => g.tags?.includes(endpoint.id)).map((g) => g.id);
  const active = new Map(matched.map((m) => [m.guideline_id, m]));
  const removedByPriority = new Set<string>();
  const steps: ResolutionStep[] = [];
  const ofKind = (kind: string) => relationships.filter((r) => r.kind === kind);
  const isActive = (id: string): boolean => active.has(id);

  let iteration = 0;
  let changed = true;
  while (changed && iteration < maxIterations) {
    iteration += 1;
    changed = false;
    const deactivate = (id: string, r: GuidelineRelationship, because: string): void => {
      if (!active.delete(id)) return;
      steps.push({ iteration, relationship_id: r.id, kind: r.kind, effect: 'deactivated', guideline_id: id, because });
      changed = true;
    };

    // 1. Dependencies, grouped by source: every `dependency` must hold, and, if any `dependency_any` exists, one of them.
    for (const source of new Set([...ofKind('dependency'), ...ofKind('dependency_any')].flatMap((r) => members(r.source)))) {
      if (!isActive(source)) continue;
      for (const r of ofKind('dependency').filter((r) => members(r.source).includes(source))) {
        const targets = members(r.target);
        if (targets.length === 0 || !targets.every(isActive)) deactivate(source, r, `depends on all of [${targets.join(', ')}], not all active`);
      }
      const anyOf = ofKind('dependency_any').filter((r) => members(r.source).includes(source));
      if (isActive(source) && anyOf.length > 0 && !anyOf.some((r) => members(r.target).some(isActive))) {
        deactivate(source, anyOf[0] as GuidelineRelationship, `depends on any of [${anyOf.flatMap((r) => members(r.target)).join(', ')}], none active`);
      }
    }

    // 2. Priority: an active source overrides its targets.
    for (const r of ofKind('priority')) {
      const winner = members(r.source).find(isActive);
      if (!winner) continue;
      for (const target of members(r.target)) {
        if (target === winner || !isActive(target)) continue;
        removedByPriority.add(target);
        deactivate(target, r, `${winner} takes priority`);
      }
    }

    // 3. Entailment: an active source brings its targets in (unless priority removed them).
    for (const r of ofKind('entailment')) {
      const entailer = members(r.source).map((id) => active.get(id)).find((m) => m !== undefined);
      if (!entailer) continue;
      for (const target of members(r.target)) {
        const guideline = byId.get(target);
        if (!guideline || isActive(target) || removedByPriority.has(target) || !guideline.enabled) continue;
        active.set(target, toMatch(guideline, entailer.relevance_score, entailer.confidence, `entailed by ${entailer.guideline_id}`, context));
        steps.push({ iteration, relationship_id: r.id, kind: r.kind, effect: 'activated', guideline_id: target, because: `entailed by ${entailer.guideline_id}` });
        changed = true;
      }
    }
  }

  // Disambiguation: the customer's request fits several targets; ask instead of guessing.
  let disambiguation: RelationshipResolution['disambiguation'];
  const sources = new Set(ofKind('disambiguation').flatMap((r) => members(r.source)));
  for (const source of sources) {
    if (!isActive(source) || disambiguation) continue;
    const own = ofKind('disambiguation').filter((r) => members(r.source).includes(source));
    const candidates = [...new Set(own.flatMap((r) => members(r.target)))].filter(isActive);
    if (candidates.length < 2) continue;
    disambiguation = { source_id: source, candidates };
    for (const id of candidates) {
      active.delete(id);
      steps.push({ iteration: iteration + 1, relationship_id: own[0]?.id ?? '', kind: 'disambiguation', effect: 'deactivated', guideline_id: id, because: `ambiguous with ${candidates.filter((c) => c !== id).join(', ')}: ask the customer` });
    }
  }

  const order = new Map(matched.map((m, i) => [m.guideline_id, i]));
  return {
    active: [...active.values()].sort((a, b) => (order.get(a.guideline_id) ?? Infinity) - (order.get(b.guideline_id) ?? Infinity)),
    steps,
    iterations: iteration,
    capped: changed,
    ...(disambiguation ? { disambiguation } : {}),
  };
}
