import { embeddingCacheOptionsFrom, guidelineMatcherOptionsFrom } from './matcher-options.js';

describe('matcher options from the environment', () => {
  it('given no variables, when reading the options, then the defaults apply (nothing is set)', () => {
    expect(guidelineMatcherOptionsFrom({})).toEqual({});
    expect(embeddingCacheOptionsFrom({})).toEqual({});
  });

  it('given the variables, when reading the options, then the cap, the ranking, the cache bounds and the timeout are taken from them', () => {
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_ALWAYS_KEEP_CAP: '25' })).toEqual({ alwaysKeepCap: 25 });
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_ALWAYS_KEEP_CAP: 'off' })).toEqual({ alwaysKeepCap: Infinity });
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_RANKING: 'lexical', TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES: '16' })).toEqual({ ranking: 'lexical', lexicalIndexCacheMaxEntries: 16 });
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_RANKING: ' Embedding ' })).toEqual({ ranking: 'embedding' });
    expect(guidelineMatcherOptionsFrom({ TENET_PREFILTER_RANKING: '' })).toEqual({});
    expect(embeddingCacheOptionsFrom({ TENET_EMBEDDING_CACHE_MAX_ENTRIES: '1000', TENET_EMBEDDING_QUERY_CACHE_MAX_ENTRIES: '0', TENET_EMBEDDING_TIMEOUT_MS: '2500' })).toEqual({
      maxEntries: 1000,
      maxQueryEntries: 0,
      timeoutMs: 2500,
    });
  });

  it('given values that cannot work, when reading the options, then startup fails naming the variable', () => {
    expect(() => guidelineMatcherOptionsFrom({ TENET_PREFILTER_ALWAYS_KEEP_CAP: '-1' })).toThrow('TENET_PREFILTER_ALWAYS_KEEP_CAP');
    expect(() => guidelineMatcherOptionsFrom({ TENET_PREFILTER_RANKING: 'bm25' })).toThrow('TENET_PREFILTER_RANKING must be one of hybrid, embedding, lexical');
    expect(() => guidelineMatcherOptionsFrom({ TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES: '0' })).toThrow('TENET_LEXICAL_INDEX_CACHE_MAX_ENTRIES');
    expect(() => embeddingCacheOptionsFrom({ TENET_EMBEDDING_CACHE_MAX_ENTRIES: '0' })).toThrow('TENET_EMBEDDING_CACHE_MAX_ENTRIES');
    expect(() => embeddingCacheOptionsFrom({ TENET_EMBEDDING_TIMEOUT_MS: 'soon' })).toThrow('TENET_EMBEDDING_TIMEOUT_MS');
  });
});
