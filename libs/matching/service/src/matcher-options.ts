import { LlmConfigurationError } from '@tenet/llm';
import { PREFILTER_RANKINGS, type PrefilterRanking } from './hybrid-ranking.js';

/** The Nest token under which a host may provide `GuidelineMatcherOptions`; without it they come from the environment. */
export const GUIDELINE_MATCHER_OPTIONS = 'TENET_GUIDELINE_MATCHER_OPTIONS';

/** Where the matcher reports what an operator must see (a degraded prefilter); Nest's `Logger` by default. */
export interface MatcherLogger {
  warn(message: string): void;
}

export interface GuidelineMatcherOptions {
  /**
   * At most this many guidelines are kept by an always-keep rule on top of `prefilter_k` (see the domain's
   * `prefilterCandidates`). Default: what fits the turn's call budget (`budgetCap`), never below max(prefilter_k, 40).
   * `Infinity` turns the cap off.
   * Environment: `TENET_PREFILTER_ALWAYS_KEEP_CAP` (an integer ≥ 0, or `off`).
   */
  alwaysKeepCap?: number;
  /**
   * How the prefilter ranks candidates: `hybrid` (default) fuses the embedding similarity and BM25 by reciprocal
   * rank; `embedding` ranks by embedding similarity alone; `lexical` by BM25 alone and embeds nothing. With
   * `hybrid` or `embedding`, a turn whose embeddings fail ranks by BM25 and is marked degraded.
   * Environment: `TENET_PREFILTER_RANKING`.
   */
  ranking?: PrefilterRanking;
  /**
   * BM25 indexes kept (one per candidate set: an agent version), least recently used evicted first. Default 256.
   * Environment: `TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES`.
   */
  lexicalIndexCacheMaxEntries?: number;
  logger?: MatcherLogger;
  /** Milliseconds, for throttling repeated warnings. Default `performance.now`. */
  now?: () => number;
}

export interface EmbeddingCacheOptions {
  /**
   * Guideline vectors kept, least recently used evicted first. Default 50,000 — about 300 MB of Float32 at 1536
   * dimensions, 100 MB at the offline vectorizer's 512. Environment: `TENET_EMBEDDING_CACHE_MAX_ENTRIES`.
   */
  maxEntries?: number;
  /**
   * Conversation (query) vectors kept, in their own LRU so they never evict guideline vectors; they mostly pay off
   * when the previous message comes back as history. Default 1,000; 0 caches none.
   * Environment: `TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES`.
   */
  maxQueryEntries?: number;
  /**
   * A provider call that has not answered by then fails the lookup with `LLM.UNAVAILABLE`, and the matcher ranks
   * lexically for that turn; the late answer is still cached. Default 10,000 ms. Environment:
   * `TENET_EMBEDDING_TIMEOUT_MS`.
   */
  timeoutMs?: number;
  /**
   * After a failed embedding call, no call is made for this long (the matcher ranks lexically); each failed trial
   * doubles it up to `backoffMaxMs`, a successful one resets it. Default 5,000 ms. Environment:
   * `TENET_EMBEDDING_BACKOFF_MS`.
   */
  backoffMs?: number;
  /** The longest backoff interval. Default 300,000 ms. Environment: `TENET_EMBEDDING_BACKOFF_MAX_MS`. */
  backoffMaxMs?: number;
  /** The breaker's clock, in milliseconds (tests). Default `Date.now`. */
  now?: () => number;
}

export const DEFAULT_EMBEDDING_CACHE_OPTIONS: Required<Omit<EmbeddingCacheOptions, 'now'>> = { maxEntries: 50_000, maxQueryEntries: 1_000, timeoutMs: 10_000, backoffMs: 5_000, backoffMaxMs: 300_000 };

function integerFrom(env: Record<string, string | undefined>, name: string, minimum: number): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) throw new LlmConfigurationError(`${name} must be an integer ≥ ${minimum}, got "${raw}"`);
  return value;
}

/** The matcher's options from the environment (unset variables keep the defaults; bad values fail at startup). */
export function guidelineMatcherOptionsFrom(env: Record<string, string | undefined>): GuidelineMatcherOptions {
  const off = env['TENET_PREFILTER_ALWAYS_KEEP_CAP']?.trim().toLowerCase() === 'off';
  const cap = off ? Infinity : integerFrom(env, 'TENET_PREFILTER_ALWAYS_KEEP_CAP', 0);
  const rawRanking = env['TENET_PREFILTER_RANKING']?.trim().toLowerCase();
  if (rawRanking && !(PREFILTER_RANKINGS as readonly string[]).includes(rawRanking)) {
    throw new LlmConfigurationError(`TENET_PREFILTER_RANKING must be one of ${PREFILTER_RANKINGS.join(', ')}, got "${env['TENET_PREFILTER_RANKING']}"`);
  }
  const ranking = rawRanking ? (rawRanking as PrefilterRanking) : undefined;
  const lexicalIndexCacheMaxEntries = integerFrom(env, 'TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES', 1);
  return {
    ...(cap !== undefined ? { alwaysKeepCap: cap } : {}),
    ...(ranking !== undefined ? { ranking } : {}),
    ...(lexicalIndexCacheMaxEntries !== undefined ? { lexicalIndexCacheMaxEntries } : {}),
  };
}

/** The embedding cache's options from the environment (unset variables keep the defaults; bad values fail at startup). */
export function embeddingCacheOptionsFrom(env: Record<string, string | undefined>): EmbeddingCacheOptions {
  const maxEntries = integerFrom(env, 'TENET_EMBEDDING_CACHE_MAX_ENTRIES', 1);
  const maxQueryEntries = integerFrom(env, 'TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES', 0);
  const timeoutMs = integerFrom(env, 'TENET_EMBEDDING_TIMEOUT_MS', 1);
  const backoffMs = integerFrom(env, 'TENET_EMBEDDING_BACKOFF_MS', 1);
  const backoffMaxMs = integerFrom(env, 'TENET_EMBEDDING_BACKOFF_MAX_MS', 1);
  return {
    ...(maxEntries !== undefined ? { maxEntries } : {}),
    ...(maxQueryEntries !== undefined ? { maxQueryEntries } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(backoffMs !== undefined ? { backoffMs } : {}),
    ...(backoffMaxMs !== undefined ? { backoffMaxMs } : {}),
  };
}
