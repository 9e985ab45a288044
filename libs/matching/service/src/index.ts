export { DEFAULT_MATCHING_SETTINGS, GuidelineMatcher } from './guideline-matcher.js';
export { GuidelineMatcherModule, type GuidelineMatcherModuleOptions } from './matcher.module.js';
export { CoherenceChecker } from './coherence-checker.js';
export { ContextExtractor } from './context-extractor.js';
export { ProviderRegistry } from './provider-registry.js';
export { BudgetExceededError, BudgetGate, estimateCall } from '@tenet/metering-gate';
