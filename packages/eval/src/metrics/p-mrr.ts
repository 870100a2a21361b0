/**
 * p-MRR (pairwise mean reciprocal rank), FollowIR's instruction-sensitivity measure
 * (Weller et al. 2024, arXiv 2403.15246; mteb `evaluate_p_mrr_change`).
 *
 * Changed docs of a topic: docs judged in the og qrels whose grade differs in the changed
 * qrels (a doc missing from the changed qrels counts as grade 0; topics missing from the
 * changed qrels have no changed docs). For each changed doc with 1-based ranks R_og in the og
 * run and R_new in the changed run (a doc missing from a run: run length + 1):
 *   R_og >= R_new:  s = R_new / R_og - 1      (doc moved up or stayed: <= 0)
 *   R_og <  R_new:  s = 1 - R_og / R_new      (doc moved down, as it should: > 0)
 * p-MRR = mean over topics (with changed docs) of the mean of s over the topic's changed docs,
 * a fraction in [-1, 1]; papers report x100.
 *
 * Ties: score descending then doc id descending (mteb after its tie-break fix); `tieBreak:
 * 'insertion'` reproduces the older behaviour (regression test in p-mrr.test.ts).
 *
 * @example pairwiseRankScore(4, 1) === -0.75; pairwiseRankScore(1, 4) === 0.75
 */
import type { Qrels, Run } from '@dv/core';
import { type RankOptions, rankIn, rankMap } from './rank-of.js';

export function pairwiseRankScore(rankOg: number, rankNew: number): number {
  return rankOg >= rankNew ? rankNew / rankOg - 1 : 1 - rankOg / rankNew;
}

/** qid -> docs whose grade differs between the og and the changed qrels (og order). */
export function changedDocs(qrelsOg: Qrels, qrelsChanged: Qrels): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [qid, og] of qrelsOg) {
    const ch = qrelsChanged.get(qid);
    if (!ch) continue;
    const docs = [...og.entries()].filter(([d, g]) => (ch.get(d) ?? 0) !== g).map(([d]) => d);
    if (docs.length > 0) out.set(qid, docs);
  }
  return out;
}

export interface PMrrInput {
  qrelsOg: Qrels;
  qrelsChanged: Qrels;
  runOg: Run;
  runChanged: Run;
}

export interface PMrrResult {
  /** Fraction in [-1, 1]. */
  pMrr: number;
  /** qid -> the topic's mean pairwise score. */
  perQuery: Record<string, number>;
  numQueries: number;
  numChangedDocs: number;
}

/** Thrown when a topic with changed docs is absent from a run; `which` names the run. */
export class MissingTopicError extends Error {
  override readonly name = 'MissingTopicError';
  constructor(
    readonly qid: string,
    readonly which: 'og' | 'changed',
  ) {
    super(`topic ${qid} has changed docs but is missing from the ${which} run`);
  }
}

export function pMrr(input: PMrrInput, options: RankOptions = {}): PMrrResult {
  const perQuery: Record<string, number> = {};
  let sum = 0;
  let nq = 0;
  let nd = 0;
  const changed = changedDocs(input.qrelsOg, input.qrelsChanged);
  for (const qid of [...changed.keys()].sort()) {
    const docs = changed.get(qid)!;
    const og = input.runOg.get(qid);
    const ch = input.runChanged.get(qid);
    if (!og) throw new MissingTopicError(qid, 'og');
    if (!ch) throw new MissingTopicError(qid, 'changed');
    const rOg = rankMap(og, options);
    const rCh = rankMap(ch, options);
    let s = 0;
    for (const d of docs) s += pairwiseRankScore(rankIn(rOg, d), rankIn(rCh, d));
    perQuery[qid] = s / docs.length;
    sum += perQuery[qid]!;
    nq++;
    nd += docs.length;
  }
  return { pMrr: nq > 0 ? sum / nq : 0, perQuery, numQueries: nq, numChangedDocs: nd };
}
