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

/**
 * How well a message's terms fit an intent, 0..1, combining three pieces of evidence as independent chances
 * (1 − Π(1 − pᵢ)):
 * - keywords: a keyword (or phrase) whose terms all occur in the message counts 0.6, each further one 0.15 more;
 * - examples: the best Dice overlap of the message's terms with one example's;
 * - description: the share of the message's terms the intent's name and description mention, at half weight.
 * So one clear keyword alone recognises an intent (0.6, above the default 0.5 clarification line), a loose
 * likeness to an example alone does not, and a message hitting two intents' keywords scores both alike.
 */
export function intentScore(intent: IntentToMatch, said: ReadonlySet<string>): number {
  if (said.size === 0) return 0;
  const keywordHits = intent.keywords.filter((k) => {
    const words = terms(k);
    return words.length > 0 && words.every((w) => said.has(w));
  }).length;
  const keyword = keywordHits === 0 ? 0 : Math.min(0.95, 0.6 + 0.15 * (keywordHits - 1));
  const example = Math.max(
    0,
    ...intent.examples.map((e) => {
      const words = new Set(terms(e));
      const shared = [...words].filter((w) => said.has(w)).length;
      return words.size === 0 ? 0 : (2 * shared) / (words.size + said.size);
    }),
  );
  const described = new Set(terms(`${intent.name.replace(/_/g, ' ')} ${intent.description}`));
  const description = ([...said].filter((w) => described.has(w)).length / said.size) * 0.5;
  return 1 - (1 - keyword) * (1 - example) * (1 - description);
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
  const customerTurns = [input.message, ...input.history.filter((t) => t.role === 'customer').map((t) => t.content).reverse()];
  let said = termsOf(input.message);
  let weight = 1;
  if (isTopicFree(said)) {
    const previous = customerTurns.slice(1).map(termsOf).find((t) => !isTopicFree(t));
    if (previous) [said, weight] = [previous, CONTINUATION_WEIGHT];
  }
  const scored = intents
    .map((intent) => ({ intent, score: round(intentScore(intent, said) * weight) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.intent.name.localeCompare(b.intent.name));
  const [best, ...rest] = scored;
  if (!best || best.score < UNKNOWN_BELOW) {
    return { name: 'UNKNOWN', confidence: round(1 - (best?.score ?? 0)), extracted_params_json: '{}', alternatives: scored.slice(0, MAX_ALTERNATIVES).map((s) => ({ name: s.intent.name, confidence: s.score })) };
  }
  const params = best.intent.parameters ? extractToolArguments({ name: best.intent.name, description: best.intent.description, parameters: best.intent.parameters }, customerTurns) : {};
  return {
    name: best.intent.name,
    confidence: best.score,
    extracted_params_json: JSON.stringify(params),
    alternatives: rest.slice(0, MAX_ALTERNATIVES).map((s) => ({ name: s.intent.name, confidence: s.score })),
  };
}
