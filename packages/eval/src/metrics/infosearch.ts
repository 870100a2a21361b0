/**
 * InfoSearch's instruction metrics (Zhou et al., "Beyond Content Relevance: Evaluating
 * Instruction Following in Retrieval Models", arXiv 2410.23841; code: EIT-NLP/InfoSearch,
 * `mteb_infosearch/.../evaluators/utils.py`, `evaluate_change`). Three runs of the same
 * queries over the whole per-dimension corpus: original (query only), instructed, reversed.
 *
 * Doc sets per query, from the og and instructed (`changed`) qrels:
 *   positives = docs relevant in both (the gold doc that satisfies the instruction);
 *   negatives = docs relevant in og but not in the instructed qrels (on topic, violate it).
 * Ranks are 1-based in each run, missing docs at run length + 1.
 *
 * - p-MRR: FollowIR's pairwise score over the negatives, R_og from the original run and R_new
 *   from the instructed run; mean per query, then over queries with negatives.
 * - SICR (Strict Instruction Compliance Ratio), per positive doc: compliant iff
 *   R_ori > 1: R_ins < R_ori, R_rev > R_ori, S_ins > S_ori and S_ori > S_rev;
 *   R_ori = 1: R_ins = 1,     R_rev > 1,     S_ins >= S_ori and S_ori > S_rev.
 *   Mean of the indicator per query, then over queries with positives.
 * - WISE (Weighted Instruction Sensitivity Evaluation), per positive doc, window K = 20 and
 *   n = |positives| + |negatives| of the query:
 *   if R_ins <= R_ori < R_rev (reward):
 *       1                                           if R_ins = 1 and R_ori < n
 *       (1 - (R_ori - R_ins) / K) / sqrt(R_ins)     else if R_ori <= K
 *       0.01                                        otherwise
 *   else (penalty):
 *       (R_ori - R_ins) / R_ins                     if R_ori <= R_ins   (instruction pushed it down)
 *       (R_rev - R_ori) / R_ori                     otherwise (R_rev <= R_ori: reversal did not)
 *   Mean per query, then over queries. `idealWise` is the same with R_ins = 1, R_rev = R_ori + 1.
 *
 * Where the released code differs (variant `code`; `paper` is the default):
 * - SICR: the code resets its per-doc counter inside the loop, so only the LAST positive of a
 *   query counts (divided by the number of positives); `paper` counts every positive.
 * - ties: the code sorts by score only (stable, so run insertion order breaks ties, the
 *   pre-fix mteb behaviour); `paper` breaks ties by doc id descending like FollowIR's p-MRR.
 * - a doc missing from a run: the code uses score 0 in SICR's score comparisons; `paper` uses
 *   -Infinity (below every retrieved doc).
 * - positives/negatives: the code tests grade == 1 / == 0 exactly; `paper` uses >= 1 / <= 0.
 * The WISE formula above is the code's (its unreachable `-1` branch dropped); the paper gives
 * it as figures we could not check here, so there is no separate paper variant of WISE.
 */
import type { Qrels, Run } from '@dv/core';
import { pairwiseRankScore } from './p-mrr.js';
import { rankIn, rankMap, type TieBreak } from './rank-of.js';

export type InfoSearchVariant = 'paper' | 'code';

export interface InfoSearchInput {
  qrelsOg: Qrels;
  /** Qrels of the instructed mode. */
  qrelsChanged: Qrels;
  runOg: Run;
  runChanged: Run;
  runReversed: Run;
}

export interface InfoSearchOptions {
  variant?: InfoSearchVariant;
  /** WISE window K (20 in the paper and code). */
  wiseK?: number;
  /** Override the variant's tie-break. */
  tieBreak?: TieBreak;
}

export interface InfoSearchScores {
  /** Fractions; papers report x100. NaN when no query had the needed docs. */
  pMrr: number;
  sicr: number;
  wise: number;
  idealWise: number;
  perQuery: Record<string, { pMrr?: number; sicr?: number; wise?: number }>;
}

export interface WiseRanks {
  ori: number;
  ins: number;
  rev: number;
  /** |positives| + |negatives| of the query. */
  n: number;
}

