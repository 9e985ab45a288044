import type { GuidelineMatch } from './guideline-matching.js';

/**
 * Which matched guidelines this turn's reply applied (Parlant's response analysis): the actionable matches the
 * reply cites. Observations (no action) are never "applied"; a cited id that did not match is ignored.
 */
export function appliedAfterReply(matched: readonly GuidelineMatch[], citedIds: readonly string[]): string[] {
  const cited = new Set(citedIds);
  return matched.filter((m) => m.action !== undefined && cited.has(m.guideline_id)).map((m) => m.guideline_id);
}

const FIELD = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;

/** The `{{field}}` placeholders of a canned response, in order of first appearance. */
export function templateFields(template: string): string[] {
  return [...new Set([...template.matchAll(FIELD)].map((m) => m[1] ?? ''))];
}

/** Renders a canned response; `undefined` when a field has no value (such a template cannot be used). */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string | undefined {
  let missing = false;
  const rendered = template.replace(FIELD, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : rendered;
}
