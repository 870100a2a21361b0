/**
 * BM25, the lexical baseline, as Lucene (and so Pyserini/Anserini) scores it: the formula and its
 * defaults (k1 = 0.9, b = 0.4) are @dv/core's `Bm25Index`; each query token counts once per
 * occurrence. Tokenisation: lexical-tokenize.ts. Statistics come from the corpus passed to
 * `retrieve`/`rerank` (for reranking, the candidate pool), and the index is reused while the same
 * corpus array is passed again.
 */
import {
  Bm25Index,
  BoundedHeap,
  bm25Defaults,
  defaultFormatterSettings,
  type FormatterSettings,
  type Run,
} from '@dv/core';
import type { Ranker, TextItem } from '../search/ranker.js';
import { lexicalTokens } from './lexical-tokenize.js';

export interface Bm25Options {
  k1?: number;
  b?: number;
  formatter?: FormatterSettings;
}

interface Index {
  corpus: readonly TextItem[];
  bm25: Bm25Index;
}

export class Bm25Ranker implements Ranker {
  readonly name = 'bm25';
  readonly k1: number;
  readonly b: number;
  readonly formatter: FormatterSettings;
  private index: Index | null = null;

  constructor(options: Bm25Options = {}) {
    this.k1 = options.k1 ?? bm25Defaults.k1;
    this.b = options.b ?? bm25Defaults.b;
    this.formatter = options.formatter ?? defaultFormatterSettings;
  }

  get settings(): Readonly<Record<string, unknown>> {
    return { k1: this.k1, b: this.b, tokenizer: 'nfkc-lower-alnum-lucene33stop-nostem' };
  }

  private build(corpus: readonly TextItem[]): Index {
    if (this.index?.corpus === corpus) return this.index;
    const bm25 = new Bm25Index(
      corpus.map((d) => lexicalTokens(d.text)),
      { k1: this.k1, b: this.b },
    );
    this.index = { corpus, bm25 };
    return this.index;
  }

  /** Adds each doc's score for `query` into `acc` (indexed by corpus position). */
  private accumulate(ix: Index, query: string, acc: Float64Array): void {
    for (const t of lexicalTokens(query)) ix.bm25.addTermScores(t, 1, acc);
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
