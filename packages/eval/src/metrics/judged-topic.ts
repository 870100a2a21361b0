/**
 * One topic's relevance judgements in the form every trec_eval measure reads: the grade of
 * each judged doc, the number of relevant docs (grade >= 1, trec_eval's default
 * `relevance_level`) and the ideal gain vector (positive grades, descending) that nDCG
 * normalises by. Built once per topic and shared by all measures.
 */

/** trec_eval's default `-l` relevance level: grade >= 1 is relevant for binary measures. */
export const RELEVANCE_LEVEL = 1;

export interface JudgedTopic {
  readonly grades: ReadonlyMap<string, number>;
  /** Docs with grade >= RELEVANCE_LEVEL, retrieved or not. */
  readonly numRel: number;
  /** Gains of all judged docs with grade > 0, sorted descending (trec_eval's ideal list). */
  readonly idealGains: readonly number[];
}

export function judgeTopic(grades: ReadonlyMap<string, number>): JudgedTopic {
  let numRel = 0;
  const ideal: number[] = [];
  for (const g of grades.values()) {
    if (g >= RELEVANCE_LEVEL) numRel++;
    if (g > 0) ideal.push(g);
  }
  ideal.sort((a, b) => b - a);
  return { grades, numRel, idealGains: ideal };
}

/**
 * Grades of a ranked list, in rank order, as trec_eval's `results_rel_list`: judged docs
 * get their grade, unjudged docs 0 (they gain nothing and are not relevant).
 */
export function gradesOf(ranked: readonly string[], topic: JudgedTopic): Int32Array {
  const out = new Int32Array(ranked.length);
  for (let i = 0; i < ranked.length; i++) out[i] = topic.grades.get(ranked[i]!) ?? 0;
  return out;
}
