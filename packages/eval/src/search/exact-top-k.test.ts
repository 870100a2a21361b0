import { createRng } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { exactTopK, l2Normalize } from './exact-top-k.js';
import { exactTopKOrt } from './exact-top-k-ort.js';

function randomMatrix(rows: number, dim: number, seed: number): Float32Array {
  const rng = createRng(seed);
  const m = new Float32Array(rows * dim);
  for (let i = 0; i < m.length; i++) m[i] = rng.normal();
  return m;
}

/** Brute force: every score, fully sorted (score desc, index asc). */
function naive(q: Float32Array, d: Float32Array, dim: number, k: number) {
  const nq = q.length / dim;
  const nd = d.length / dim;
  return Array.from({ length: nq }, (_, i) => {
    const all = Array.from({ length: nd }, (_, j) => {
      let s = 0;
      for (let t = 0; t < dim; t++) s += q[i * dim + t]! * d[j * dim + t]!;
      return { index: j, score: Math.fround(s) };
    });
    all.sort((a, b) => (b.score !== a.score ? b.score - a.score : a.index - b.index));
    return all.slice(0, k);
  });
}

describe('exact top-k', () => {
  it('matches brute force across block boundaries and odd query counts', () => {
    const dim = 7;
    const q = randomMatrix(6, dim, 1);
    const d = randomMatrix(1000, dim, 2);
    const k = 13;
    const r = exactTopK(q, d, dim, k, { docBlock: 97 });
    naive(q, d, dim, k).forEach((row, i) => {
      expect([...r.indices.slice(i * k, (i + 1) * k)]).toEqual(row.map((e) => e.index));
      expect([...r.scores.slice(i * k, (i + 1) * k)]).toEqual(row.map((e) => e.score));
    });
  });

  it('the onnxruntime (sgemm) path finds the same docs, scores within float32 rounding', async () => {
    const dim = 33;
    const q = randomMatrix(5, dim, 3);
    const d = randomMatrix(3000, dim, 4);
    const k = 20;
    const r = await exactTopKOrt(q, d, dim, k, { docBlock: 1024 });
    naive(q, d, dim, k).forEach((row, i) => {
      expect([...r.indices.slice(i * k, (i + 1) * k)]).toEqual(row.map((e) => e.index));
      row.forEach((e, j) => {
        expect(Math.abs(r.scores[i * k + j]! - e.score)).toBeLessThan(1e-4);
      });
    });
    const small = await exactTopKOrt(new Float32Array([1, 0]), new Float32Array([0.5, 0, 2, 0]), 2, 4);
    expect([...small.indices]).toEqual([1, 0, -1, -1]);
    // Ties keep the lower doc index within and across blocks (ONNX TopK's rule, then the heap's).
    const tied = await exactTopKOrt(new Float32Array([1]), new Float32Array(7).fill(1), 1, 3, {
      docBlock: 2,
    });
    expect([...tied.indices]).toEqual([0, 1, 2]);
  });

  it('k larger than the corpus returns every doc and pads with -1', () => {
    const r = exactTopK(new Float32Array([1, 0]), new Float32Array([0.5, 0, 2, 0]), 2, 4);
    expect([...r.indices]).toEqual([1, 0, -1, -1]);
    expect(r.scores[0]).toBe(2);
    expect(Number.isNaN(r.scores[3]!)).toBe(true);
  });

  it('ties keep the lower doc index, also across blocks', () => {
    const docs = new Float32Array([1, 1, 1, 1, 1, 1]); // six identical 1-d docs
    const r = exactTopK(new Float32Array([1]), docs, 1, 3, { docBlock: 2 });
    expect([...r.indices]).toEqual([0, 1, 2]);
  });

  it('refuses matrices that do not match dim', () => {
    expect(() => exactTopK(new Float32Array(3), new Float32Array(4), 2, 1)).toThrow(/multiples of dim/);
  });

  it('l2Normalize gives unit rows and leaves zero rows alone', () => {
    const m = l2Normalize(new Float32Array([3, 4, 0, 0]), 2);
    expect([...m]).toEqual([Math.fround(0.6), Math.fround(0.8), 0, 0]);
  });
});
