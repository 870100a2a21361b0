/**
 * `evaluateRun` over a run in columns (run-columns.ts): the same ranking, measures, topic order
 * and sums, so the same numbers, without a sorted doc list per topic. Every measure reads only
 * the grades in rank order, and only judged docs have a grade, so each topic needs just the rank
 * of each judged doc it retrieved: the number of docs with a higher score (a binary search in the
 * topic's scores, sorted once by the native typed-array sort) plus, among docs with the same
 * score, those whose doc id is greater in strcmp order (trec_eval's tie order). Topics where many
 * judged docs are tied fall back to sorting the topic's entries with that comparator.
 */
import type { Qrels } from '@dv/core';
import type { EvaluateRunOptions, RunEvaluation } from './evaluate-run.js';
import { judgeTopic } from './judged-topic.js';
import { compareDocs, findDoc, type RunColumns } from './run-columns.js';
import { type MeasureSpec, parseMeasures, trecMeasureFamilies } from './trec-measures.js';

/** Above this many tied judged docs in a topic, one comparator sort beats a scan per doc. */
const TIE_SCANS = 16;

/** First index of xs[0, n) (ascending) whose value is >= x. */
function lowerBound(xs: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * ranks[k] = the 0-based rank of judged entry judgedEntry[k] among the topic's `size` entries:
 * the entries with a higher value, plus the tied ones whose doc id is greater (strcmp). One pass
 * over the values with a binary search in the judged values (sorted, j of them), no sort of the
 * topic: counts[p] (p = how many judged values are below v) gives "higher than the judged value
 * at p - 1" by suffix sums, and counts[j + 1 + p] how many equal the judged value at p.
 */
function rankJudged(
  cols: RunColumns,
  base: number,
  size: number,
  values: Float64Array,
  j: number,
  judgedEntry: Int32Array,
  ranks: Int32Array,
  xs: Float64Array,
  counts: Int32Array,
): void {
  for (let k = 0; k < j; k++) xs[k] = values[judgedEntry[k]!]!;
  const sorted = xs.subarray(0, j).sort();
  counts.fill(0, 0, 2 * j + 1);
  const lo = sorted[0]!;
  for (let i = 0; i < size; i++) {
    const v = values[i]!;
    if (v < lo) {
      counts[0]!++;
      continue;
    }
    const p = lowerBound(sorted, j, v);
    counts[p]!++;
    if (p < j && sorted[p] === v) counts[j + 1 + p]!++;
  }
  // counts[p] := values with more than p judged values below them, i.e. above sorted[p - 1]
  for (let p = j - 1; p >= 0; p--) counts[p]! += counts[p + 1]!;
  let tied = 0;
  for (let k = 0; k < j; k++) {
    const x = values[judgedEntry[k]!]!;
    const first = lowerBound(sorted, j, x);
    let last = first;
    while (last + 1 < j && sorted[last + 1] === x) last++;
    ranks[k] = last + 1 <= j ? counts[last + 1]! : 0;
    if (counts[j + 1 + first]! > 1) {
      ranks[k] = -1 - ranks[k]!; // tied: the doc id order still to count
      tied++;
    }
  }
  if (tied > TIE_SCANS) {
    rankBySort(cols, base, size, values, j, judgedEntry, ranks);
    return;
  }
  for (let k = 0; tied > 0 && k < j; k++) {
    if (ranks[k]! >= 0) continue;
    const me = judgedEntry[k]!;
    const x = values[me]!;
    let ahead = -1 - ranks[k]!;
    for (let i = 0; i < size; i++)
      if (i !== me && values[i] === x && compareDocs(cols, base + i, base + me) > 0) ahead++;
    ranks[k] = ahead;
  }
}

/** Buffers reused from topic to topic (sized for the largest). */
interface Scratch {
  values: Float64Array;
  judgedEntry: Int32Array;
  judgedGrade: Int32Array;
  ranks: Int32Array;
  xs: Float64Array;
  counts: Int32Array;
}

function scratch(maxN: number): Scratch {
  return {
    values: new Float64Array(maxN),
    judgedEntry: new Int32Array(maxN),
    judgedGrade: new Int32Array(maxN),
    ranks: new Int32Array(maxN),
    xs: new Float64Array(maxN),
    counts: new Int32Array(2 * maxN + 1),
  };
}

/**
 * Topic t's grades in rank order (what `gradesOf(rankTopic(...))` gives): zeros, and each judged
 * retrieved doc's grade at its rank. A function of its own, called once per topic, so V8
 * optimizes it after a few topics instead of running one long loop unoptimized.
 */
function topicGrades(
  cols: RunColumns,
  t: number,
  judged: ReadonlyMap<string, number>,
  float32: boolean,
  w: Scratch,
): Int32Array {
  const { values, judgedEntry, judgedGrade, ranks } = w;
  const scores = cols.scores;
  const base = cols.topicStart[t]!;
  const size = cols.topicStart[t + 1]! - base;
  if (float32) for (let i = 0; i < size; i++) values[i] = Math.fround(scores[base + i]!);
  else for (let i = 0; i < size; i++) values[i] = scores[base + i]!;
  // judged docs this topic retrieved (grade 0 ranks like unjudged: nothing to place)
  let j = 0;
  for (const [doc, g] of judged) {
    if (g === 0) continue;
    const e = findDoc(cols, t, doc);
    if (e < 0) continue;
    judgedEntry[j] = e - base;
    judgedGrade[j++] = g;
  }
  const grades = new Int32Array(size);
  if (j > 0) {
    rankJudged(cols, base, size, values, j, judgedEntry, ranks, w.xs, w.counts);
    for (let k = 0; k < j; k++) grades[ranks[k]!] = judgedGrade[k]!;
  }
  return grades;
}

/** @internal `evaluateRun` for a run in columns: the same result for the same run. */
export function evaluateRunColumns(
  qrels: Qrels,
  cols: RunColumns,
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
  const topicOf = new Map<string, number>();
  for (let t = 0; t < cols.qids.length; t++) topicOf.set(cols.qids[t]!, t);
  let maxN = 0;
  for (let t = 0; t < cols.qids.length; t++)
    maxN = Math.max(maxN, cols.topicStart[t + 1]! - cols.topicStart[t]!);
  const work = scratch(maxN);
  let n = 0;
  for (const qid of [...cols.qids].sort()) {
    const judged = qrels.get(qid);
    if (!judged) continue;
    const topic = judgeTopic(judged);
    const grades = topicGrades(cols, topicOf.get(qid)!, judged, float32, work);
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

/** Ranks of the judged entries from one sort of the topic (score descending, then strcmp descending). */
function rankBySort(
  cols: RunColumns,
  base: number,
  size: number,
  values: Float64Array,
  j: number,
  judgedEntry: Int32Array,
  ranks: Int32Array,
): void {
  const order = new Uint32Array(size);
  for (let i = 0; i < size; i++) order[i] = i;
  // comparisons, not subtraction: Infinity - Infinity is NaN
  order.sort((a, b) => {
    const x = values[a]!;
    const y = values[b]!;
    return x !== y ? (y > x ? 1 : -1) : compareDocs(cols, base + b, base + a);
  });
  const rankOf = new Int32Array(size);
  for (let r = 0; r < size; r++) rankOf[order[r]!] = r;
  for (let k = 0; k < j; k++) ranks[k] = rankOf[judgedEntry[k]!]!;
}
