/**
 * Precision and recall at a cutoff, as trec_eval 9.0.8 `P.k` (m_P.c) and `recall.k`
 * (m_recall.c):
 *   P@k      = (relevant docs in ranks 1..k) / k      (divides by k even when fewer were retrieved)
 *   recall@k = (relevant docs in ranks 1..k) / R      (0 when the topic has no relevant doc)
 */
import { type JudgedTopic, RELEVANCE_LEVEL } from './judged-topic.js';

function relevantInTop(rankedGrades: ArrayLike<number>, k: number): number {
  let n = 0;
  const m = Math.min(k, rankedGrades.length);
  for (let i = 0; i < m; i++) if (rankedGrades[i]! >= RELEVANCE_LEVEL) n++;
  return n;
}

export function precisionAt(rankedGrades: ArrayLike<number>, k: number): number {
  return relevantInTop(rankedGrades, k) / k;
}

export function recallAt(rankedGrades: ArrayLike<number>, topic: JudgedTopic, k: number): number {
  return topic.numRel > 0 ? relevantInTop(rankedGrades, k) / topic.numRel : 0;
}
