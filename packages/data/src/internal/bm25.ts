/**
 * A small in-memory BM25 index (Robertson & Zaragoza 2009; k1 = 0.9, b = 0.4 as in Pyserini's
 * defaults) used to mine lexically similar distractors for the mini world. Deterministic:
 * ties break by document order. For speed, query terms found in more than 2% of the documents
 * are skipped (their idf is small), so scores approximate full BM25.
 */

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

export class Bm25Index {
  private readonly postings = new Map<string, { docs: number[]; tfs: number[] }>();
  private readonly lengths: Float64Array;
  private readonly avgLength: number;
  readonly size: number;
  /** Score accumulator reused across searches (always left zeroed). */
  private readonly scratch: Float64Array;
  private readonly maxDf: number;

  constructor(
    texts: ReadonlyArray<string>,
    private readonly k1 = 0.9,
    private readonly b = 0.4,
    maxDfRatio = 0.02,
  ) {
    this.size = texts.length;
    this.lengths = new Float64Array(texts.length);
    let total = 0;
    for (let d = 0; d < texts.length; d++) {
      const toks = tokenize(texts[d]!);
      this.lengths[d] = toks.length;
      total += toks.length;
      const tf = new Map<string, number>();
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        let p = this.postings.get(t);
        if (!p) {
          p = { docs: [], tfs: [] };
          this.postings.set(t, p);
        }
        p.docs.push(d);
        p.tfs.push(n);
      }
    }
    this.avgLength = total / Math.max(1, texts.length);
    this.scratch = new Float64Array(texts.length);
    this.maxDf = Math.max(50, Math.floor(texts.length * maxDfRatio));
  }

  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  /** Top `k` documents for a bag of query terms (repeated terms weigh more), skipping `exclude`. */
  search(terms: ReadonlyArray<string>, k: number, exclude?: (index: number) => boolean): Bm25Hit[] {
    const qtf = new Map<string, number>();
    for (const t of terms) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const acc = this.scratch;
    const touched: number[] = [];
    for (const [t, w] of qtf) {
      const p = this.postings.get(t);
      if (!p) continue;
      const df = p.docs.length;
      // Terms in more than `maxDf` documents add little and cost most: skipped (an approximation).
      if (df > this.maxDf) continue;
      const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
      for (let i = 0; i < p.docs.length; i++) {
        const d = p.docs[i]!;
        const tf = p.tfs[i]!;
        const norm = tf + this.k1 * (1 - this.b + (this.b * this.lengths[d]!) / this.avgLength);
        if (acc[d] === 0) touched.push(d);
        acc[d] = acc[d]! + (w * idf * (tf * (this.k1 + 1))) / norm;
      }
    }
    // Keep the best k in a min-heap ordered by (score asc, index desc): the root is the worst kept hit.
    const heap: Bm25Hit[] = [];
    const worse = (x: Bm25Hit, y: Bm25Hit) => x.score < y.score || (x.score === y.score && x.index > y.index);
    for (const d of touched) {
      const score = acc[d]!;
      acc[d] = 0;
      if (k <= 0) continue;
      const hit = { index: d, score };
      if (heap.length === k && !worse(heap[0]!, hit)) continue;
      if (exclude?.(d)) continue;
      if (heap.length < k) {
        heap.push(hit);
        let i = heap.length - 1;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!worse(heap[i]!, heap[parent]!)) break;
          [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
          i = parent;
        }
      } else {
        heap[0] = hit;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
          if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
          if (m === i) break;
          [heap[i], heap[m]] = [heap[m]!, heap[i]!];
          i = m;
        }
      }
    }
    return heap.sort((x, y) => y.score - x.score || x.index - y.index);
  }
}
