export { GuidelineMatcher, MATCHER_LLM_PROVIDER } from './guideline-matcher.js';
export { GuidelineMatcherModule, type GuidelineMatcherModuleOptions } from './matcher.module.js';
