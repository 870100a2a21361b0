import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25-index.js';

describe('Bm25Index', () => {
  const docs = [
    ['bass', 'fish', 'lake'],
    ['bass', 'guitar'],
    ['guitar', 'guitar', 'strings', 'music'],
  ];
  // Hand-computed Lucene BM25 (k1 = 1.2, b = 0.75): N = 3, avgdl = 3.
  const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
  const term = (df: number, tf: number, dl: number) =>
    (idf(df) * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * dl) / 3));

  it('adds weight x the BM25 term score to every document holding the term', () => {
    const ix = new Bm25Index(docs, { k1: 1.2, b: 0.75 });
    expect(ix.documentFrequency('guitar')).toBe(2);
    expect(ix.documentFrequency('piano')).toBe(0);
    const acc = new Float64Array(3);
    const touched: number[] = [];
    ix.addTermScores('guitar', 1, acc, touched);
    ix.addTermScores('bass', 2, acc, touched);
    expect(touched).toEqual([1, 2, 0]);
    expect(acc[0]).toBeCloseTo(2 * term(2, 1, 3), 12);
    expect(acc[1]).toBeCloseTo(term(2, 1, 2) + 2 * term(2, 1, 2), 12);
    expect(acc[2]).toBeCloseTo(term(2, 2, 4), 12);
  });

  it('uses the defaults k1 = 0.9, b = 0.4 and scores nothing for an unknown term or an empty corpus', () => {
    const ix = new Bm25Index(docs);
    expect([ix.k1, ix.b]).toEqual([0.9, 0.4]);
    const acc = new Float64Array(3);
    ix.addTermScores('piano', 1, acc);
    expect([...acc]).toEqual([0, 0, 0]);
    expect(new Bm25Index([]).avgLength).toBe(1);
  });
});
