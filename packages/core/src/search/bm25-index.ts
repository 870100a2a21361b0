/**
 * The workspace's one BM25 index: postings over tokenised documents and Lucene's BM25 term
 * score (Robertson & Zaragoza 2009, as Lucene, Pyserini and Anserini compute it):
 *   score(q, d) = sum over query terms t of
 *                 w(t) * idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
 *   idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
 * with N the number of documents, |d| the token count of d, avgdl the mean token count (1 for an
 * empty corpus) and w(t) the query-side weight (1 per occurrence, or the term's count).
 * Defaults k1 = 0.9, b = 0.4 (Anserini's MS MARCO defaults).
 *
 * Tokenisation is the caller's (the eval baseline's Lucene-like tokens, the mini world's
 * lexicon tokens); the index takes token lists. Users: `Bm25Ranker` (@dv/eval) and the mini
 * world's distractor mining (@dv/data); top-k selection with `BoundedHeap` (bounded-heap.ts).
 * @example
 *   const ix = new Bm25Index([['bass', 'fish'], ['bass', 'guitar']]);
 *   const acc = new Float64Array(ix.size);
 *   ix.addTermScores('guitar', 1, acc); // acc[1] > 0, acc[0] = 0
 */
/** Anserini's MS MARCO defaults, the workspace's BM25 defaults. */
export const bm25Defaults = { k1: 0.9, b: 0.4 } as const;

export interface Bm25Parameters {
  k1?: number;
  b?: number;
}

interface Postings {
  docs: number[];
  tfs: number[];
}

export class Bm25Index {
  readonly k1: number;
  readonly b: number;
  /** Number of documents. */
  readonly size: number;
  /** Mean document length in tokens (1 for an empty corpus, so no score divides by zero). */
  readonly avgLength: number;
  private readonly postings = new Map<string, Postings>();
  private readonly lengths: Float64Array;

  constructor(documents: ReadonlyArray<ReadonlyArray<string>>, parameters: Bm25Parameters = {}) {
    this.k1 = parameters.k1 ?? bm25Defaults.k1;
    this.b = parameters.b ?? bm25Defaults.b;
    this.size = documents.length;
    this.lengths = new Float64Array(documents.length);
    let total = 0;
    for (let d = 0; d < documents.length; d++) {
      const toks = documents[d]!;
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
    this.avgLength = documents.length ? total / documents.length || 1 : 1;
  }

  /** Number of documents holding `term`. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  /**
   * Adds `weight` times `term`'s BM25 score into `acc[d]` for every document d holding it
   * (`acc` indexed by document position, length `size`). When `touched` is given, each d whose
   * accumulator was 0 before is appended to it (so a caller can visit and reset only those).
   */
  addTermScores(term: string, weight: number, acc: Float64Array, touched?: number[]): void {
    const p = this.postings.get(term);
    if (!p) return;
    const { k1, b } = this;
    const df = p.docs.length;
    const idf = Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
    for (let j = 0; j < df; j++) {
      const d = p.docs[j]!;
      const tf = p.tfs[j]!;
      const norm = k1 * (1 - b + (b * this.lengths[d]!) / this.avgLength);
      if (touched && acc[d] === 0) touched.push(d);
      acc[d]! += (weight * idf * tf * (k1 + 1)) / (tf + norm);
    }
  }
}
