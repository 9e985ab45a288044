/**
 * Offline reading of customer-service text, shared by everything that compares texts without a model: the
 * matcher's lexical ranking and coherence check, the offline LLM provider and vectorizer, the knowledge index's
 * lexical query. One tokenizer and one stop-word list, so that a word means the same to all of them.
 */

const NON_ASCII = /[^\u0020-\u007e\t\n\r]/;

/**
 * The words of a text, in order: accents stripped (NFKD), lowercased, split on anything that is not a letter or a
 * digit — so "don't" gives "don" and "t", and "café" gives "cafe".
 */
export function words(text: string): string[] {
  // Printable ASCII (most text) has no accents to strip and no letters or digits outside a-z and 0-9: the same words,
  // without the Unicode normalisation and property classes (the knowledge index tokenizes every chunk it ingests).
  if (!NON_ASCII.test(text))
    return text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word !== '');
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/**
 * Words that say nothing about a topic: the common function words, the words every guideline condition uses ("the
 * customer asks …"), answers that carry no topic of their own ("yes", "ok", "hmm"), and what is left of a
 * contraction once the apostrophe splits it ("don't" → don, "I've" → ve). Negations ("no", "not") are here too: the
 * coherence check reads them before dropping them. Deliberately short: the longer list of the lexical ranking
 * (with "out", "off", "before", "after", "all", "more", …) made the offline provider and vectorizer worse
 * (docs/benchmarks.md, "One offline tokenizer and stop-word list").
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'me my no not of on or our please she so than that the their them then there these they this to up us was we were ' +
    'what when where which who why will with would you your yours about any some just also very really ' +
    'customer customers user users client asks ask asking asked says say said mentions mention mentioned wants want ' +
    'wanting would like talks talk inquires inquire question questions regarding something anything thing things much many ' +
    'yes yeah yea yep yup ya aye ok okay okey kk alright sure nope nah hmm hm um umm uh ah oh maybe perhaps am ' +
    've re ll don doesn didn isn aren wasn weren hasn haven hadn shouldn couldn wouldn'
  ).split(/\s+/),
);

/** A light, deterministic suffix stripper: enough for "refunds"/"refunded"/"refunding" to meet "refund". */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('es') && /(ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}
