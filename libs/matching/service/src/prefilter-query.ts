import type { GlossaryTerm } from '@tenet/llm';
import { isTopicFree, topicWords, type WeightedText } from '@tenet/matching-domain';

/** Where a part of the prefilter query comes from. */
export type QueryPartSource = 'message' | 'last_agent' | 'previous_customer';

export interface QueryPart extends WeightedText {
  source: QueryPartSource;
}

export interface PrefilterQuery {
  /** The texts the conversation is compared with, each with its weight (parts without text are left out). */
  parts: QueryPart[];
  /** The message has no topic of its own ("yes", "ok", "12345"): the query leans on the conversation. */
  topicFree: boolean;
  /** Glossary terms whose name or synonym the parts use: each such part carries the term's name and description. */
  glossary: string[];
}

/**
 * How much each part of the conversation counts. A topical message leads, and the agent's last message and the
 * customer's previous one add context at half weight (a follow-up keeps its topic without being drowned by it).
 * A topic-free message ("yes", "go ahead", "12345") is an answer to the agent: the agent's last message (usually
 * the question it answers) and the customer's previous one (what the exchange is about) lead, and the message
 * itself only tips the balance.
 */
export const QUERY_WEIGHTS: Record<'topical' | 'topicFree', Record<QueryPartSource, number>> = {
  topical: { message: 1, last_agent: 0.5, previous_customer: 0.5 },
  topicFree: { message: 0.25, last_agent: 1, previous_customer: 1 },
};

export interface ConversationTurn {
  role: 'customer' | 'agent';
  content: string;
}

/** True when `wanted` (a phrase's `topicWords`, not empty) occurs, in order and next to each other, among `words`. */
function containsRun(words: readonly string[], wanted: readonly string[]): boolean {
  for (let i = 0; i + wanted.length <= words.length; i++) if (wanted.every((w, j) => words[i + j] === w)) return true;
  return false;
}

/**
 * The glossary terms any of `texts` uses, by name or synonym, read as `topicWords` (case, accents, stop words and
 * plurals do not matter: "Gold tiers" uses "gold tier"). The one rule for "this turn mentions that term", shared
 * by the prefilter query and the terms the matcher sends with the evaluation. Each text and each phrase is
 * tokenised once (the matcher passes the history and every kept condition on every turn).
 */
export function glossaryTermsUsed<T extends Pick<GlossaryTerm, 'name' | 'synonyms'>>(terms: readonly T[], texts: readonly string[]): T[] {
  if (terms.length === 0) return [];
  const wordLists = texts.map(topicWords);
  return terms.filter((t) =>
    [t.name, ...t.synonyms].some((phrase) => {
      const wanted = topicWords(phrase);
      return wanted.length > 0 && wordLists.some((words) => containsRun(words, wanted));
    }),
  );
}

/** The part's text with the name and description of every glossary term it uses (by name or synonym) appended. */
function expandWithGlossary(text: string, terms: readonly GlossaryTerm[], used: Set<string>): string {
  const expansions = glossaryTermsUsed(terms, [text]);
  for (const t of expansions) used.add(t.name);
  return [text, ...expansions.map((t) => (t.description.trim() ? `${t.name}: ${t.description}` : t.name))].join('\n');
}

/**
 * The text the prefilter compares guidelines with: the customer's message, the agent's last message and the
 * customer's previous message, weighted by `QUERY_WEIGHTS`, each expanded with the glossary terms it uses so that
 * "can I get my cash back" finds a guideline written about "refunds" when the glossary says so.
 */
export function prefilterQuery(input: {
  message: string;
  history: readonly ConversationTurn[];
  terms?: readonly GlossaryTerm[];
}): PrefilterQuery {
  const topicFree = isTopicFree(input.message);
  const weights = QUERY_WEIGHTS[topicFree ? 'topicFree' : 'topical'];
  const lastOf = (role: ConversationTurn['role']): string => [...input.history].reverse().find((t) => t.role === role)?.content ?? '';
  const used = new Set<string>();
  const terms = input.terms ?? [];
  const parts = (
    [
      ['message', input.message],
      ['last_agent', lastOf('agent')],
      ['previous_customer', lastOf('customer')],
    ] as const
  ).flatMap(([source, text]): QueryPart[] =>
    text.trim() === '' ? [] : [{ source, text: expandWithGlossary(text, terms, used), weight: weights[source] }],
  );
  return { parts, topicFree, glossary: terms.filter((t) => used.has(t.name)).map((t) => t.name) };
}

/**
 * The query vector: the weighted sum of the parts' unit vectors (a zero or missing vector adds nothing), so each
 * part counts by its weight whatever its length. Empty when no part has a vector: similar to nothing.
 */
export function combineQueryVectors(parts: readonly { weight: number; vector: ArrayLike<number> }[]): number[] {
  const withVectors = parts.filter((p) => p.vector.length > 0);
  const dimensions = withVectors[0]?.vector.length ?? 0;
  const sum = new Array<number>(dimensions).fill(0);
  for (const { weight, vector } of withVectors) {
    if (vector.length !== dimensions) throw new RangeError(`query parts have vectors of ${dimensions} and ${vector.length} dimensions`);
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += (vector[i] ?? 0) ** 2;
    if (norm === 0) continue;
    const scale = weight / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) sum[i] = (sum[i] ?? 0) + (vector[i] ?? 0) * scale;
  }
  return sum.some((x) => x !== 0) ? sum : [];
}
