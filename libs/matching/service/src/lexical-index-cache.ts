import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { LexicalIndex, type RankedDocument } from '@tenet/matching-domain';

/** Indexes kept when no bound is given: one per agent version (candidate set) a replica serves, least recently used evicted first. */
export const DEFAULT_LEXICAL_INDEX_CACHE_ENTRIES = 256;

/**
 * The prefilter's BM25 indexes, kept by the matcher replica in a bounded LRU keyed by a hash of the candidate set
 * — every candidate's id and text (condition and action), in order. An agent's candidates are the same from turn to
 * turn, so its index (term frequencies, lengths, inverse document frequencies) is built on its first lexical or
 * hybrid turn and reused after; editing, adding, removing or disabling a guideline, or a context that filters a
 * different set, makes a new key, and the old index ages out. Only the query is tokenised per turn.
 */
export class LexicalIndexCache {
  private readonly indexes: LRUCache<string, LexicalIndex>;

  constructor(readonly maxEntries: number = DEFAULT_LEXICAL_INDEX_CACHE_ENTRIES) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`LexicalIndexCache maxEntries must be an integer ≥ 1, got ${maxEntries}`);
    this.indexes = new LRUCache({ max: maxEntries });
  }

  /** How many indexes the cache holds now. */
  get size(): number {
    return this.indexes.size;
  }

  /** The index of exactly these documents, built now only when the cache has none (`cached` says which). */
  indexFor(documents: readonly RankedDocument[]): { index: LexicalIndex; cached: boolean } {
    const key = LexicalIndexCache.keyOf(documents);
    const found = this.indexes.get(key);
    if (found) return { index: found, cached: true };
    const index = new LexicalIndex(documents);
    this.indexes.set(key, index);
    return { index, cached: false };
  }

  /** The hash of a document set: ids and texts, in order, with separators no id or text can fake (lengths first). */
  static keyOf(documents: readonly RankedDocument[]): string {
    const framed = documents.map((d) => `${d.id.length}:${d.id}\u0000${d.text.length}:${d.text}`).join('');
    return `${documents.length}:${createHash('sha256').update(framed).digest('base64url')}`;
  }
}
