export { DEFAULT_MATCHING_SETTINGS, GuidelineMatcher } from './guideline-matcher.js';
export { GuidelineMatcherModule, type GuidelineMatcherModuleOptions } from './matcher.module.js';
export { BudgetExceededError, BudgetGate, estimateCall } from './budget-gate.js';
