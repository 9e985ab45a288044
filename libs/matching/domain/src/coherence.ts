/**
 * Coherence of a proposed guideline with others (Parlant's evaluation): does it overlap one (their conditions
 * say much the same) or contradict one (overlapping conditions, and actions about the same thing — sharing
 * a third of their content words — of which exactly one is negated — "offer a refund" against "never offer refunds")? Pure and deterministic: a lexical
 * judgement on content words, the answer of the offline provider and of every deployment (no LLM call).
 */

import { stem, STOP_WORDS, words } from '@tenet/text';

export interface CoherenceGuideline {
  id: string;
  condition: string;
  action?: string | undefined;
}

export interface CoherenceFinding {
  guideline_id: string;
  /** Jaccard similarity of the two conditions' content words, 0–1. */
  condition_similarity: number;
  reason: string;
}

export interface CoherenceReport {
  contradictions: CoherenceFinding[];
  overlaps: CoherenceFinding[];
}

/** Conditions at least this similar overlap; a contradiction needs the conditions to share this much. */
export const OVERLAP_THRESHOLD = 0.5;
export const CONTRADICTION_CONDITION_THRESHOLD = 0.3;
/** …and the actions must be about the same thing: this share of their content words in common. */
export const CONTRADICTION_ACTION_THRESHOLD = 0.3;

const NEGATIONS = new Set([
  'not',
  'never',
  'no',
  'dont',
  'doesnt',
  'cannot',
  'cant',
  'refuse',
  'decline',
  'deny',
  'avoid',
  'without',
  'nor',
  'stop',
  'forbid',
  'prohibit',
]);

/** The text's words, with "n't" read as "not" ("don't" → do not, "can't" → ca not) so the negation survives the split. */
const tokens = (text: string): string[] => words(text.replace(/n['’]t\b/gi, ' not'));

const contentWords = (text: string): Set<string> =>
  new Set(
    tokens(text)
      .filter((w) => !STOP_WORDS.has(w) && !NEGATIONS.has(w) && w.length > 1)
      .map(stem),
  );
const negated = (text: string): boolean => tokens(text).some((w) => NEGATIONS.has(w));

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** How `candidate` stands against each of `others` (its own id, if among them, is skipped). */
export function checkCoherence(candidate: CoherenceGuideline, others: readonly CoherenceGuideline[]): CoherenceReport {
  const report: CoherenceReport = { contradictions: [], overlaps: [] };
  const condition = contentWords(candidate.condition);
  const action = contentWords(candidate.action ?? '');
  for (const other of others) {
    if (other.id === candidate.id) continue;
    const similarity = jaccard(condition, contentWords(other.condition));
    const otherAction = contentWords(other.action ?? '');
    const sharedTopic = [...action].filter((w) => otherAction.has(w));
    if (
      similarity >= CONTRADICTION_CONDITION_THRESHOLD &&
      jaccard(action, otherAction) >= CONTRADICTION_ACTION_THRESHOLD &&
      negated(candidate.action ?? '') !== negated(other.action ?? '')
    ) {
      report.contradictions.push({
        guideline_id: other.id,
        condition_similarity: round(similarity),
        reason: `in similar situations one action says to do what the other rules out (${sharedTopic.join(', ')})`,
      });
    } else if (similarity >= OVERLAP_THRESHOLD) {
      report.overlaps.push({
        guideline_id: other.id,
        condition_similarity: round(similarity),
        reason: 'the conditions describe much the same situation',
      });
    }
  }
  return report;
}
