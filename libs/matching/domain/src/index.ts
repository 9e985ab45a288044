export {
  candidatesFor,
  defaultMatchingOptions,
  rankMatches,
  scopeToJourneys,
  scoredMatches,
  selectMatches,
  toMatch,
  type Criticality,
  type GuidelineMatch,
  type GuidelineMatchResult,
  type MatchableGuideline,
  type MatchingOptions,
  type RelevanceScore,
} from './guideline-matching.js';
export { resolveRelationships, type GuidelineRelationship, type RelationshipKind, type RelationshipResolution, type ResolutionStep } from './relationships.js';
export { cosineSimilarity, planBatches, prefilterCandidates, type KeptBecause } from './prefilter.js';
export { appliedAfterReply, renderTemplate, templateFields } from './composition.js';
