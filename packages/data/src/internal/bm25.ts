/**
 * BM25 search over the mini world's entries, used to mine lexically similar distractors: @dv/core's
 * `Bm25Index` (k1 = 0.9, b = 0.4 as in Pyserini's defaults) over this file's lexicon tokens, with
 * top-k by @dv/core's `BoundedHeap`. Deterministic: ties break by document order. For speed,
 * query terms found in more than 2% of the documents (at least 50) are skipped (their idf is
 * small), so scores approximate full BM25.
 */
import { Bm25Index, BoundedHeap } from '@dv/core';

const STOPWORDS = new Set(
  (
    'a an and are as at be by for from has have in is it its of on or that the to was were with which ' +
    'who whom this these those their there than then into any all some such not no one two used ' +
    'especially usually often etc kind example examples field region usage'
  ).split(' '),
);

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[a-z0-9]+(?:'[a-z]+)?/g)) {
    const t = m[0];
    if (t.length > 1 && !STOPWORDS.has(t)) out.push(t);
  }
  return out;
}

export interface Bm25Hit {
  index: number;
  score: number;
}

export class Bm25Search {
  private readonly index: Bm25Index;
  readonly size: number;
  /** Score accumulator reused across searches (always left zeroed). */
  private readonly scratch: Float64Array;
  private readonly maxDf: number;

  constructor(texts: ReadonlyArray<string>, maxDfRatio = 0.02) {
    this.index = new Bm25Index(texts.map(tokenize));
    this.size = texts.length;
    this.scratch = new Float64Array(texts.length);
    this.maxDf = Math.max(50, Math.floor(texts.length * maxDfRatio));
  }

  /** Top `k` documents for a bag of query terms (repeated terms weigh more), skipping `exclude`. */
  search(terms: ReadonlyArray<string>, k: number, exclude?: (index: number) => boolean): Bm25Hit[] {
    const qtf = new Map<string, number>();
    for (const t of terms) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const acc = this.scratch;
    const touched: number[] = [];
    for (const [t, w] of qtf) {
      // Terms in more than `maxDf` documents add little and cost most: skipped (an approximation).
      if (this.index.documentFrequency(t) > this.maxDf) continue;
      this.index.addTermScores(t, w, acc, touched);
    }
    const heap = new BoundedHeap(Math.max(0, k));
    for (const d of touched) {
      const score = acc[d]!;
      acc[d] = 0;
      // equal to the worst kept: may still enter on a lower index (the heap decides)
      if (score >= heap.threshold && !exclude?.(d)) heap.push(score, d);
    }
    return heap.sorted();
  }
}
