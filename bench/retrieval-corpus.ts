/**
 * The synthetic knowledge corpus of the retrieval benches (bench:retrieval and bench/retrieval-ann.bench.ts): the same
 * seeded words, sentences and queries in both, so a graph setting swept by one is measured on the corpus of the other.
 */
// The module, not @tenet/testing's index: the bench's RSS must not carry the test harness (NATS, Redis, containers).
import { seededRandom } from '../libs/testing/src/seeded-random.js';

/** The one sequence a bench process draws its corpus and queries from. */
export const random = seededRandom(13);
const SYLLABLES = ['ka', 'ro', 'mi', 'tel', 'san', 'vo', 'ler', 'din', 'pa', 'zu', 'qui', 'bor', 'nel', 'fa', 'gri', 'hul'];
const VOCABULARY = Array.from({ length: 4_000 }, (_, i) => {
  let word = '';
  for (let n = i + 7; word.length < 6 || n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return word;
});
/** Zipf-like: frequent words are much more frequent. */
const word = (): string => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 2.2)] ?? 'ka';
export const sentence = (n: number): string => Array.from({ length: n }, word).join(' ');

/** Queries: 6 consecutive words of a random chunk. */
export function queriesFrom(chunkTexts: readonly string[][], n: number): string[] {
  return Array.from({ length: n }, () => {
    const source = chunkTexts[Math.floor(random() * chunkTexts.length)]!;
    const words = source[Math.floor(random() * source.length)]!.split(' ');
    const at = Math.floor(random() * (words.length - 6));
    return words.slice(at, at + 6).join(' ');
  });
}

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
export const ms = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(0));
