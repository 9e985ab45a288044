import type { IntentAnswer, IntentToMatch, MatchGuidelinesInput } from '../tasks/match-guidelines.js';
import { applyGlossary, isTopicFree, terms } from './lexicon.js';
import { extractToolArguments } from './tool-arguments.js';

const round = (n: number): number => Math.round(n * 1000) / 1000;

/** Below this score no intent fits: UNKNOWN. */
export const UNKNOWN_BELOW = 0.25;
/** A message with no topic of its own ("12345", "yes") continues the customer's previous topic at this share. */
const CONTINUATION_WEIGHT = 0.9;
/** Alternatives reported, at most. */
const MAX_ALTERNATIVES = 3;

/** How much a term tells intents apart: 1 for a term of one intent (or none), less the more intents share it. */
export type TermWeight = (term: string) => number;

/** Inverse document frequency over the intents' texts, scaled to 0..1: `order` in every intent says little. */
export function termWeights(intents: readonly IntentToMatch[]): TermWeight {
  const frequency = new Map<string, number>();
  for (const intent of intents) {
    for (const term of new Set(
      terms([intent.name.replace(/_/g, ' '), intent.description, ...intent.keywords, ...intent.examples].join('\n')),
    ))
      frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const n = intents.length;
  return (term) => {
    const df = frequency.get(term) ?? 0;
    return df <= 1 || n <= 1 ? 1 : Math.log(1 + n / df) / Math.log(1 + n);
  };
}

const weightOf = (words: Iterable<string>, weight: TermWeight): number => [...words].reduce((sum, w) => sum + weight(w), 0);

/**
 * How well a message's terms fit an intent, 0..0.99: the strongest of three pieces of evidence plus a fifth of the
 * next (so corroboration helps, but two intents whose keywords the message both names stay close — ambiguous):
 * - keywords: a keyword (or phrase) whose terms all occur in the message counts 0.6, each further one 0.15 more;
 * - examples: the best weighted Dice overlap of the message's terms with one example's (terms weighted by
 *   `weight`, so words every intent uses count little);
 * - description: the weighted share of the message's terms the intent's name and description mention, at half weight.
 * So one clear keyword alone recognises an intent (0.6, above the default 0.5 clarification line), a loose
 * likeness to an example alone does not, and a message hitting two intents' keywords scores both alike.
 */
export function intentScore(intent: IntentToMatch, said: ReadonlySet<string>, weight: TermWeight = () => 1): number {
  if (said.size === 0) return 0;
  // Keywords that read as the same terms ("refund", "return": one family) count once.
  const keywordHits = new Set(
    intent.keywords.flatMap((k) => {
      const words = terms(k);
      return words.length > 0 && words.every((w) => said.has(w)) ? [[...new Set(words)].sort().join(' ')] : [];
    }),
  ).size;
  const keyword = keywordHits === 0 ? 0 : Math.min(0.95, 0.6 + 0.15 * (keywordHits - 1));
  const saidWeight = weightOf(said, weight);
  const example = Math.max(
    0,
    ...intent.examples.map((e) => {
      const words = new Set(terms(e));
      const shared = weightOf(
        [...words].filter((w) => said.has(w)),
        weight,
      );
      const total = weightOf(words, weight) + saidWeight;
      return total === 0 ? 0 : (2 * shared) / total;
    }),
  );
  const described = new Set(terms(`${intent.name.replace(/_/g, ' ')} ${intent.description}`));
  const description =
    saidWeight === 0
      ? 0
      : (weightOf(
          [...said].filter((w) => described.has(w)),
          weight,
        ) /
          saidWeight) *
        0.5;
  const [strongest = 0, next = 0] = [keyword, example, description].sort((a, b) => b - a);
  return Math.min(0.99, strongest + 0.2 * next);
}

/**
 * The offline stand-in for a model's intent classification: each intent scored by `intentScore` against the
 * latest customer message (glossary synonyms read as their term); a message with no topic of its own continues
 * the customer's previous one. The best intent at or above 0.25 is the answer, else `UNKNOWN` (its confidence
 * being how far the best falls short); the others that scored are its alternatives; the parameters are read by
 * the rules of `extractToolArguments` from the customer's turns, latest first. Deterministic.
 */
export function classifyIntent(input: MatchGuidelinesInput): IntentAnswer | undefined {
  const intents = input.intents ?? [];
  if (intents.length === 0) return undefined;
  const termsOf = (text: string): Set<string> => new Set(terms(applyGlossary(text, input.terms)));
  const customerTurns = [
    input.message,
    ...input.history
      .filter((t) => t.role === 'customer')
      .map((t) => t.content)
      .reverse(),
  ];
  let said = termsOf(input.message);
  let weight = 1;
  if (isTopicFree(said)) {
    const previous = customerTurns
      .slice(1)
      .map(termsOf)
      .find((t) => !isTopicFree(t));
    if (previous) [said, weight] = [previous, CONTINUATION_WEIGHT];
  }
  const weights = termWeights(intents);
  const scored = intents
    .map((intent) => ({ intent, score: round(intentScore(intent, said, weights) * weight) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.intent.name.localeCompare(b.intent.name));
  const [best, ...rest] = scored;
  if (!best || best.score < UNKNOWN_BELOW) {
    return {
      name: 'UNKNOWN',
      confidence: round(1 - (best?.score ?? 0)),
      extracted_params_json: '{}',
      alternatives: scored.slice(0, MAX_ALTERNATIVES).map((s) => ({ name: s.intent.name, confidence: s.score })),
    };
  }
  const params = best.intent.parameters
    ? extractToolArguments(
        { name: best.intent.name, description: best.intent.description, parameters: best.intent.parameters },
        customerTurns,
      )
    : {};
  return {
    name: best.intent.name,
    confidence: best.score,
    extracted_params_json: JSON.stringify(params),
    alternatives: rest.slice(0, MAX_ALTERNATIVES).map((s) => ({ name: s.intent.name, confidence: s.score })),
  };
}
