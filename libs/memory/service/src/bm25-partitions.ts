import { stem, words } from '@tenet/text';
import { stepsToEnd } from './steps.js';

/** FTS5's bm25() constants: term-frequency saturation and length normalisation. */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** The terms of a text as the lexical side indexes and queries them: the shared tokenizer's words, stemmed. */
export const termsOf = (text: string): string[] => words(text).map(stem);

/** Postings of one term in one partition, sorted by document: document, term frequency, document length. */
class Postings {
  docs = new Int32Array(4);
  tfs = new Uint16Array(4);
  lengths = new Uint16Array(4);
  size = 0;
  /** Postings of documents not removed (the term's document frequency). */
  live = 0;
  /** Upper-bound inputs: the largest frequency and the shortest document ever posted (still bounds after removals). */
  maxTf = 0;
  minLength = 0xffff;

  push(doc: number, tf: number, length: number): void {
    if (this.size === this.docs.length) {
      const grow = <A extends Int32Array | Uint16Array>(a: A, make: (n: number) => A): A => {
        const next = make(a.length * 2);
        next.set(a);
        return next;
      };
      this.docs = grow(this.docs, (n) => new Int32Array(n));
      this.tfs = grow(this.tfs, (n) => new Uint16Array(n));
      this.lengths = grow(this.lengths, (n) => new Uint16Array(n));
    }
    this.docs[this.size] = doc;
    this.tfs[this.size] = tf;
    this.lengths[this.size] = length;
    this.size++;
    this.live++;
    if (tf > this.maxTf) this.maxTf = tf;
    if (length < this.minLength) this.minLength = length;
  }
}

interface Doc {
  partition: Bm25Partition;
  /** The document's distinct term ids (to undo its document frequencies when it is removed). */
  terms: Int32Array;
  length: number;
}

/** One partition's inverted index (disjoint from the others'): postings per term id and the collection statistics. */
class Bm25Partition {
  readonly postings = new Map<number, Postings>();
  docs = 0;
  totalLength = 0;
  /** Postings of removed documents still in the lists (skipped while scoring, dropped by `compact`). */
  dead = 0;
  postingCount = 0;

  constructor(readonly scope: string) {}
}

/**
 * The whole of a `Bm25Index` as arrays (what `bm25-snapshot.ts` writes and reads). Postings lists are in partition
 * order, each partition's `lists` of them in a row; their postings, and the documents' term ids, one after another.
 * `capture` hands postings and term ids as the index's own arrays (a list's postings are the first `lists.size` of
 * its arrays) — safe to read later while the index changes: a list's postings up to its size are never written
 * again (a push writes past them or grows into a new array, a compaction makes a new list), nor a document's term ids.
 */
export interface Bm25State<Parts> {
  /** Term by id. */
  terms: readonly string[];
  partitions: readonly { scope: string; docs: number; totalLength: number; dead: number; postingCount: number; lists: number }[];
  lists: { term: Int32Array; size: Uint32Array; live: Uint32Array; maxTf: Uint16Array; minLength: Uint16Array };
  postings: {
    docs: Parts extends 'parts' ? Int32Array[] : Int32Array;
    tfs: Parts extends 'parts' ? Uint16Array[] : Uint16Array;
    lengths: Parts extends 'parts' ? Uint16Array[] : Uint16Array;
  };
  docs: {
    id: Int32Array;
    /** Index in `partitions`. */
    partition: Uint32Array;
    length: Uint32Array;
    termCount: Uint32Array;
    terms: Parts extends 'parts' ? Int32Array[] : Int32Array;
  };
  removed: { id: Int32Array; partition: Uint32Array };
}

/** Documents, and postings lists, restored (or captured) between two steps of `Bm25Index.restoring` (`capturing`): a millisecond or two of work. */
const RESTORE_STEP = 1_024;
const RESTORE_LISTS = 64;

/** Documents this many times the live postings or more in dead postings trigger a partition's compaction. */
const COMPACT_AT = 0.25;

/** A cursor over one term's postings in every searched partition (their documents are disjoint): the next document in order. */
class TermCursor {
  private readonly at: number[];
  doc = Infinity;
  tf = 0;
  length = 0;
  private list = -1;

  constructor(
    private readonly lists: readonly Postings[],
    readonly idf: number,
    readonly bound: number,
    private readonly removed: { has(doc: number): boolean; readonly size: number },
  ) {
    this.at = lists.map(() => 0);
    this.settle();
  }

