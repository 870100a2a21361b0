/**
 * BM25, the lexical baseline, as Lucene (and so Pyserini/Anserini) scores it:
 *   score(q, d) = sum over query tokens t (repeats count) of
 *                 idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
 *   idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
 * with N the corpus size, |d| the token count of d and avgdl the mean over the corpus.
 * Defaults k1 = 0.9, b = 0.4 (Anserini's MS MARCO defaults). Tokenisation: lexical-tokenize.ts.
 * Statistics come from the corpus passed to `retrieve`/`rerank` (for reranking, the
 * candidate pool), and the index is reused while the same corpus array is passed again.
 */
import { defaultFormatterSettings, type FormatterSettings, type Run } from '@dv/core';
import { BoundedHeap } from '../search/bounded-heap.js';
import type { Ranker, TextItem } from '../search/ranker.js';
import { lexicalTokens } from './lexical-tokenize.js';

export interface Bm25Options {
  k1?: number;
  b?: number;
  formatter?: FormatterSettings;
}

interface Index {
  corpus: readonly TextItem[];
  postings: Map<string, { docs: number[]; tfs: number[] }>;
  lengths: Float64Array;
  avgdl: number;
}

export class Bm25Ranker implements Ranker {
  readonly name = 'bm25';
  readonly k1: number;
  readonly b: number;
  readonly formatter: FormatterSettings;
  private index: Index | null = null;

  constructor(options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 0.9;
    this.b = options.b ?? 0.4;
    this.formatter = options.formatter ?? defaultFormatterSettings;
  }

  get settings(): Readonly<Record<string, unknown>> {
    return { k1: this.k1, b: this.b, tokenizer: 'nfkc-lower-alnum-lucene33stop-nostem' };
  }

  private build(corpus: readonly TextItem[]): Index {
    if (this.index?.corpus === corpus) return this.index;
    const postings = new Map<string, { docs: number[]; tfs: number[] }>();
    const lengths = new Float64Array(corpus.length);
    let total = 0;
    corpus.forEach((d, i) => {
      const toks = lexicalTokens(d.text);
      lengths[i] = toks.length;
      total += toks.length;
      const tf = new Map<string, number>();
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        let p = postings.get(t);
        if (!p) {
          p = { docs: [], tfs: [] };
          postings.set(t, p);
        }
        p.docs.push(i);
        p.tfs.push(n);
      }
    });
    this.index = { corpus, postings, lengths, avgdl: corpus.length ? total / corpus.length : 0 };
    return this.index;
  }

  /** Adds each doc's score for `query` into `acc` (indexed by corpus position). */
  private accumulate(ix: Index, query: string, acc: Float64Array): void {
    const n = ix.corpus.length;
    for (const t of lexicalTokens(query)) {
      const p = ix.postings.get(t);
      if (!p) continue;
      const df = p.docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let j = 0; j < df; j++) {
        const d = p.docs[j]!;
        const tf = p.tfs[j]!;
        const norm = this.k1 * (1 - this.b + (this.b * ix.lengths[d]!) / (ix.avgdl || 1));
        acc[d]! += (idf * tf * (this.k1 + 1)) / (tf + norm);
      }
    }
  }

  async retrieve(queries: readonly TextItem[], corpus: readonly TextItem[], k: number): Promise<Run> {
    const ix = this.build(corpus);
    const acc = new Float64Array(corpus.length);
    const run: Run = new Map();
    for (const q of queries) {
      acc.fill(0);
      this.accumulate(ix, q.text, acc);
      const heap = new BoundedHeap(Math.min(k, corpus.length));
      for (let d = 0; d < acc.length; d++) if (acc[d]! > heap.threshold) heap.push(acc[d]!, d);
      // Docs sharing no token with the query score 0 and are not retrieved (as in Lucene).
      run.set(
        q.id,
        new Map(
          heap
            .sorted()
            .filter((e) => e.score > 0)
            .map((e) => [corpus[e.index]!.id, e.score]),
        ),
      );
    }
    return run;
  }

  async rerank(
    queries: readonly TextItem[],
    corpus: readonly TextItem[],
    candidates: ReadonlyMap<string, readonly string[]>,
  ): Promise<Run> {
    const ix = this.build(corpus);
    const pos = new Map(corpus.map((d, i) => [d.id, i]));
    const acc = new Float64Array(corpus.length);
    const run: Run = new Map();
    for (const q of queries) {
      acc.fill(0);
      this.accumulate(ix, q.text, acc);
      const row = new Map<string, number>();
      for (const d of candidates.get(q.id) ?? []) {
        const i = pos.get(d);
        if (i !== undefined) row.set(d, acc[i]!);
      }
      run.set(q.id, row);
    }
    return run;
  }
}
