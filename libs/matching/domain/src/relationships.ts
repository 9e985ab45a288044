import { toMatch, type GuidelineMatch, type MatchableGuideline } from './guideline-matching.js';

/**
 * Relationships between guidelines — or tags, a tag endpoint standing for every guideline carrying the tag —
 * resolved over the LLM's matches to a fixed point, following Parlant's relational resolver
 * (src/parlant/core/engines/alpha/relational_resolver.py; kinds in src/parlant/core/relationships.py; tests in
 * tests/core/stable/engines/alpha/test_relational_resolver.py).
 *
 * Each iteration runs, in this order (Parlant's order):
 *
 * 1. **dependency / dependency_any** — over every candidate (the LLM's matches plus everything entailed so far,
 *    minus what priority removed). A guideline stays only if
 *      - every `dependency` it has is met: a guideline target is active; a tag target is met when ALL the
 *        guidelines with that tag are active (an empty tag is never met) — Parlant's TAG_ALL;
 *      - and each `dependency_any` group it has has at least one met target: a tag target is met when ANY
 *        guideline with the tag is active — Parlant's TAG_ANY. Relationships with the same `group_id` form one
 *        group; those without one form a single group per guideline (Parlant's `depend_on_any(a, b, …)`).
 *    A tag source applies to every guideline with the tag. Removals cascade within the pass (Parlant sorts
 *    topologically). They are contingent: the next iteration starts again from all candidates, so a guideline
 *    whose dependency was entailed meanwhile comes back (recorded as `activated`).
 * 2. **priority** — evaluated against the set that came out of step 1 as a whole: a guideline is deactivated
 *    when a priority relationship targets it (directly or through one of its tags) and its source — or, for a
 *    tag source, another guideline with that tag — is in that set. So with A > B > C all matched, both B and C
 *    go (Parlant: "prioritizes indirectly"); with only A and C matched, C stays (priority does not pass through
 *    an inactive guideline). Priority removal is final: the guideline is never re-seeded or entailed again.
 *    Guidelines whose dependency can now never be met (an ALL target removed by priority, or every target of an
 *    ANY group) are removed with it, also for good (Parlant's transitive filtering; Tenet follows the chain all
 *    the way rather than one level, so a dependant of a dependant cannot entail anything in the meantime).
 * 3. **entailment** — every active guideline activates its targets (followed transitively, like Parlant's
 *    `indirect` lookup), unless a target is already a candidate, was removed by priority, was entailed before,
 *    or is not among the usable guidelines passed in (disabled, out of journey scope, missing context). An
 *    entailed match takes the relevance and confidence of its strongest entailer, names it in `entailed_by`,
 *    and notes the entailer's reasoning. Unlike Parlant, a tag source entails when any tagged guideline is
 *    active (Parlant only follows tag sources reached through a tag target).
 *
 * Iterations repeat until an iteration ends with the same active set it started with — at most
 * `maxIterations` (default 3, Parlant's MAX_ITERATIONS). Priority removals and entailments are one-way, so the
 * loop cannot oscillate; the limit bounds long cross-step chains (entailment meets a dependency, whose source
 * entails the next one, …). When it is reached with the set still changing, the state after the last iteration
 * is kept, as Parlant does, and a `cycle` step names every guideline that changed in that last iteration.
 *
 * 4. **disambiguation**, once, on the settled set: an active source that is an observation (no action — Parlant
 *    only groups action-less guidelines for disambiguation) with two or more active targets deactivates those
 *    targets and yields `{ source_id, candidates }`, so the reply asks the customer which one they mean. The
 *    source stays active. Parlant asks an LLM whether the situation is ambiguous and replaces source and targets
 *    with a transient "ask to clarify" guideline, before its resolver runs; Tenet decides from the matches
 *    after the other relationships, so a target removed by priority or an unmet dependency is no candidate.
 *    Several sources can fire; `disambiguation` is the first (by relevance), `disambiguations` lists all.
 *
 * Unlike Parlant there is no "numerical priority ceiling" that drops every match below the highest priority:
 * Tenet sorts by priority, then relevance, and keeps the top N (docs/data-model.md#matching), so numeric priority orders matches and
 * only a priority *relationship* removes one. Relationship kinds other than the five (Parlant's tool-level
 * `reevaluation` and `overlap`) are ignored here.
 */
export type RelationshipKind = 'priority' | 'entailment' | 'dependency' | 'dependency_any' | 'disambiguation';

export interface RelationshipEndpoint {
  type: 'guideline' | 'tag';
  id: string;
}

