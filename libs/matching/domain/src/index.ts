export {
  candidatesFor,
  compareMatches,
  defaultMatchingOptions,
  rankMatches,
  rankWithout,
  scoredMatches,
  selectMatches,
  toMatch,
  type Criticality,
  type GuidelineMatch,
  type GuidelineMatchResult,
  type MatchableGuideline,
  type MatchingOptions,
  type RelevanceScore,
  type ToolExecution,
} from './guideline-matching.js';
export { scopeToJourneys, type ActiveJourney } from './journey-scope.js';
export {
  DEFAULT_MAX_RESOLUTION_ITERATIONS,
  endpointMembers,
  resolveRelationships,
  type Disambiguation,
  type GuidelineRelationship,
  type RelationshipEndpoint,
  type RelationshipKind,
  type RelationshipResolution,
  type ResolutionStep,
} from './relationships.js';
export { appliedAfterReply, withApplicationHistory, type AppliedCandidate } from './application-history.js';
export {
  cosineSimilarity,
  defaultAlwaysKeepCap,
  prefilterCandidates,
  type AlwaysKeep,
  type KeptBecause,
  type PrefilterInput,
  type PrefilterResult,
} from './prefilter.js';
export { planBatches, type BatchPlanOptions } from './batching.js';
export {
  COMPOSITION_MODES,
  DEFAULT_NO_MATCH_MESSAGE,
  effectiveCompositionMode,
  renderTemplate,
  templateFields,
  type CompositionMode,
} from './composition.js';
export { MatchingDomainError } from './errors.js';
export {
  checkCoherence,
  jaccard,
  CONTRADICTION_ACTION_THRESHOLD,
  CONTRADICTION_CONDITION_THRESHOLD,
  OVERLAP_THRESHOLD,
  type CoherenceFinding,
  type CoherenceGuideline,
  type CoherenceReport,
} from './coherence.js';
export {
  LexicalIndex,
  isTopicFree,
  lexicalSimilarity,
  queryWordWeights,
  topicWords,
  type RankedDocument,
  type WeightedText,
} from './lexical-ranking.js';
export { askForMissingContext, missingRequiredContext, REQUIRED_CONTEXT_ID_PREFIX, type RequirableVariable } from './required-context.js';
