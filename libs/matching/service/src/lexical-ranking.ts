// BM25 ranking moved to matching-domain (pure) so the memory service ranks knowledge chunks with the same code.
export { LexicalIndex, isTopicFree, lexicalSimilarity, queryWordWeights, stem, topicWords, type RankedDocument, type WeightedText } from '@tenet/matching-domain';
