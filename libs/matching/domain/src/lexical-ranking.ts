/**
 * The prefilter's lexical side: the words a text is about, whether a message has any, and a BM25 ranking of
 * guidelines against a weighted query — what the matcher ranks with when embeddings are unavailable. Pure and
 * deterministic: the same texts give the same scores on every replica.
 */

import { stem, STOP_WORDS, words } from '@tenet/text';

/**
 * Courtesies and verdicts: a message made only of these and stop words ("yes", "ok, go ahead", "thanks!") answers
 * the agent and has no topic of its own. Unlike the bare answers ("yes", "ok": stop words) they stay words (a
 * guideline may be about thanking), they just do not make a message topical.
 */
const TOPIC_FREE_WORDS = new Set(
  (
    'pls thanks thank thx cheers great good cool perfect awesome nice lovely excellent wonderful fine right correct ' +
    'exactly absolutely definitely certainly indeed agreed understood gotcha noted course go ahead sounds bye goodbye ' +
    'welcome hi hello hey'
  )
    .split(/\s+/)
    .map((word) => stem(word)),
);

/**
 * The topic words of a text, in order, repeats kept: its words (`@tenet/text`) without stop words and bare numbers
 * ("12345", an order number), stemmed.
 */
export function topicWords(text: string): string[] {
  return words(text)
    .filter((word) => !STOP_WORDS.has(word) && !/^\p{N}+$/u.test(word))
    .map(stem);
}

/** True when a message has no topic of its own: no topic word, or only answers and courtesies ("yes", "ok", "12345"). */
export function isTopicFree(message: string): boolean {
  return topicWords(message).every((word) => TOPIC_FREE_WORDS.has(word));
}

/** A part of the prefilter query with how much it counts. */
export interface WeightedText {
  text: string;
  weight: number;
}

/** A document to rank: a guideline's condition and action. */
export interface RankedDocument {
  id: string;
  text: string;
}

/** BM25's usual constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

/** The query's words with their weights: a word's weight is the sum of the weights of the parts it occurs in (each part counts a word once). */
export function queryWordWeights(query: readonly WeightedText[]): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of query) {
    if (!(part.weight > 0)) continue;
    for (const word of new Set(topicWords(part.text))) weights.set(word, (weights.get(word) ?? 0) + part.weight);
  }
  return weights;
}

/**
 * A BM25 index of a set of documents: each word's inverse document frequency and, per document that uses it, its
 * term factor `tf·(k1+1) / (tf + k1·(1 − b + b·length/average length))` — everything about the documents, computed
 * once. Scoring a query then only tokenises the query and walks the postings of its words. Postings are stored
 * flat (one array of document positions and one of factors for all words, sliced by word), so an index costs a
 * few bytes per (word, document) pair rather than an object per word. Immutable: a changed document set is a new
 * index (see `LexicalIndexCache`).
 */
export class LexicalIndex {
  readonly ids: readonly string[];
  /** Each word's number: its idf and the slice `offsets[w] … offsets[w + 1]` of `documents` and `factors`. */
  private readonly words = new Map<string, number>();
  private readonly idf: Float64Array;
  private readonly offsets: Int32Array;
  private readonly documents: Int32Array;
  private readonly factors: Float64Array;

  constructor(documents: readonly RankedDocument[]) {
    this.ids = documents.map((d) => d.id);
    const counted = documents.map((d) => {
      const counts = new Map<string, number>();
      const words = topicWords(d.text);
      for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
      return { counts, length: words.length };
    });
    const averageLength = counted.reduce((sum, d) => sum + d.length, 0) / Math.max(1, counted.length);
    // Document frequency of each word, numbering the words in order of first use.
    const frequency: number[] = [];
    for (const d of counted) {
      for (const word of d.counts.keys()) {
        let w = this.words.get(word);
        if (w === undefined) this.words.set(word, (w = frequency.length));
        frequency[w] = (frequency[w] ?? 0) + 1;
      }
    }
    this.idf = Float64Array.from(frequency, (n) => Math.log(1 + (counted.length - n + 0.5) / (n + 0.5)));
    this.offsets = new Int32Array(frequency.length + 1);
    for (let w = 0; w < frequency.length; w++) this.offsets[w + 1] = (this.offsets[w] ?? 0) + (frequency[w] ?? 0);
    const total = this.offsets[frequency.length] ?? 0;
    this.documents = new Int32Array(total);
    this.factors = new Float64Array(total);
    const filled = this.offsets.slice(0, frequency.length);
    counted.forEach((d, position) => {
      for (const [word, tf] of d.counts) {
        const w = this.words.get(word) ?? 0;
        const at = filled[w] ?? 0;
        filled[w] = at + 1;
        this.documents[at] = position;
        this.factors[at] = (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.length) / Math.max(1, averageLength)));
      }
    });
  }

  /** How many documents the index holds. */
  get size(): number {
    return this.ids.length;
  }

  /** How many distinct words the index holds. */
  get vocabulary(): number {
    return this.words.size;
  }

  /** How many (word, document) pairs the index holds: with the vocabulary, what its memory grows with. */
  get postings(): number {
    return this.documents.length;
  }

  /**
   * BM25 of each document against a weighted query, scaled so the best document scores 1 (all 0 when nothing
   * matches). A query word's weight is the sum of the weights of the parts it occurs in (each part counts a word once).
   */
  score(query: readonly WeightedText[]): Map<string, number> {
    const raw = new Float64Array(this.ids.length);
    for (const [word, weight] of queryWordWeights(query)) {
      const w = this.words.get(word);
      if (w === undefined) continue;
      const scale = weight * (this.idf[w] ?? 0);
      const end = this.offsets[w + 1] ?? 0;
      for (let i = this.offsets[w] ?? 0; i < end; i++) {
        const position = this.documents[i] ?? 0;
        raw[position] = (raw[position] ?? 0) + scale * (this.factors[i] ?? 0);
      }
    }
    let best = 0;
    for (const score of raw) best = Math.max(best, score);
    return new Map(this.ids.map((id, i) => [id, best > 0 ? (raw[i] ?? 0) / best : 0]));
  }
}

/**
 * BM25 of each document against a weighted query, scaled so the best document scores 1 (all 0 when nothing
 * matches). Inverse document frequencies come from the documents themselves, so a word that 80 of 1000
 * guidelines use ("cancel") counts for less than one only the relevant ones use. Builds a throwaway
 * `LexicalIndex`; the matcher keeps its indexes in a `LexicalIndexCache` instead.
 */
export function lexicalSimilarity(query: readonly WeightedText[], documents: readonly RankedDocument[]): Map<string, number> {
  return new LexicalIndex(documents).score(query);
}
