import { STOP_WORDS, words } from '@tenet/text';

/**
 * A small lexical model of customer-service language: families of words that mean the same thing in a support
 * conversation, over the shared words and stop words of `@tenet/text`. Deterministic, no weights to download.
 */
const FAMILIES: Record<string, string[]> = {
  refund: ['refund', 'refunds', 'reimburse', 'reimbursement', 'moneyback', 'return', 'returns', 'returning', 'chargeback'],
  order: ['order', 'purchase', 'buy', 'bought', 'package', 'parcel'],
  cancel: ['cancel', 'cancellation', 'cancelling', 'canceling', 'cancelled', 'canceled', 'stop', 'terminate', 'unsubscribe'],
  greet: ['hello', 'hi', 'hey', 'greetings', 'greet', 'greets', 'greeting', 'morning', 'evening'],
  price: ['price', 'prices', 'pricing', 'cost', 'costs', 'fee', 'fees', 'charge', 'charged', 'expensive', 'cheap'],
  ship: ['ship', 'shipping', 'shipped', 'deliver', 'delivery', 'delivered', 'shipment', 'arrive', 'arrived', 'tracking', 'track'],
  human: ['human', 'person', 'representative', 'operator', 'someone'],
  account: ['account', 'login', 'password', 'signin', 'profile'],
  broken: ['broken', 'damaged', 'defective', 'faulty', 'cracked'],
  thank: ['thanks', 'thank', 'thx', 'grateful', 'appreciate'],
  book: ['book', 'booking', 'reserve', 'reservation', 'appointment', 'schedule'],
};

const CANONICAL = new Map<string, string>(Object.entries(FAMILIES).flatMap(([canonical, words]) => words.map((w) => [w, canonical])));

const undouble = (word: string): string => (/([b-df-hj-np-tv-z])\1$/.test(word) ? word.slice(0, -1) : word);

/** Light stemming: the forms a word may reduce to, most specific first (plural, -ing, -ed). */
function stems(word: string): string[] {
  if (word.length > 4 && word.endsWith('ies')) return [`${word.slice(0, -3)}y`];
  if (word.length > 5 && word.endsWith('ing')) return [undouble(word.slice(0, -3)), `${word.slice(0, -3)}e`];
  if (word.length > 4 && word.endsWith('ed')) return [undouble(word.slice(0, -2)), word.slice(0, -1)];
  if (word.length > 4 && /(ch|sh|ss|x)es$/.test(word)) return [word.slice(0, -2)];
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return [word.slice(0, -1)];
  return [word];
}

/** A word's canonical form: its synonym family if it or one of its stems belongs to one, else its first stem. */
function canonical(word: string): string {
  const forms = [word, ...stems(word)];
  for (const form of forms) {
    const family = CANONICAL.get(form);
    if (family) return family;
  }
  return forms[1] ?? word;
}

/** Topic terms of a text: lowercased, phrase-joined ("money back"), stop words dropped, families merged, stemmed. */
export function terms(text: string): string[] {
  const normalised = text
    .toLowerCase()
    .replace(/\bmoney\s+back\b/g, 'moneyback')
    .replace(/\bhow\s+much\b/g, 'price')
    // "how long" asks about time; "where is my X" / "has not arrived" ask where something is (tracking)
    .replace(/\bhow\s+long\b/g, 'time')
    .replace(/\bwhere(?:\s+is|\s+are|'s|s)?\s+(?:my|our|the)\b/g, 'track $&')
    .replace(/\blog\s*in\b/g, 'login')
    .replace(/\bsign\s*in\b/g, 'signin');
  const out: string[] = [];
  for (const raw of words(normalised)) {
    if (raw.length < 2 || STOP_WORDS.has(raw) || /^\d+$/.test(raw)) continue;
    out.push(canonical(raw));
  }
  return out;
}

/**
 * Courtesies and verdicts ("thanks", "great", "right", "of course"): said alone they answer the agent, yet a
 * condition may be about them ("the customer thanks the agent", "asks about a fine"), so they stay terms.
 */
const COURTESY_TERMS = new Set(
  terms(
    'thanks cheers great good cool perfect awesome nice lovely excellent wonderful fine right correct exactly absolutely definitely certainly indeed agreed understood gotcha noted course go ahead sounds bye goodbye welcome',
  ),
);

/** A message whose terms are all courtesies (or that has none: "yes", "12345") has no topic of its own. */
export const isTopicFree = (messageTerms: Iterable<string>): boolean => [...messageTerms].every((term) => COURTESY_TERMS.has(term));

/** Quoted phrases in a condition (`mentions 'refund'`) are what its author cared about most. */
export function quotedTerms(condition: string): string[] {
  // A quote opens only after a non-letter, so the apostrophe of "customer's" does not start a phrase.
  return [...condition.matchAll(/(?:^|[^\p{L}])['"‘“]([^'"’”]+)['"’”]/gu)].flatMap((m) => terms(m[1] ?? ''));
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const normalisedPhrase = (text: string): string => text.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * Rewrites a glossary term's synonyms to the term's name ("gold tier" → "Premium Plan") in one pass, longest
 * synonym first, so that `terms()` sees one word for one meaning on both sides of a comparison.
 */
export function applyGlossary(text: string, glossary: readonly { name: string; synonyms: readonly string[] }[] | undefined): string {
  const names = new Map<string, string>();
  for (const term of glossary ?? [])
    for (const synonym of term.synonyms)
      if (synonym.trim() !== '' && !names.has(normalisedPhrase(synonym))) names.set(normalisedPhrase(synonym), term.name);
  if (names.size === 0) return text;
  const alternatives = [...names.keys()].sort((a, b) => b.length - a.length).map((s) => escapeRegExp(s).replace(/ /g, '\\s+'));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  return text.replace(pattern, (found) => names.get(normalisedPhrase(found)) ?? found);
}
