/**
 * A small lexical model of customer-service language: words that carry no topic, and families of words that
 * mean the same thing in a support conversation. Deterministic, no weights to download.
 */
export const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'me my no not of on or our please she so than that the their them then there these they this to up us was we were ' +
    'what when where which who why will with would you your yours about any some just also very really ' +
    // words every guideline condition uses, which say nothing about the topic
    'customer customers user users client asks ask asking asked says say said mentions mention mentioned wants want ' +
    'wanting would like talks talk inquires inquire question questions regarding'
  ).split(/\s+/),
);

const FAMILIES: Record<string, string[]> = {
  refund: ['refund', 'refunds', 'reimburse', 'reimbursement', 'moneyback', 'return', 'returns', 'returning', 'chargeback'],
  order: ['order', 'orders', 'purchase', 'purchased', 'package', 'parcel', 'bought'],
  cancel: ['cancel', 'cancellation', 'cancelling', 'canceling', 'terminate', 'unsubscribe'],
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

function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Topic terms of a text: lowercased, phrase-joined ("money back"), stop words dropped, families merged, stemmed. */
export function terms(text: string): string[] {
  const normalised = text.toLowerCase().replace(/money\s+back/g, 'moneyback').replace(/log\s*in/g, 'login').replace(/sign\s*in/g, 'signin');
  const out: string[] = [];
  for (const raw of normalised.split(/[^a-z0-9]+/)) {
    if (raw.length < 2 || STOP_WORDS.has(raw) || /^\d+$/.test(raw)) continue;
    out.push(CANONICAL.get(raw) ?? CANONICAL.get(stem(raw)) ?? stem(raw));
  }
  return out;
}

/** Quoted phrases in a condition (`mentions 'refund'`) are what its author cared about most. */
export function quotedTerms(condition: string): string[] {
  return [...condition.matchAll(/['"‘“]([^'"’”]+)['"’”]/g)].flatMap((m) => terms(m[1] ?? ''));
}