export interface GuidelineRelationship {
  id: string;
  /** One of `RelationshipKind`; any other kind is ignored. */
  kind: RelationshipKind | (string & {});
  source: RelationshipEndpoint;
  target: RelationshipEndpoint;
  /** `dependency_any` only: relationships of a guideline with the same group form one OR group. */
  group_id?: string;
}

export interface ResolutionStep {
  /** 1-based; disambiguation runs once after the last iteration and is numbered one past it. */
  iteration: number;
  /** The relationship that had the effect; empty for a `cycle` step. */
  relationship_id: string;
  kind: RelationshipKind | 'cycle';
  /** `kept`: a relationship was checked and left the guideline as it was (a met dependency, no ambiguity, a cut-off loop). */
  effect: 'activated' | 'deactivated' | 'kept';
  guideline_id: string;
  because: string;
}

export interface Disambiguation {
  source_id: string;
  candidates: string[];
}

export interface RelationshipResolution {
  /** The LLM's matches that survived, in their order, then entailed matches in the order they were activated. */
  active: GuidelineMatch[];
  /** Every effect, in the order it happened; a step is recorded only when it changes what was last recorded. */
  steps: ResolutionStep[];
  iterations: number;
  /** True when `maxIterations` was reached with the set still changing (see the `cycle` steps). */
  capped: boolean;
  /** The first disambiguation that fired: the reply asks the customer to choose among `candidates`. */
  disambiguation?: Disambiguation;
  disambiguations: Disambiguation[];
}

export const DEFAULT_MAX_RESOLUTION_ITERATIONS = 3;

/** The guideline ids an endpoint stands for: the guideline itself, or every guideline carrying the tag. */
export function endpointMembers(endpoint: RelationshipEndpoint, guidelines: readonly MatchableGuideline[]): string[] {
  return endpoint.type === 'guideline' ? [endpoint.id] : guidelines.filter((g) => g.tags?.includes(endpoint.id)).map((g) => g.id);
}

/**
 * Resolves relationships over the matches above the threshold. `all` are the usable guidelines — the candidates
 * of this turn (enabled, in journey scope, context present): tag membership is read from them, and entailment
 * can only activate one of them. `context` fills an entailed match's `matched_context`.
 */
