/**
 * Reciprocal rank of the first relevant doc (grade >= 1): trec_eval's `recip_rank` (uncut,
 * m_recip_rank.c) with `k = Infinity`; with a finite k it is MRR@k as MS MARCO and mteb
 * report it (0 when the first relevant doc is below rank k). trec_eval has no cut version;
 * we name it `recip_rank_cut.k`.
 */
import { RELEVANCE_LEVEL } from './judged-topic.js';

export function reciprocalRank(rankedGrades: ArrayLike<number>, k: number): number {
  const n = Math.min(k, rankedGrades.length);
  for (let i = 0; i < n; i++) if (rankedGrades[i]! >= RELEVANCE_LEVEL) return 1 / (i + 1);
  return 0;
}
