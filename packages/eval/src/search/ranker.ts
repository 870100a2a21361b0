/**
 * What benchmark runners rank with: full-corpus top-k retrieval (InfoSearch, MAIR) and
 * reranking of fixed candidate lists (FollowIR's `top_ranked`). Dense encoders become rankers
 * through `DenseRanker` (exact inner-product search with onnxruntime's sgemm, corpus embeddings
 * cached by content);
 * BM25 is a ranker of its own (bm25.ts). Texts are formatted before they get here.
 */
import type { FormatterSettings, Run } from '@dv/core';
import type { Encoder } from '../encoders/encoder.js';
import type { EmbeddingCache } from './embedding-cache.js';
import { rowDot } from './exact-top-k.js';
import { exactTopKOrt } from './exact-top-k-ort.js';

export interface TextItem {
  id: string;
  text: string;
}

export interface Ranker {
  readonly name: string;
  readonly formatter: FormatterSettings;
  readonly settings: Readonly<Record<string, unknown>>;
  /** k best docs of `corpus` per query. */
  retrieve(queries: readonly TextItem[], corpus: readonly TextItem[], k: number): Promise<Run>;
  /** Scores of each query's candidates (doc ids of `corpus`); unknown ids are skipped. */
  rerank(
    queries: readonly TextItem[],
    corpus: readonly TextItem[],
    candidates: ReadonlyMap<string, readonly string[]>,
  ): Promise<Run>;
}

export interface DenseRankerOptions {
  cache?: EmbeddingCache;
  /** Search progress: documents scored so far. */
  onProgress?: (docsDone: number, total: number) => void;
  /** Encoding progress, reported every `encodeChunk` texts (cache hits report nothing). */
  onEncode?: (kind: 'queries' | 'documents', done: number, total: number) => void;
  /** Texts per encoder call when reporting progress (default 1024). */
  encodeChunk?: number;
}

export class DenseRanker implements Ranker {
  constructor(
    readonly encoder: Encoder,
    private readonly options: DenseRankerOptions = {},
  ) {}

  get name(): string {
    return this.encoder.name;
  }
  get formatter(): FormatterSettings {
    return this.encoder.formatter;
  }
  get settings(): Readonly<Record<string, unknown>> {
    return this.encoder.settings;
  }

  /** The encoder, encoding in chunks and reporting progress when asked to. */
  private get reporting(): Encoder {
    const e = this.encoder;
    const report = this.options.onEncode;
    if (!report) return e;
    const chunk = this.options.encodeChunk ?? 1024;
    const chunked = async (kind: 'queries' | 'documents', texts: readonly string[]) => {
      const out = new Float32Array(texts.length * e.dim);
      for (let s = 0; s < texts.length; s += chunk) {
        const part = texts.slice(s, s + chunk);
        out.set(await (kind === 'queries' ? e.encodeQueries(part) : e.encodeDocuments(part)), s * e.dim);
        report(kind, Math.min(texts.length, s + chunk), texts.length);
      }
      return out;
    };
    return {
      name: e.name,
      dim: e.dim,
      formatter: e.formatter,
      settings: e.settings,
      encodeQueries: (t) => chunked('queries', t),
      encodeDocuments: (t) => chunked('documents', t),
    };
  }

  private async embedDocs(texts: string[]): Promise<Float32Array> {
    const e = this.reporting;
    return this.options.cache ? this.options.cache.documents(e, texts) : e.encodeDocuments(texts);
  }

  async retrieve(queries: readonly TextItem[], corpus: readonly TextItem[], k: number): Promise<Run> {
    const docs = await this.embedDocs(corpus.map((d) => d.text));
    const q = await this.reporting.encodeQueries(queries.map((x) => x.text));
    const r = await exactTopKOrt(q, docs, this.encoder.dim, k, {
      onProgress: (n) => this.options.onProgress?.(n, corpus.length),
    });
    const run: Run = new Map();
    queries.forEach((query, qi) => {
      const row = new Map<string, number>();
      for (let j = 0; j < k; j++) {
        const di = r.indices[qi * k + j]!;
        if (di < 0) break;
        row.set(corpus[di]!.id, r.scores[qi * k + j]!);
      }
      run.set(query.id, row);
    });
    return run;
  }

  async rerank(
    queries: readonly TextItem[],
    corpus: readonly TextItem[],
    candidates: ReadonlyMap<string, readonly string[]>,
  ): Promise<Run> {
    const wanted = new Set<string>();
    for (const q of queries) for (const d of candidates.get(q.id) ?? []) wanted.add(d);
    const sub = corpus.filter((d) => wanted.has(d.id));
    const index = new Map(sub.map((d, i) => [d.id, i]));
    const docs = await this.embedDocs(sub.map((d) => d.text));
    const q = await this.reporting.encodeQueries(queries.map((x) => x.text));
    const dim = this.encoder.dim;
    const run: Run = new Map();
    queries.forEach((query, qi) => {
      const row = new Map<string, number>();
      for (const d of candidates.get(query.id) ?? []) {
        const di = index.get(d);
        if (di !== undefined) row.set(d, rowDot(q, qi, docs, di, dim));
      }
      run.set(query.id, row);
    });
    return run;
  }
}
