import type { MatchableGuideline } from './guideline-matching.js';

/** Where the session is in a journey (docs/data-model.md#journeys); `step_id` absent: the journey's step is unknown. */
export interface ActiveJourney {
  journey_id: string;
  step_id?: string;
}

/**
 * Matching step 2 (docs/data-model.md#matching; between the enabled filter and the required-context check): a guideline with a
 * `journey_id` applies only while that journey is active, and, if it also names a `journey_step`, only at
 * that step. Guidelines without a `journey_id` always pass.
 *
 * Parlant models the same rule as a relationship: a guideline created on a journey depends on the journey's
 * tag (`Journey.create_guideline` → DEPENDENCY on `Tag.for_journey_id`, src/parlant/sdk.py), so it is
 * dropped whenever the journey is not active. Tenet filters up front instead, so out-of-scope guidelines never
 * cost LLM tokens. Parlant has no per-step scoping for ordinary guidelines; `journey_step` is Tenet's.
 * A `journey_step` without a `journey_id` is refused at the edge (guidelines repository), not here.
 */
export function scopeToJourneys<G extends MatchableGuideline>(guidelines: readonly G[], activeJourney?: ActiveJourney): G[] {
  return guidelines.filter((g) => {
    if (g.journey_id === undefined) return true;
    if (activeJourney === undefined || g.journey_id !== activeJourney.journey_id) return false;
    return g.journey_step === undefined || g.journey_step === activeJourney.step_id;
  });
}
