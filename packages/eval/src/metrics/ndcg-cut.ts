/**
 * nDCG@k exactly as trec_eval 9.0.8 `ndcg_cut.k` (m_ndcg_cut.c):
 *   DCG@k  = sum_{i=1..min(k,n)} gain(doc_i) / log2(i + 1),  gain = the raw grade (linear, not
 *            2^g - 1); grades <= 0 gain nothing (trec_eval builds gains only for levels >= 0).
 *   IDCG@k = the same sum over the ideal list: every judged doc with grade > 0 for the topic,
 *            retrieved or not, sorted by grade descending, cut at k.
 *   nDCG@k = DCG@k / IDCG@k, and 0 when IDCG is 0 (a topic with no relevant docs).
 * `k = Infinity` gives trec_eval's uncut `ndcg`. A run shorter than k simply stops adding.
 *
 * @example ndcgCut([2, 0, 1], judgeTopic(new Map([['a', 2], ['c', 1]])), 3)
 */
import type { JudgedTopic } from './judged-topic.js';

export function ndcgCut(rankedGrades: ArrayLike<number>, topic: JudgedTopic, k: number): number {
  let dcg = 0;
  const n = Math.min(k, rankedGrades.length);
  for (let i = 0; i < n; i++) {
    const g = rankedGrades[i]!;
    if (g > 0) dcg += g / Math.log2(i + 2);
  }
  let idcg = 0;
  const m = Math.min(k, topic.idealGains.length);
  for (let i = 0; i < m; i++) idcg += topic.idealGains[i]! / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}
