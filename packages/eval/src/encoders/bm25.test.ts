import { join } from 'node:path';
import { readJsonl, readLines } from '@dv/core';
import { dataExternalDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { evaluateRun } from '../metrics/evaluate-run.js';
import { Bm25Ranker } from './bm25.js';
import { lexicalTokens } from './lexical-tokenize.js';

describe('lexical tokenisation', () => {
  it('lower-cases, splits on non-alphanumerics, drops Lucene stop words, keeps digits and accents', () => {
    expect(lexicalTokens("The Bass's range: 40-60 Hz")).toEqual(['bass', 's', 'range', '40', '60', 'hz']);
    expect(lexicalTokens('Café ＡＢＣ and naïve')).toEqual(['café', 'abc', 'naïve']);
  });
});

describe('BM25', () => {
  const corpus = [
    { id: 'a', text: 'bass fish lake' },
    { id: 'b', text: 'bass guitar' },
    { id: 'c', text: 'guitar guitar strings music' },
  ];
  it('scores by Lucene BM25 (hand-computed)', async () => {
    const bm = new Bm25Ranker({ k1: 1.2, b: 0.75 });
    const run = await bm.retrieve([{ id: 'q', text: 'guitar' }], corpus, 10);
    const avgdl = (3 + 2 + 4) / 3;
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const s = (tf: number, dl: number) => (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * dl) / avgdl));
    expect(run.get('q')!.get('b')).toBeCloseTo(s(1, 2), 12);
    expect(run.get('q')!.get('c')).toBeCloseTo(s(2, 4), 12);
    expect(run.get('q')!.has('a')).toBe(false); // no shared token: not retrieved
  });
  it('reranks only the candidates, with corpus statistics', async () => {
    const bm = new Bm25Ranker();
    const full = await bm.retrieve([{ id: 'q', text: 'bass' }], corpus, 10);
    const rr = await bm.rerank([{ id: 'q', text: 'bass' }], corpus, new Map([['q', ['b', 'c']]]));
    expect(rr.get('q')).toEqual(
      new Map([
        ['b', full.get('q')!.get('b')!],
        ['c', 0],
      ]),
    );
  });
});

describe('BM25 on InstructIR msmarco_filtered (third-party data)', () => {
  const dir = dataExternalDir('the msmarco_filtered BM25 check', 'instructir-kaistai', 'msmarco_filtered');
  it.skipIf(!dir)('gives a sensible MRR@10', async () => {
    const corpus: Array<{ id: string; text: string }> = [];
    const Row = z.object({ _id: z.string(), title: z.string().default(''), text: z.string() });
    for await (const o of readJsonl(join(dir!, 'corpus.jsonl'), Row)) {
      corpus.push({ id: o._id, text: `${o.title} ${o.text}`.trim() });
    }
    const queries: Array<{ id: string; text: string }> = [];
    for await (const o of readJsonl(join(dir!, 'queries.jsonl'), Row)) {
      queries.push({ id: o._id, text: o.text });
    }
    const qrels = new Map<string, Map<string, number>>();
    for await (const line of readLines(join(dir!, 'qrels', 'test.tsv'))) {
      const [q, d, s] = line.text.split('\t');
      if (line.number === 1 || !q || !d) continue;
      if (!qrels.has(q)) qrels.set(q, new Map());
      qrels.get(q)!.set(d, Number(s));
    }
    const run = await new Bm25Ranker().retrieve(queries, corpus, 100);
    const e = evaluateRun(qrels, run, 'recip_rank_cut.10,recall.100,ndcg_cut.10');
    console.log(`BM25 msmarco_filtered: ${JSON.stringify(e.means)} over ${e.numQueries} queries`);
    expect(e.numQueries).toBe(1743);
    // One positive per query among 1,743 passages: BM25 should find most of them near the top.
    expect(e.means.recip_rank_cut_10).toBeGreaterThan(0.5);
    expect(e.means.recip_rank_cut_10).toBeLessThan(1);
  });
});
