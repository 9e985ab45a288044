/**
 * The edge's validation, apart from the rest of the platform runtime (`@tenet/platform-runtime/validation`): the
 * class-validator rules DTOs are written with, the validator core and the PATCH checks. Only processes with DTOs (the
 * HTTP hosts) import it, so the others load none of class-validator (ADR 0035).
 */
export { createRuleErrors, PatchOf, patchRulesOf, type PatchRules } from './patch-rules.js';
export * from './validation-rules.js';
