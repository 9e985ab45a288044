import { DEFAULT_PREFILTER_RANKING } from './hybrid-ranking.js';
import { DEFAULT_LEXICAL_INDEX_CACHE_ENTRIES } from './lexical-index-cache.js';
import { DEFAULT_EMBEDDING_CACHE_OPTIONS, embeddingCacheOptionsFrom, guidelineMatcherOptionsFrom } from './matcher-options.js';

// The schema's defaults (libs/platform/config) are the matcher's own: the options read with nothing set change nothing.
const DEFAULTS = { ranking: DEFAULT_PREFILTER_RANKING, lexicalIndexCacheMaxEntries: DEFAULT_LEXICAL_INDEX_CACHE_ENTRIES };

describe('matcher options from the environment', () => {
  it('given no variables, when reading the options, then the defaults of the config schema apply (the always-keep cap is left to the matcher)', () => {
    expect(guidelineMatcherOptionsFrom({})).toEqual(DEFAULTS);
    expect(embeddingCacheOptionsFrom({})).toEqual(DEFAULT_EMBEDDING_CACHE_OPTIONS);
  });

  it('given the variables, when reading the options, then the cap, the ranking, the cache bounds and the timeout are taken from them', () => {
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_ALWAYS_KEEP_CAP: '25' })).toEqual({ ...DEFAULTS, alwaysKeepCap: 25 });
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_ALWAYS_KEEP_CAP: 'off' })).toEqual({ ...DEFAULTS, alwaysKeepCap: Infinity });
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_RANKING: 'lexical', TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES: '16' })).toEqual({
      ...DEFAULTS,
      ranking: 'lexical',
      lexicalIndexCacheMaxEntries: 16,
    });
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_RANKING: ' Embedding ' })).toEqual({ ...DEFAULTS, ranking: 'embedding' });
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_RANKING: '' })).toEqual(DEFAULTS);
    expect(
      embeddingCacheOptionsFrom({
        TENET_EMBEDDING_CACHE_MAX_ENTRIES: '1000',
        TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES: '0',
        TENET_EMBEDDING_TIMEOUT_MS: '2500',
      }),
    ).toEqual({
      ...DEFAULT_EMBEDDING_CACHE_OPTIONS,
      maxEntries: 1000,
      maxQueryEntries: 0,
      timeoutMs: 2500,
    });
  });

  it('given values that cannot work, when reading the options, then startup fails naming the variable', () => {
    expect(() => guidelineMatcherOptionsFrom({ TENET_PREFILTER_ALWAYS_KEEP_CAP: '-1' })).toThrow(
      'TENET_PREFILTER_ALWAYS_KEEP_CAP must be an integer ≥ 0, or off (got "-1")',
    );
    expect(() => guidelineMatcherOptionsFrom({ TENET_PREFILTER_RANKING: 'bm25' })).toThrow(
      'TENET_PREFILTER_RANKING must be one of hybrid, embedding, lexical',
    );
    expect(() => guidelineMatcherOptionsFrom({ TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES: '0' })).toThrow(
      'TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES',
    );
    expect(() => embeddingCacheOptionsFrom({ TENET_EMBEDDING_CACHE_MAX_ENTRIES: '0' })).toThrow('TENET_EMBEDDING_CACHE_MAX_ENTRIES');
    expect(() => embeddingCacheOptionsFrom({ TENET_EMBEDDING_TIMEOUT_MS: 'soon' })).toThrow('TENET_EMBEDDING_TIMEOUT_MS');
  });
});