  /** Moves to the smallest document not removed at or after each list's position. */
  private settle(): void {
    this.doc = Infinity;
    this.list = -1;
    // Plain loops, here and in seek: they run for every posting a search visits (forEach's callbacks were ~8% of its CPU profile).
    for (let i = 0; i < this.lists.length; i++) {
      const postings = this.lists[i] as Postings;
      let at = this.at[i] ?? 0;
      while (at < postings.size && this.removed.size > 0 && this.removed.has(postings.docs[at] ?? 0)) at++;
      this.at[i] = at;
      const doc = at < postings.size ? (postings.docs[at] ?? Infinity) : Infinity;
      if (doc < this.doc) {
        this.doc = doc;
        this.list = i;
        this.tf = postings.tfs[at] ?? 0;
        this.length = postings.lengths[at] ?? 0;
      }
    }
  }

  next(): void {
    if (this.list < 0) return;
    this.at[this.list] = (this.at[this.list] ?? 0) + 1;
    this.settle();
  }

  /** Moves to the first document ≥ target (galloping, then binary search, in each list). */
  seek(target: number): void {
    if (this.doc >= target) return;
    for (let i = 0; i < this.lists.length; i++) {
      const postings = this.lists[i] as Postings;
      let low = this.at[i] ?? 0;
      if (low >= postings.size || (postings.docs[low] ?? Infinity) >= target) continue;
      let step = 1;
      let high = low + 1;
      while (high < postings.size && (postings.docs[high] ?? Infinity) < target) {
        low = high;
        step *= 2;
        high = low + step;
      }
      high = Math.min(high, postings.size);
      while (low + 1 < high) {
        const mid = (low + high) >>> 1;
        if ((postings.docs[mid] ?? Infinity) < target) low = mid;
        else high = mid;
      }
      this.at[i] = high;
    }
    this.settle();
  }
}

/** The k best (score, doc) pairs seen, best first (ties: the lower document first); k is tens, so a sorted array. */
class TopK {
  readonly items: { doc: number; score: number }[] = [];
  /**
   * The score a document must beat to enter: −∞ until k are held. A field set by `offer`: the search reads it for every
   * candidate, and a getter over `items.at(-1)` was ~11% of its CPU profile.
   */
  threshold = -Infinity;
  constructor(private readonly k: number) {}

  offer(doc: number, score: number): void {
    const items = this.items;
    let at = items.length;
    while (at > 0) {
      const before = items[at - 1];
      if (!before || before.score > score || (before.score === score && before.doc < doc)) break;
      at--;
    }
    if (at >= this.k) return;
    items.splice(at, 0, { doc, score });
    if (items.length > this.k) items.pop();
    if (items.length >= this.k) this.threshold = items[items.length - 1]?.score ?? -Infinity;
  }
}

/**
 * The lexical side of the knowledge index in memory (ADR 0034, "Lexical side"): one BM25 inverted index per
 * partition — workspace and set of agent tags, so every chunk is in exactly one — searched with MaxScore dynamic
 * pruning. A query's statistics (documents, average length, each term's document frequency) are those of the
 * partitions it searches, i.e. of the chunks the caller may read; its top k is exactly the top k of scoring every
 * matching chunk with FTS5's bm25 formula (ties at the k-th score excepted), but a chunk is scored only while its
 * terms' upper bounds can still beat the k-th best. Documents are numbered by the caller in increasing order (the
 * log's row ids), so postings are appended sorted.
 */
export class Bm25Index {
  private readonly partitions = new Map<string, Bm25Partition>();
  private readonly docs = new Map<number, Doc>();
  /** Term (stemmed) → id: a document keeps its terms as ids, 4 bytes each. */
  private readonly vocabulary = new Map<string, number>();
  /** Word as written → its term's id: a word seen before is not stemmed again. */
  private readonly spellings = new Map<string, number>();
  /** Removed documents whose postings are still in their partition's lists. */
  private readonly removed = new Map<number, Bm25Partition>();

