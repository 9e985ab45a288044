import { LlmConfigurationError } from '@tenet/llm';
import { ConfigError, readSettings, VARIABLES, type Settings, type VariableName } from '@tenet/config';
import type { PrefilterRanking } from './hybrid-ranking.js';

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

/** The defaults of the configuration schema (`@tenet/config`), for a cache built without options. */
export const DEFAULT_EMBEDDING_CACHE_OPTIONS: Required<Omit<EmbeddingCacheOptions, 'now'>> = {
  maxEntries: VARIABLES.TENET_EMBEDDING_CACHE_MAX_ENTRIES.fallback,
  maxQueryEntries: VARIABLES.TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES.fallback,
  timeoutMs: VARIABLES.TENET_EMBEDDING_TIMEOUT_MS.fallback,
  backoffMs: VARIABLES.TENET_EMBEDDING_BACKOFF_MS.fallback,
  backoffMaxMs: VARIABLES.TENET_EMBEDDING_BACKOFF_MAX_MS.fallback,
};

/** The config schema's failure, as the matcher's start-up error (names the variable and the rule). */
function settingsOf<const N extends VariableName>(env: Record<string, string | undefined>, names: readonly N[]): Pick<Settings, N> {
  try {
    return readSettings(env, names);
  } catch (error) {
    throw error instanceof ConfigError ? new LlmConfigurationError(error.problems.join('; ')) : error;
  }
}

export const MATCHER_VARIABLES = [
  'TENET_PREFILTER_ALWAYS_KEEP_CAP',
  'TENET_PREFILTER_RANKING',
  'TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES',
] as const;
export const EMBEDDING_CACHE_VARIABLES = [
  'TENET_EMBEDDING_CACHE_MAX_ENTRIES',
  'TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES',
  'TENET_EMBEDDING_TIMEOUT_MS',
  'TENET_EMBEDDING_BACKOFF_MS',
  'TENET_EMBEDDING_BACKOFF_MAX_MS',
] as const;

/** The matcher's options from the environment (rules and defaults: `@tenet/config`; bad values fail at startup). */
export function guidelineMatcherOptionsFrom(env: Record<string, string | undefined>): GuidelineMatcherOptions {
  return guidelineMatcherOptionsOf(settingsOf(env, MATCHER_VARIABLES));
}

/** The matcher's options from validated settings (`TenetConfig.pick(MATCHER_VARIABLES)`). */
export function guidelineMatcherOptionsOf(settings: Pick<Settings, (typeof MATCHER_VARIABLES)[number]>): GuidelineMatcherOptions {
  const cap = settings.TENET_PREFILTER_ALWAYS_KEEP_CAP;
  return {
    ...(cap !== undefined ? { alwaysKeepCap: cap } : {}),
    ranking: settings.TENET_PREFILTER_RANKING,
    lexicalIndexCacheMaxEntries: settings.TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES,
  };
}

/** The embedding cache's options from the environment (rules and defaults: `@tenet/config`; bad values fail at startup). */
export function embeddingCacheOptionsFrom(env: Record<string, string | undefined>): EmbeddingCacheOptions {
  return embeddingCacheOptionsOf(settingsOf(env, EMBEDDING_CACHE_VARIABLES));
}

/** The embedding cache's options from validated settings (`TenetConfig.pick(EMBEDDING_CACHE_VARIABLES)`). */
export function embeddingCacheOptionsOf(settings: Pick<Settings, (typeof EMBEDDING_CACHE_VARIABLES)[number]>): EmbeddingCacheOptions {
  return {
    maxEntries: settings.TENET_EMBEDDING_CACHE_MAX_ENTRIES,
    maxQueryEntries: settings.TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES,
    timeoutMs: settings.TENET_EMBEDDING_TIMEOUT_MS,
    backoffMs: settings.TENET_EMBEDDING_BACKOFF_MS,
    backoffMaxMs: settings.TENET_EMBEDDING_BACKOFF_MAX_MS,
  };
}
