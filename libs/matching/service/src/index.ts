export { DEFAULT_MATCHING_SETTINGS, DEFAULT_NO_MATCH_MESSAGE, GuidelineMatcher } from './guideline-matcher.js';
export { GuidelineMatcherModule, type GuidelineMatcherModuleOptions } from './matcher.module.js';
