import type { GuidelineMatch, GuidelineToMatch, MatchGuidelinesInput, MatchGuidelinesOutput } from '../tasks/match-guidelines.js';
import { applyGlossary, isTopicFree, quotedTerms, terms } from './lexicon.js';
import { classifyIntent } from './intents.js';
import { extractToolArguments } from './tool-arguments.js';

const round = (n: number): number => Math.round(n * 1000) / 1000;

/** A message with no topic of its own ("yes", "12345", "ok", "thanks") continues the previous one at this share of its score. */
const CONTINUATION_WEIGHT = 0.6;

interface Score {
  relevance: number;
  confidence: number;
  hits: string[];
}

/**
 * Relevance is the weighted share of a condition's topic terms found in a customer message (quoted phrases
 * weigh double; measured against at most three terms, so that a condition listing alternatives — "refunds,
 * returns, or 'money back'" — matches on any of them), times the share of the message's main topics (at most
 * two) the condition accounts for. The second factor keeps a condition that shares one incidental word with the
 * message ("cancel an order" vs. "where is my order?") below the 0.3 threshold.
 */
function score(condition: string, said: ReadonlySet<string>): Score {
  const weights = new Map<string, number>();
  for (const term of terms(condition)) weights.set(term, 1);
  for (const term of quotedTerms(condition)) weights.set(term, 2);
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  const hits = [...weights].filter(([term]) => said.has(term));
  const matched = hits.reduce((a, [, weight]) => a + weight, 0);
  const messageCoverage = said.size === 0 ? 0 : Math.min(1, hits.length / Math.min(said.size, 2));
  return {
    relevance: total === 0 ? 0 : Math.min(1, matched / Math.min(total, 3)) * messageCoverage,
    // Confidence grows with the share of the condition the message covers: one word of a long condition is a guess.
    confidence: total === 0 ? 0 : Math.min(1, 0.5 + matched / (2 * total)),
    hits: hits.map(([term]) => term),
  };
}

/** The terms of the latest of the turns (latest first) that has a topic of its own, if any has. */
function latestTopic(turnsLatestFirst: readonly string[], termsOf: (text: string) => Set<string>): Set<string> | undefined {
  for (const turn of turnsLatestFirst) {
    const said = termsOf(turn);
    if (!isTopicFree(said)) return said;
  }
  return undefined;
}

/**
 * Scores every guideline against the customer's latest message. When that message has no topic of its own (a
 * bare "yes", "ok", "no", "thanks" or order number answering the agent: see `isTopicFree`), a guideline not yet
 * applied keeps 0.6 of its score against the customer's previous message with a topic (so a run of answers,
 * "yes" then "ok", goes on continuing it); a previously applied one is scored on the latest message only, so it
 * applies again only when its condition arises anew. Glossary synonyms are read as their term on both sides. Tools of a
 * guideline that shares any topic with the conversation get their arguments by the rules of `extractToolArguments`.
 */
export function matchGuidelines(input: MatchGuidelinesInput): MatchGuidelinesOutput {
  const termsOf = (text: string): Set<string> => new Set(terms(applyGlossary(text, input.terms)));
  const latest = termsOf(input.message);
  const customerTurns = [
    input.message,
    ...input.history
      .filter((t) => t.role === 'customer')
      .map((t) => t.content)
      .reverse(),
  ];
  const previous = isTopicFree(latest) ? latestTopic(customerTurns.slice(1), termsOf) : undefined;

  const matchOf = (guideline: GuidelineToMatch): GuidelineMatch => {
    const condition = applyGlossary(guideline.condition, input.terms);
    const now = score(condition, latest);
    const earlier = previous && !guideline.previously_applied ? score(condition, previous) : undefined;
    const continued = earlier !== undefined && earlier.relevance * CONTINUATION_WEIGHT > now.relevance;
    const relevance = continued ? earlier.relevance * CONTINUATION_WEIGHT : now.relevance;
    const reasoning = continued
      ? `the latest message continues the previous one, which mentions ${earlier.hits.join(', ')}`
      : now.hits.length > 0
        ? `the ${guideline.previously_applied ? 'latest ' : ''}message mentions ${now.hits.join(', ')}`
        : guideline.previously_applied
          ? 'already applied, and its condition does not arise anew in the latest message'
          : 'no topic of the condition appears in the message';
    return {
      guideline_id: guideline.id,
      relevance: round(relevance),
      confidence: round(continued ? earlier.confidence * CONTINUATION_WEIGHT : now.confidence),
      reasoning,
      tool_arguments:
        relevance > 0
          ? (guideline.tools ?? []).map((tool) => ({
              tool_name: tool.name,
              arguments_json: JSON.stringify(extractToolArguments(tool, customerTurns)),
            }))
          : [],
    };
  };
  const intent = classifyIntent(input);
  return { matches: input.guidelines.map(matchOf), ...(intent ? { intent } : {}) };
}