export function resolveRelationships(
  matched: readonly GuidelineMatch[],
  all: readonly MatchableGuideline[],
  relationships: readonly GuidelineRelationship[],
  context: Readonly<Record<string, unknown>> = {},
  maxIterations: number = DEFAULT_MAX_RESOLUTION_ITERATIONS,
): RelationshipResolution {
  const byId = new Map(all.map((g) => [g.id, g]));
  const tagsOf = (id: string): readonly string[] => byId.get(id)?.tags ?? [];
  const members = (endpoint: RelationshipEndpoint): string[] => endpointMembers(endpoint, all);
  const appliesTo = (endpoint: RelationshipEndpoint, id: string): boolean =>
    endpoint.type === 'guideline' ? endpoint.id === id : tagsOf(id).includes(endpoint.id);
  const ofKind = (kind: RelationshipKind): GuidelineRelationship[] => relationships.filter((r) => r.kind === kind);
  const dependencies = ofKind('dependency');
  const anyDependencies = ofKind('dependency_any');
  const priorities = ofKind('priority');
  const entailments = ofKind('entailment');

  // Every match ever considered (LLM matches, then entailed ones), by id, in first-seen order.
  const candidates = new Map<string, GuidelineMatch>();
  for (const m of matched) {
    const seen = candidates.get(m.guideline_id);
    if (!seen || m.relevance_score > seen.relevance_score) candidates.set(m.guideline_id, m);
  }
  const removedByPriority = new Set<string>();
  const entailed = new Set<string>();

  const steps: ResolutionStep[] = [];
  const lastEffect = new Map<string, ResolutionStep['effect']>();
  const record = (key: string, step: ResolutionStep): void => {
    if (lastEffect.get(key) === step.effect) return;
    lastEffect.set(key, step.effect);
    steps.push(step);
  };

  /** The dependency checks of one guideline: its AND relationships, and its OR groups. */
  const dependencyChecksOf = (id: string) => {
    const and = dependencies.filter((r) => appliesTo(r.source, id));
    const groups = new Map<string, GuidelineRelationship[]>();
    for (const r of anyDependencies.filter((r) => appliesTo(r.source, id))) {
      const key = r.group_id ?? '';
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    return { and, groups: [...groups.entries()] };
  };
  const allMet = (r: GuidelineRelationship, active: ReadonlySet<string>): boolean => {
    const targets = members(r.target);
    return targets.length > 0 && targets.every((t) => active.has(t));
  };
  const anyMet = (r: GuidelineRelationship, active: ReadonlySet<string>): boolean => members(r.target).some((t) => active.has(t));
  const dependenciesMet = (id: string, active: ReadonlySet<string>): boolean => {
    const { and, groups } = dependencyChecksOf(id);
    return and.every((r) => allMet(r, active)) && groups.every(([, group]) => group.some((r) => anyMet(r, active)));
  };
  /** A met dependency: `activated` if it had deactivated the guideline, else `kept` (recorded the first time only). */
  const restored = (key: string): ResolutionStep['effect'] =>
    lastEffect.get(key) === 'deactivated' ? 'activated' : (lastEffect.get(key) ?? 'kept');
  const describe = (r: GuidelineRelationship): string => (r.target.type === 'tag' ? `tag ${r.target.id}` : r.target.id);

  let current = new Set(candidates.keys());
  let iteration = 0;
  let converged = false;
  let changedInLast = new Set<string>();

  while (iteration < maxIterations) {
    iteration += 1;

    // 1. Dependencies: from all candidates not removed by priority, drop the unmet until none is left.
    const pool = [...candidates.keys()].filter((id) => !removedByPriority.has(id));
    const surviving = new Set(pool);
    for (let dropped = true; dropped;) {
      dropped = false;
      for (const id of surviving) {
        if (!dependenciesMet(id, surviving)) {
          surviving.delete(id);
          dropped = true;
        }
      }
    }
    for (const id of pool) {
      const { and, groups } = dependencyChecksOf(id);
      if (and.length === 0 && groups.length === 0) continue;
      const stays = surviving.has(id);
      for (const r of and) {
        const met = allMet(r, surviving);
        if (stays)
          record(`${r.id}|${id}`, {
            iteration,
            relationship_id: r.id,
            kind: 'dependency',
            effect: restored(`${r.id}|${id}`),
            guideline_id: id,
            because: `depends on ${describe(r)}, which is active`,
          });
        else if (!met)
          record(`${r.id}|${id}`, {
            iteration,
            relationship_id: r.id,
            kind: 'dependency',
            effect: 'deactivated',
            guideline_id: id,
            because: `depends on ${describe(r)}, which is not ${r.target.type === 'tag' ? 'all ' : ''}active`,
          });
      }
      for (const [groupId, group] of groups) {
        const key = `any:${groupId}|${id}`;
        const first = group.find((r) => anyMet(r, surviving)) ?? (group[0] as GuidelineRelationship);
        const names = group.map(describe).join(', ');
        if (stays)
          record(key, {
            iteration,
            relationship_id: first.id,
            kind: 'dependency_any',
            effect: restored(key),
            guideline_id: id,
            because: `depends on any of [${names}]; ${describe(first)} is active`,
          });
        else if (!group.some((r) => anyMet(r, surviving)))
          record(key, {
            iteration,
            relationship_id: first.id,
            kind: 'dependency_any',
            effect: 'deactivated',
            guideline_id: id,
            because: `depends on any of [${names}], none active`,
          });
      }
    }

    // 2. Priority, against the set as a whole; then whatever now depends on a removed guideline for good.
    const deprioritized = new Map<string, { by: string; r: GuidelineRelationship }>();
    for (const id of surviving) {
      for (const r of priorities) {
        if (!appliesTo(r.target, id)) continue;
        const by = members(r.source).find((s) => s !== id && surviving.has(s));
        if (by !== undefined) {
          deprioritized.set(id, { by, r });
          break;
        }
      }
    }
    for (const [id, { by, r }] of deprioritized) {
      surviving.delete(id);
      removedByPriority.add(id);
      record(`${r.id}|${id}`, {
        iteration,
        relationship_id: r.id,
        kind: 'priority',
        effect: 'deactivated',
        guideline_id: id,
        because: `${by} takes priority`,
      });
    }
    const gone = (t: string): boolean => removedByPriority.has(t);
    for (let dropped = deprioritized.size > 0; dropped;) {
      dropped = false;
      for (const id of surviving) {
        const { and, groups } = dependencyChecksOf(id);
        const lostAll = and.find((r) => members(r.target).some(gone));
        const lostGroup = groups.find(([, group]) => group.every((r) => members(r.target).every(gone)))?.[1];
        const cause = lostAll ?? lostGroup?.[0];
        if (cause === undefined) continue;
        surviving.delete(id);
        removedByPriority.add(id);
        dropped = true;
        const lost = lostAll ? members(lostAll.target).filter(gone) : (lostGroup ?? []).flatMap((r) => members(r.target));
        const key = lostAll ? `${cause.id}|${id}` : `any:${cause.group_id ?? ''}|${id}`;
        record(key, {
          iteration,
          relationship_id: cause.id,
          kind: lostAll ? 'dependency' : 'dependency_any',
          effect: 'deactivated',
          guideline_id: id,
          because: `depends on ${[...new Set(lost)].join(', ')}, removed by priority`,
        });
      }
    }

    // 3. Entailment: strongest entailers first, following newly entailed guidelines too.
    const active = [...surviving].map((id) => candidates.get(id) as GuidelineMatch);
    const processed = new Set<string>();
    for (;;) {
      const source = active.filter((m) => !processed.has(m.guideline_id)).sort((a, b) => b.relevance_score - a.relevance_score)[0];
      if (source === undefined) break;
      processed.add(source.guideline_id);
      for (const r of entailments) {
        if (!appliesTo(r.source, source.guideline_id)) continue;
        for (const target of members(r.target)) {
          const guideline = byId.get(target);
          if (!guideline || !guideline.enabled || candidates.has(target) || removedByPriority.has(target) || entailed.has(target)) continue;
          const because = `entailed by ${source.guideline_id}`;
          const match = {
            ...toMatch(
              guideline,
              source.relevance_score,
              source.confidence,
              source.reasoning ? `${because} (${source.reasoning})` : because,
              context,
            ),
            entailed_by: source.guideline_id,
          };
          candidates.set(target, match);
          entailed.add(target);
          surviving.add(target);
          active.push(match);
          record(`${r.id}|${target}`, {
            iteration,
            relationship_id: r.id,
            kind: 'entailment',
            effect: 'activated',
            guideline_id: target,
            because,
          });
        }
      }
    }

    changedInLast = new Set([...surviving].filter((id) => !current.has(id)).concat([...current].filter((id) => !surviving.has(id))));
    current = surviving;
    if (changedInLast.size === 0) {
      converged = true;
      break;
    }
  }

  if (!converged) {
    for (const id of changedInLast) {
      steps.push({
        iteration,
        relationship_id: '',
        kind: 'cycle',
        effect: 'kept',
        guideline_id: id,
        because: `still changing after ${iteration} iterations (the limit); the state after the last one is kept`,
      });
    }
  }

  // 4. Disambiguation on the settled set.
  const disambiguations: Disambiguation[] = [];
  const sourceIds = [...new Set(ofKind('disambiguation').flatMap((r) => members(r.source)))]
    .filter((id) => current.has(id))
    .sort((a, b) => (candidates.get(b)?.relevance_score ?? 0) - (candidates.get(a)?.relevance_score ?? 0));
  for (const source of sourceIds) {
    const own = ofKind('disambiguation').filter((r) => appliesTo(r.source, source));
    const first = own[0] as GuidelineRelationship;
    if (candidates.get(source)?.action !== undefined) {
      record(`${first.id}|${source}`, {
        iteration: iteration + 1,
        relationship_id: first.id,
        kind: 'disambiguation',
        effect: 'kept',
        guideline_id: source,
        because: 'has an action; only an observation can ask the customer to choose',
      });
      continue;
    }
    const competing = [...new Set(own.flatMap((r) => members(r.target)))].filter((id) => id !== source && current.has(id));
    if (competing.length < 2) {
      record(`${first.id}|${source}`, {
        iteration: iteration + 1,
        relationship_id: first.id,
        kind: 'disambiguation',
        effect: 'kept',
        guideline_id: source,
        because: competing.length === 1 ? `only ${competing[0]} is active: nothing to ask` : 'no target is active: nothing to ask',
      });
      continue;
    }
    disambiguations.push({ source_id: source, candidates: competing });
    for (const id of competing) {
      current.delete(id);
      const r = own.find((x) => members(x.target).includes(id)) ?? first;
      record(`${r.id}|${id}`, {
        iteration: iteration + 1,
        relationship_id: r.id,
        kind: 'disambiguation',
        effect: 'deactivated',
        guideline_id: id,
        because: `ambiguous with ${competing.filter((c) => c !== id).join(', ')} (${source}): ask the customer to choose`,
      });
    }
  }

  return {
    active: [...candidates.values()].filter((m) => current.has(m.guideline_id)),
    steps,
    iterations: iteration,
    capped: !converged,
    ...(disambiguations[0] ? { disambiguation: disambiguations[0] } : {}),
    disambiguations,
  };
}
