import type { MatchGuidelinesInput, MatchGuidelinesOutput } from '../tasks/match-guidelines.js';
import { quotedTerms, terms } from './lexicon.js';

const round = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * Relevance is the weighted share of a condition's topic terms found in the customer's latest message (quoted
 * phrases weigh double; measured against at most three terms, so that a condition listing alternatives —
 * "refunds, returns, or 'money back'" — matches on any of them), times the share of the message's main topics
 * (at most two) the condition accounts for. The second factor keeps a condition that shares one incidental word
 * with the message ("cancel an order" vs. "where is my order?") below the 0.3 threshold.
 */
export function matchGuidelines(input: MatchGuidelinesInput): MatchGuidelinesOutput {
  const said = new Set(terms(input.message));
  const messageCoverage = (hits: number): number => (said.size === 0 ? 0 : Math.min(1, hits / Math.min(said.size, 2)));
  return {
    matches: input.guidelines.map((guideline) => {
      const weights = new Map<string, number>();
      for (const term of terms(guideline.condition)) weights.set(term, 1);
      for (const term of quotedTerms(guideline.condition)) weights.set(term, 2);
      const total = [...weights.values()].reduce((a, b) => a + b, 0);
      const hits = [...weights].filter(([term]) => said.has(term));
      const matched = hits.reduce((a, [, weight]) => a + weight, 0);
      const relevance = total === 0 ? 0 : Math.min(1, matched / Math.min(total, 3)) * messageCoverage(hits.length);
      return {
        guideline_id: guideline.id,
        relevance: round(relevance),
        // Confidence grows with the share of the condition the message covers: one word of a long condition is a guess.
        confidence: total === 0 ? 0 : round(Math.min(1, 0.5 + matched / (2 * total))),
        reasoning: hits.length > 0 ? `the message mentions ${hits.map(([term]) => term).join(', ')}` : 'no topic of the condition appears in the message',
      };
    }),
  };
}