  /** Adds a document (a chunk's heading and text) to a partition; a number already held is left alone (replaying a log twice is harmless). */
  add(doc: number, scope: string, text: string): void {
    if (this.docs.has(doc)) return;
    const frequencies = new Map<number, number>();
    let length = 0;
    for (const word of words(text)) {
      let id = this.spellings.get(word);
      if (id === undefined) {
        const term = stem(word);
        id = this.vocabulary.get(term) ?? this.vocabulary.size;
        this.vocabulary.set(term, id);
        this.spellings.set(word, id);
      }
      frequencies.set(id, (frequencies.get(id) ?? 0) + 1);
      length++;
    }
    let partition = this.partitions.get(scope);
    if (!partition) {
      partition = new Bm25Partition(scope);
      this.partitions.set(scope, partition);
    }
    const stored = Math.min(length, 0xffff);
    for (const [term, tf] of frequencies) {
      let postings = partition.postings.get(term);
      if (!postings) {
        postings = new Postings();
        partition.postings.set(term, postings);
      }
      postings.push(doc, Math.min(tf, 0xffff), stored);
    }
    partition.postingCount += frequencies.size;
    partition.docs++;
    partition.totalLength += length;
    this.docs.set(doc, { partition, terms: Int32Array.from(frequencies.keys()), length });
  }

  remove(doc: number): void {
    const found = this.docs.get(doc);
    if (!found) return;
    const { partition, terms, length } = found;
    this.docs.delete(doc);
    this.removed.set(doc, partition);
    for (const term of terms) {
      const postings = partition.postings.get(term);
      if (postings) postings.live--;
    }
    partition.docs--;
    partition.totalLength -= length;
    partition.dead += terms.length;
    if (partition.dead >= COMPACT_AT * Math.max(1, partition.postingCount - partition.dead)) this.compact(partition);
  }

  /** Drops a partition's postings of removed documents (and tightens its bounds); an emptied partition goes. */
  private compact(partition: Bm25Partition): void {
    for (const [term, postings] of partition.postings) {
      if (postings.live === 0) {
        partition.postings.delete(term);
        continue;
      }
      if (postings.live === postings.size) continue;
      const kept = new Postings();
      for (let i = 0; i < postings.size; i++) {
        const doc = postings.docs[i] ?? 0;
        if (this.removed.has(doc)) continue;
        kept.push(doc, postings.tfs[i] ?? 0, postings.lengths[i] ?? 0);
      }
      partition.postings.set(term, kept);
    }
    partition.postingCount -= partition.dead;
    partition.dead = 0;
    // A removed document's postings were all in this partition: it is gone from every list now.
    for (const [doc, of] of this.removed) if (of === partition) this.removed.delete(doc);
    if (partition.docs === 0) this.partitions.delete(partition.scope);
  }

  /** The index as arrays, postings and term ids by reference (see `Bm25State`): costs a pass over the documents. */
  capture(): Bm25State<'parts'> {
    return stepsToEnd(this.capturing());
  }

  /**
   * `capture` in steps (a yield every RESTORE_STEP documents or lists): the caller must not change the index between
   * the first step and the last — it runs the rest at once before a change (`SqliteKnowledgeIndex`'s background save).
   */
  *capturing(): Generator<void, Bm25State<'parts'>> {
    const partitions = [...this.partitions.values()];
    const partitionIndex = new Map(partitions.map((p, i) => [p, i]));
    const listCount = partitions.reduce((n, p) => n + p.postings.size, 0);
    const lists = {
      term: new Int32Array(listCount),
      size: new Uint32Array(listCount),
      live: new Uint32Array(listCount),
      maxTf: new Uint16Array(listCount),
      minLength: new Uint16Array(listCount),
    };
    const postings = { docs: [] as Int32Array[], tfs: [] as Uint16Array[], lengths: [] as Uint16Array[] };
    let at = 0;
    for (const partition of partitions)
      for (const [term, list] of partition.postings) {
        lists.term[at] = term;
        lists.size[at] = list.size;
        lists.live[at] = list.live;
        lists.maxTf[at] = list.maxTf;
        lists.minLength[at] = list.minLength;
        postings.docs.push(list.docs);
        postings.tfs.push(list.tfs);
        postings.lengths.push(list.lengths);
        at++;
        if (at % RESTORE_STEP === 0) yield;
      }
    const docs = {
      id: new Int32Array(this.docs.size),
      partition: new Uint32Array(this.docs.size),
      length: new Uint32Array(this.docs.size),
      termCount: new Uint32Array(this.docs.size),
      terms: [] as Int32Array[],
    };
    at = 0;
    for (const [id, doc] of this.docs) {
      docs.id[at] = id;
      docs.partition[at] = partitionIndex.get(doc.partition) ?? 0;
      docs.length[at] = doc.length;
      docs.termCount[at] = doc.terms.length;
      docs.terms.push(doc.terms);
      at++;
      if (at % RESTORE_STEP === 0) yield;
    }
    const removed = { id: new Int32Array(this.removed.size), partition: new Uint32Array(this.removed.size) };
    at = 0;
    for (const [id, partition] of this.removed) {
      removed.id[at] = id;
      removed.partition[at] = partitionIndex.get(partition) ?? 0;
      at++;
    }
    return {
      terms: [...this.vocabulary.keys()],
      partitions: partitions.map((p) => ({
        scope: p.scope,
        docs: p.docs,
        totalLength: p.totalLength,
        dead: p.dead,
        postingCount: p.postingCount,
        lists: p.postings.size,
      })),
      lists,
      postings,
      docs,
      removed,
    };
  }

