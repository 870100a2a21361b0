/**
 * Average precision exactly as trec_eval 9.0.8 `map_cut.k` (m_map_cut.c) and `map` (m_map.c):
 *   AP@k = (1 / R) * sum over relevant docs at rank i <= k of (relevant docs in ranks 1..i) / i
 * where R is the number of relevant docs (grade >= 1) for the topic in the qrels, retrieved or
 * not, and AP = 0 when R = 0. `k = Infinity` is the uncut `map`.
 */
import { type JudgedTopic, RELEVANCE_LEVEL } from './judged-topic.js';

export function averagePrecision(rankedGrades: ArrayLike<number>, topic: JudgedTopic, k: number): number {
  if (topic.numRel === 0) return 0;
  let relSoFar = 0;
  let sum = 0;
  const n = Math.min(k, rankedGrades.length);
  for (let i = 0; i < n; i++) {
    if (rankedGrades[i]! >= RELEVANCE_LEVEL) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return sum / topic.numRel;
}
