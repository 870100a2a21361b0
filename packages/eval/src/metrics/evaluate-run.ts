/**
 * trec_eval over a whole run: ranks each topic the trec_eval way (score descending, ties by
 * doc id descending in byte order, the run's rank column ignored; scores rounded to float32
 * first unless `float32: false`, for pytrec_eval parity), computes each requested measure
 * per topic, and averages over the topics present in both the run and the qrels (trec_eval's
 * default, without `-c`). Topics judged but not retrieved are left out of the mean, and
 * topics with no relevant docs count with their zeros.
 */
import { type Qrels, type Run, rankTopic } from '@dv/core';
import { gradesOf, judgeTopic } from './judged-topic.js';
import { type MeasureSpec, parseMeasures, trecMeasureFamilies } from './trec-measures.js';

export interface EvaluateRunOptions {
  /** Round scores to float32 before ranking, as pytrec_eval / trec_eval store them. Default true. */
  float32?: boolean;
}

export interface RunEvaluation {
  /** Measure name (trec_eval printout form) -> mean over evaluated topics. */
  means: Record<string, number>;
  /** qid -> measure name -> value, for each evaluated topic (sorted by qid). */
  perQuery: Record<string, Record<string, number>>;
  numQueries: number;
}

export function evaluateRun(
  qrels: Qrels,
  run: Run,
  measures: string | readonly string[] | readonly MeasureSpec[],
  options: EvaluateRunOptions = {},
): RunEvaluation {
  const specs =
    typeof measures === 'string' || typeof measures[0] === 'string'
      ? parseMeasures(measures as string | string[])
      : (measures as readonly MeasureSpec[]);
  const float32 = options.float32 ?? true;
  const sums = new Float64Array(specs.length);
  const perQuery: Record<string, Record<string, number>> = {};
  let n = 0;
  for (const qid of [...run.keys()].sort()) {
    const judged = qrels.get(qid);
    if (!judged) continue;
    const topic = judgeTopic(judged);
    const grades = gradesOf(rankTopic(run.get(qid)!, { float32 }), topic);
    const row: Record<string, number> = {};
    specs.forEach((s, i) => {
      const v = trecMeasureFamilies[s.family].compute(grades, topic, s.k);
      row[s.name] = v;
      sums[i]! += v;
    });
    perQuery[qid] = row;
    n++;
  }
  const means: Record<string, number> = {};
  specs.forEach((s, i) => {
    means[s.name] = n > 0 ? sums[i]! / n : 0;
  });
  return { means, perQuery, numQueries: n };
}
