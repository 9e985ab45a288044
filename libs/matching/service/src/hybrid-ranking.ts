/**
 * The prefilter's hybrid ranking: the embedding similarity and the BM25 score of each candidate fused into one
 * score, so the k kept do not depend on one signal. Pure and deterministic.
 */

/** How the prefilter ranks candidates (`TENET_PREFILTER_RANKING`; `provenance.prefilter.ranking` says which one a turn used). */
export const PREFILTER_RANKINGS = ['hybrid', 'embedding', 'lexical'] as const;
export type PrefilterRanking = (typeof PREFILTER_RANKINGS)[number];
export const DEFAULT_PREFILTER_RANKING: PrefilterRanking = 'hybrid';

/** One signal's scores (higher is more relevant) and how much it counts. */
export interface RankingSignal {
  scores: ReadonlyMap<string, number>;
  weight?: number;
}

/** Reciprocal rank fusion's constant in the literature (Cormack et al. 2009, fusing deep result lists). */
export const RRF_C = 60;

/**
 * The matcher's constant, measured on the labelled set (docs/benchmarks.md, "How the fusion was chosen"): the
 * prefilter keeps only the top k (10–80) of up to ~1000 candidates, so the head of each ranking is what matters.
 * With c = 60 a guideline one signal ranks first and the other 100th loses to every guideline both rank in their
 * top 28; with c = 3 only to those both rank in their top 4. Recall (similarity only and with the
 * always-keep rules) was the same for every c from 1 to 6, at k = 10, 20, 40, 80 and at 100 and 1000 guidelines;
 * c = 10 was one pair lower in one case, 30 and 60 lower at k = 10 and 20. 3 is the middle of that plateau.
 */
export const HYBRID_RRF_C = 3;

/**
 * Reciprocal rank fusion: each candidate scores Σ weight / (c + rank) over the signals, where rank is its position
 * in that signal, best first. Candidates with the same score share a rank, so the order of the map does not
 * matter: by default the mean of their positions (100 guidelines tied 2nd–101st are each 51.5th — a tie group is
 * not promoted as a whole to its best position), or with `ties: 'min'` the first (competition rank). A candidate a
 * signal scores 0 or less is not ranked by it and gets nothing from it (BM25 0 = no word in common; cosine 0 = a
 * query or guideline without a vector). Only ranks count, not the scores' scale — cosines of one embedding model
 * cluster differently from another's, BM25 is unbounded — so the fusion needs no per-model calibration. Scaled so
 * a candidate ranked first alone by every signal scores 1; a candidate no signal ranks scores 0.
 */
export function reciprocalRankFusion(
  signals: readonly RankingSignal[],
  c: number,
  ties: 'average' | 'min' = 'average',
): Map<string, number> {
  if (!(c >= 0)) throw new RangeError(`reciprocal rank fusion needs c ≥ 0, got ${c}`);
  const fused = new Map<string, number>();
  let best = 0;
  for (const { scores, weight = 1 } of signals) {
    if (!(weight > 0)) {
      for (const id of scores.keys()) if (!fused.has(id)) fused.set(id, 0);
      continue;
    }
    best += weight / (c + 1);
    const rankOf = ranksOf(scores, ties);
    for (const [id, s] of scores) {
      const rank = s > 0 ? rankOf.get(s) : undefined;
      fused.set(id, (fused.get(id) ?? 0) + (rank === undefined ? 0 : weight / (c + rank)));
    }
  }
  if (best > 0) for (const [id, s] of fused) fused.set(id, s / best);
  return fused;
}

/** The rank of each positive score, best first: tied scores share the mean of their positions, or the first. */
function ranksOf(scores: ReadonlyMap<string, number>, ties: 'average' | 'min'): Map<number, number> {
  const positive: number[] = [];
  for (const s of scores.values()) if (s > 0) positive.push(s);
  const ascending = Float64Array.from(positive).sort();
  const n = ascending.length;
  const rankOf = new Map<number, number>();
  // Walk from the best score down; a run of equal scores ascending[j..i] holds positions n − i … n − j (1-based, best first).
  for (let i = n - 1; i >= 0;) {
    const score = ascending[i] ?? 0;
    let j = i;
    while (j > 0 && ascending[j - 1] === score) j -= 1;
    rankOf.set(score, ties === 'min' ? n - i : (2 * n - i - j) / 2);
    i = j - 1;
  }
  return rankOf;
}

/**
 * A weighted sum of per-turn normalised scores, Σ weight × normalised / Σ weight, each signal normalised over
 * this turn's candidates: `max` divides by its best score (negative scores count as 0), `min-max` maps its
 * lowest score to 0 and its best to 1. Scale-sensitive: how a model's cosines spread decides how much it counts.
 * Kept for the benchmark's comparison (docs/benchmarks.md); the matcher fuses by rank.
 */
export function weightedScoreFusion(signals: readonly RankingSignal[], normalisation: 'max' | 'min-max' = 'max'): Map<string, number> {
  const fused = new Map<string, number>();
  let total = 0;
  for (const { scores, weight = 1 } of signals) {
    for (const id of scores.keys()) if (!fused.has(id)) fused.set(id, 0);
    if (!(weight > 0)) continue;
    total += weight;
    let best = -Infinity;
    let worst = Infinity;
    for (const s of scores.values()) {
      best = Math.max(best, s);
      worst = Math.min(worst, s);
    }
    const floor = normalisation === 'min-max' ? worst : 0;
    if (!(best > floor)) continue;
    for (const [id, s] of scores) if (s > floor) fused.set(id, (fused.get(id) ?? 0) + (weight * (s - floor)) / (best - floor));
  }
  if (total > 0) for (const [id, s] of fused) fused.set(id, s / total);
  return fused;
}

/**
 * The matcher's hybrid similarity: the embedding cosines and the BM25 scores of the same candidates, fused by
 * `reciprocalRankFusion` with equal weights and c = `HYBRID_RRF_C` (3). The benchmark replays the prefilter with
 * this function.
 */
export function hybridSimilarity(embedding: ReadonlyMap<string, number>, lexical: ReadonlyMap<string, number>): Map<string, number> {
  return reciprocalRankFusion([{ scores: embedding }, { scores: lexical }], HYBRID_RRF_C);
}