  /**
   * The index a `capture` was taken of (the same postings, bounds, removed documents and statistics, so the same
   * answers). Throws a RangeError when the arrays do not fit together (a damaged snapshot). Postings are copied into
   * lists of their own (they grow and are compacted); the documents' term ids stay views of `state.docs.terms`.
   */
  static restore(state: Bm25State<'whole'>): Bm25Index {
    return stepsToEnd(Bm25Index.restoring(state));
  }

  /**
   * `restore` in steps: yields after every RESTORE_STEP postings lists, documents or removed documents, so an open
   * in the background hands the event loop back between them. The index is not usable before the last step.
   */
  static *restoring(state: Bm25State<'whole'>): Generator<void, Bm25Index> {
    const fail = (what: string): never => {
      throw new RangeError(`inconsistent BM25 state: ${what}`);
    };
    const index = new Bm25Index();
    const terms = state.terms.length;
    state.terms.forEach((term, id) => index.vocabulary.set(term, id));
    if (index.vocabulary.size !== terms) fail('repeated term');
    const partitions = state.partitions.map((p) => {
      const partition = new Bm25Partition(p.scope);
      partition.docs = p.docs;
      partition.totalLength = p.totalLength;
      partition.dead = p.dead;
      partition.postingCount = p.postingCount;
      if (index.partitions.has(p.scope)) fail('repeated partition');
      index.partitions.set(p.scope, partition);
      return partition;
    });
    const { lists, postings } = state;
    const listCount = lists.term.length;
    if (state.partitions.reduce((n, p) => n + p.lists, 0) !== listCount) fail('list count');
    let list = 0;
    let offset = 0;
    for (const [i, p] of state.partitions.entries()) {
      const partition = partitions[i] ?? fail('partition');
      let postingCount = 0;
      for (const end = list + p.lists; list < end; list++) {
        const term = lists.term[list] ?? -1;
        const size = lists.size[list] ?? 0;
        const live = lists.live[list] ?? 0;
        if (term < 0 || term >= terms || partition.postings.has(term)) fail('list term');
        if (size === 0 || live > size || offset + size > postings.docs.length) fail('list size');
        const kept = new Postings();
        kept.docs = postings.docs.slice(offset, offset + size);
        kept.tfs = postings.tfs.slice(offset, offset + size);
        kept.lengths = postings.lengths.slice(offset, offset + size);
        kept.size = size;
        kept.live = live;
        kept.maxTf = lists.maxTf[list] ?? 0;
        kept.minLength = lists.minLength[list] ?? 0;
        partition.postings.set(term, kept);
        offset += size;
        postingCount += size;
        if (list % RESTORE_LISTS === 0) yield;
      }
      if (postingCount !== p.postingCount || p.dead > postingCount) fail('posting count');
    }
    if (offset !== postings.docs.length || postings.tfs.length !== offset || postings.lengths.length !== offset) fail('postings');
    const { docs } = state;
    const docsIn = new Array<number>(partitions.length).fill(0);
    let termAt = 0;
    for (let i = 0; i < docs.id.length; i++) {
      const p = docs.partition[i] ?? -1;
      const partition = partitions[p] ?? fail('document partition');
      const count = docs.termCount[i] ?? 0;
      if (termAt + count > docs.terms.length) fail('document terms');
      for (let t = termAt; t < termAt + count; t++) {
        const term = docs.terms[t] ?? -1;
        if (term < 0 || term >= terms) fail('document term');
      }
      const ids = docs.terms.subarray(termAt, termAt + count);
      termAt += count;
      const id = docs.id[i] ?? 0;
      if (index.docs.has(id)) fail('repeated document');
      index.docs.set(id, { partition, terms: ids, length: docs.length[i] ?? 0 });
      docsIn[p] = (docsIn[p] ?? 0) + 1;
      if (i % RESTORE_STEP === 0) yield;
    }
    if (termAt !== docs.terms.length) fail('document terms');
    if (partitions.some((p, i) => p.docs !== docsIn[i])) fail('document count');
    for (let i = 0; i < state.removed.id.length; i++) {
      const id = state.removed.id[i] ?? 0;
      if (index.docs.has(id)) fail('removed document held');
      index.removed.set(id, partitions[state.removed.partition[i] ?? -1] ?? fail('removed partition'));
      if (i % RESTORE_STEP === 0) yield;
    }
    return index;
  }

