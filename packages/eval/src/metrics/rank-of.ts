/**
 * 1-based ranks of docs in a scored list, with the tie-break rules the instruction-following
 * metrics need:
 *   `docid-desc` (default): score descending, ties by doc id descending: mteb's fixed
 *     behaviour, and trec_eval's;
 *   `insertion`: score descending, ties in the order the run listed them: what mteb and the
 *     InfoSearch code did before the fix (Python's stable `sorted(..., reverse=True)` on score).
 * A doc absent from the list gets rank = list length + 1 (mteb's `get_rank_from_dict`).
 */
import { compareBytesDesc } from '@dv/core';

export type TieBreak = 'docid-desc' | 'insertion';

export interface RankOptions {
  tieBreak?: TieBreak;
  /** Round scores to float32 before comparing. Default false: mteb compares Python floats. */
  float32?: boolean;
}

export function rankMap(scores: ReadonlyMap<string, number>, options: RankOptions = {}): Map<string, number> {
  const f = options.float32 ? Math.fround : (x: number) => x;
  const entries = [...scores.entries()].map(([d, s], i) => ({ d, s: f(s), i }));
  if ((options.tieBreak ?? 'docid-desc') === 'docid-desc') {
    entries.sort((a, b) => (b.s !== a.s ? b.s - a.s : compareBytesDesc(a.d, b.d)));
  } else {
    entries.sort((a, b) => (b.s !== a.s ? b.s - a.s : a.i - b.i));
  }
  const ranks = new Map<string, number>();
  entries.forEach((e, r) => {
    ranks.set(e.d, r + 1);
  });
  return ranks;
}

/** Rank of `docid` in a rank map built by `rankMap`; missing docs rank after the last. */
export function rankIn(ranks: ReadonlyMap<string, number>, docid: string): number {
  return ranks.get(docid) ?? ranks.size + 1;
}
