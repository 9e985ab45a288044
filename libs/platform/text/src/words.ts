/**
 * Offline reading of customer-service text, shared by everything that compares texts without a model: the
 * matcher's lexical ranking and coherence check, the offline LLM provider and vectorizer, the knowledge index's
 * lexical query. One tokenizer and one stop-word list, so that a word means the same to all of them.
 */

/**
 * The words of a text, in order: accents stripped (NFKD), lowercased, split on anything that is not a letter or a
 * digit — so "don't" gives "don" and "t", and "café" gives "cafe".
 */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/**
 * Words that say nothing about a topic: function words, the words every guideline condition uses ("the customer
 * asks …"), answers that carry no topic of their own ("yes", "ok", "hmm"), and what is left of a contraction once
 * the apostrophe splits it ("don't" → don, "I've" → ve). Negations ("no", "not") are here too: the coherence
 * check reads them before dropping them.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor if then else so than as that this these those there here of to in on at by for from with ' +
    'without into onto out over under up down off about above below between through during before after again ' +
    'further once all any both each every few more most other some such only own same too very just also really ' +
    'i me my mine myself we us our ours you your yours he him his she her hers it its they them their theirs ' +
    'what which who whom whose when whenever where while why how ' +
    'is are was were be been being am do does did doing done have has had having can could should would will shall ' +
    'may might must not no please ' +
    'customer customers user users client asks ask asking asked says say said mentions mention mentioned wants want ' +
    'wanted wanting like talks talk inquires inquire question questions regarding something anything thing things much many ' +
    'yes yeah yea yep yup ya aye ok okay okey kk alright sure nope nah hmm hm um umm uh ah oh maybe perhaps ' +
    've re ll don doesn didn isn aren wasn weren hasn haven hadn shouldn couldn wouldn won'
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
