export {
  candidatesFor,
  defaultMatchingOptions,
  selectMatches,
  type GuidelineMatch,
  type GuidelineMatchResult,
  type MatchableGuideline,
  type MatchingOptions,
  type RelevanceScore,
} from './guideline-matching.js';