export function wiseScore(r: WiseRanks, k = 20): number {
  if (r.ins <= r.ori && r.ori < r.rev) {
    if (r.ins === 1 && r.ori < r.n) return 1;
    if (r.ori <= k) return (1 - (r.ori - r.ins) / k) / Math.sqrt(r.ins);
    return 0.01;
  }
  if (r.ori <= r.ins) return (r.ori - r.ins) / r.ins;
  return (r.rev - r.ori) / r.ori;
}

interface Seen {
  rank: number;
  score: number;
}

export function sicrCompliant(ori: Seen, ins: Seen, rev: Seen): boolean {
  if (ori.rank > 1)
    return ins.rank < ori.rank && rev.rank > ori.rank && ins.score > ori.score && ori.score > rev.score;
  return ins.rank === 1 && rev.rank > ori.rank && ins.score >= ori.score && ori.score > rev.score;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

export function infoSearchScores(input: InfoSearchInput, options: InfoSearchOptions = {}): InfoSearchScores {
  const variant = options.variant ?? 'paper';
  const k = options.wiseK ?? 20;
  const tieBreak = options.tieBreak ?? (variant === 'code' ? 'insertion' : 'docid-desc');
  const missingScore = variant === 'code' ? 0 : Number.NEGATIVE_INFINITY;
  const isPos = (og: number, ch: number | undefined) =>
    variant === 'code' ? og === ch && ch === 1 : og >= 1 && (ch ?? 0) >= 1;
  const isNeg = (og: number, ch: number | undefined) =>
    variant === 'code' ? og !== (ch ?? 0) && (ch ?? 0) === 0 : og >= 1 && (ch ?? 0) <= 0;

  const perQuery: InfoSearchScores['perQuery'] = {};
  const pm: number[] = [];
  const sc: number[] = [];
  const ws: number[] = [];
  const iws: number[] = [];
  const empty = new Map<string, number>();
  for (const qid of [...input.qrelsOg.keys()].sort()) {
    const og = input.qrelsOg.get(qid)!;
    const ch = input.qrelsChanged.get(qid) ?? empty;
    const pos: string[] = [];
    const neg: string[] = [];
    for (const [d, g] of og) {
      if (isPos(g, ch.get(d))) pos.push(d);
      else if (isNeg(g, ch.get(d))) neg.push(d);
    }
    if (pos.length === 0 && neg.length === 0) continue;
    const runs = [input.runOg, input.runChanged, input.runReversed].map((r) => r.get(qid) ?? empty);
    const ranks = runs.map((r) => rankMap(r, { tieBreak }));
    const seen = (i: number, d: string): Seen => ({
      rank: rankIn(ranks[i]!, d),
      score: runs[i]!.get(d) ?? missingScore,
    });
    const row: InfoSearchScores['perQuery'][string] = {};
    if (neg.length) {
      row.pMrr = mean(neg.map((d) => pairwiseRankScore(seen(0, d).rank, seen(1, d).rank)));
      pm.push(row.pMrr);
    }
    if (pos.length) {
      const n = pos.length + neg.length;
      const hits = pos.map((d) => (sicrCompliant(seen(0, d), seen(1, d), seen(2, d)) ? 1 : 0));
      // The released code keeps only the last positive's indicator (see the file comment).
      row.sicr = variant === 'code' ? hits[hits.length - 1]! / pos.length : mean(hits);
      sc.push(row.sicr);
      row.wise = mean(
        pos.map((d) => wiseScore({ ori: seen(0, d).rank, ins: seen(1, d).rank, rev: seen(2, d).rank, n }, k)),
      );
      ws.push(row.wise);
      iws.push(
        mean(
          pos.map((d) => {
            const ori = seen(0, d).rank;
            return wiseScore({ ori, ins: 1, rev: ori + 1, n }, k);
          }),
        ),
      );
    }
    perQuery[qid] = row;
  }
  return { pMrr: mean(pm), sicr: mean(sc), wise: mean(ws), idealWise: mean(iws), perQuery };
}