  /** Documents held (not removed). */
  get size(): number {
    return this.docs.size;
  }

  /** Postings held, removed documents' included: what the memory grows with (8 bytes each). */
  get postings(): number {
    let n = 0;
    for (const p of this.partitions.values()) n += p.postingCount;
    return n;
  }

  /**
   * The k best documents for the text's terms (any of them) among the partitions `searched` accepts, by BM25
   * (higher is better), best first.
   */
  search(text: string, k: number, searched: (scope: string) => boolean): { doc: number; score: number }[] {
    const queryTerms = [...new Set(words(text).map(stem))];
    const partitions = [...this.partitions.values()].filter((p) => searched(p.scope));
    const docs = partitions.reduce((n, p) => n + p.docs, 0);
    if (queryTerms.length === 0 || k < 1 || docs === 0) return [];
    const averageLength = partitions.reduce((n, p) => n + p.totalLength, 0) / docs;
    const { k1, b } = BM25;
    const cursors: TermCursor[] = [];
    for (const word of queryTerms) {
      const term = this.vocabulary.get(word);
      if (term === undefined) continue;
      const lists = partitions.flatMap((p) => {
        const postings = p.postings.get(term);
        return postings && postings.live > 0 ? [postings] : [];
      });
      if (lists.length === 0) continue;
      const frequency = lists.reduce((n, p) => n + p.live, 0);
      // FTS5's idf, floored the same way for terms in more than half the documents.
      const idf =
        Math.log((docs - frequency + 0.5) / (frequency + 0.5)) > 0 ? Math.log((docs - frequency + 0.5) / (frequency + 0.5)) : 1e-6;
      const maxTf = Math.max(...lists.map((p) => p.maxTf));
      const minLength = Math.min(...lists.map((p) => p.minLength));
      // The most any document can get from this term (a hair above, so summation order never makes it an underestimate).
      const bound = ((idf * maxTf * (k1 + 1)) / (maxTf + k1 * (1 - b + (b * minLength) / averageLength))) * (1 + 1e-9);
      cursors.push(new TermCursor(lists, idf, bound, this.removed));
    }
    if (cursors.length === 0) return [];
    cursors.sort((x, y) => x.bound - y.bound);
    // upTo[i]: the most the terms 0..i together can add.
    const upTo: number[] = [];
    cursors.reduce((sum, c, i) => (upTo[i] = sum + c.bound), 0);
    const termScore = (c: TermCursor): number => (c.idf * c.tf * (k1 + 1)) / (c.tf + k1 * (1 - b + (b * c.length) / averageLength));

    const top = new TopK(k);
    // Terms below `essential` cannot lift a document over the threshold on their own: candidates come from the others.
    let essential = 0;
    for (;;) {
      let doc = Infinity;
      for (let i = essential; i < cursors.length; i++) doc = Math.min(doc, cursors[i]?.doc ?? Infinity);
      if (doc === Infinity) break;
      let score = 0;
      for (let i = essential; i < cursors.length; i++) {
        const c = cursors[i];
        if (c?.doc === doc) {
          score += termScore(c);
          c.next();
        }
      }
      let pruned = false;
      for (let i = essential - 1; i >= 0; i--) {
        const c = cursors[i];
        if (!c || score + (upTo[i] ?? Infinity) <= top.threshold) {
          pruned = true;
          break;
        }
        c.seek(doc);
        if (c.doc === doc) score += termScore(c);
      }
      if (!pruned) top.offer(doc, score);
      while (essential < cursors.length && (upTo[essential] ?? Infinity) <= top.threshold) essential++;
    }
    return top.items;
  }
}
