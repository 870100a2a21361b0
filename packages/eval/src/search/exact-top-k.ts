/**
 * Exact maximum-inner-product search: every query against every document, k best per query.
 * Blocked matrix product (a block of documents stays in cache while a block of queries is
 * scored against it, four queries at a time), then a bounded heap per query.
 * Cosine similarity = inner product of L2-normalised rows (see `l2Normalize`).
 *
 * Inputs are row-major Float32Arrays: queries nq x dim, docs nd x dim. Dot products are
 * accumulated in float64 and rounded to float32 (what a float32 BLAS would give, up to
 * summation order). Result rows are sorted by score descending, ties by doc index ascending;
 * a row has min(k, nd) entries.
 */
import { BoundedHeap } from '@dv/core';

export interface TopKResult {
  k: number;
  /** nq x k doc indices (-1 past the end when nd < k). */
  indices: Int32Array;
  /** nq x k scores (NaN past the end). */
  scores: Float32Array;
}

export interface ExactTopKOptions {
  /** Documents per block (default 2048: 2 MB of float32 at dim 256). */
  docBlock?: number;
  /** Called after each document block with the number of documents done. */
  onProgress?: (docsDone: number) => void;
}

export function exactTopK(
  queries: Float32Array,
  docs: Float32Array,
  dim: number,
  k: number,
  options: ExactTopKOptions = {},
): TopKResult {
  if (dim <= 0 || queries.length % dim !== 0 || docs.length % dim !== 0)
    throw new Error(`matrix sizes ${queries.length} and ${docs.length} are not multiples of dim ${dim}`);
  const nq = queries.length / dim;
  const nd = docs.length / dim;
  const heaps = Array.from({ length: nq }, () => new BoundedHeap(Math.min(k, nd)));
  const block = options.docBlock ?? 2048;
  const tile = new Float64Array(4 * block);
  for (let d0 = 0; d0 < nd; d0 += block) {
    const d1 = Math.min(nd, d0 + block);
    for (let q0 = 0; q0 < nq; q0 += 4) {
      const nqb = Math.min(4, nq - q0);
      const a0 = q0 * dim;
      const a1 = nqb > 1 ? a0 + dim : a0;
      const a2 = nqb > 2 ? a0 + 2 * dim : a0;
      const a3 = nqb > 3 ? a0 + 3 * dim : a0;
      for (let d = d0; d < d1; d++) {
        const b = d * dim;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let j = 0; j < dim; j++) {
          const x = docs[b + j]!;
          s0 += queries[a0 + j]! * x;
          s1 += queries[a1 + j]! * x;
          s2 += queries[a2 + j]! * x;
          s3 += queries[a3 + j]! * x;
        }
        const t = d - d0;
        tile[t] = s0;
        tile[block + t] = s1;
        tile[2 * block + t] = s2;
        tile[3 * block + t] = s3;
      }
      for (let qi = 0; qi < nqb; qi++) {
        const heap = heaps[q0 + qi]!;
        const off = qi * block;
        let thr = heap.threshold;
        for (let d = d0; d < d1; d++) {
          const s = Math.fround(tile[off + d - d0]!);
          if (s > thr) {
            heap.push(s, d);
            thr = heap.threshold;
          }
        }
      }
    }
    options.onProgress?.(d1);
  }
  const indices = new Int32Array(nq * k).fill(-1);
  const scores = new Float32Array(nq * k).fill(Number.NaN);
  heaps.forEach((h, q) => {
    h.sorted().forEach((e, r) => {
      indices[q * k + r] = e.index;
      scores[q * k + r] = e.score;
    });
  });
  return { k, indices, scores };
}

/** Scales each row to unit L2 norm in place (zero rows stay zero); returns the array. */
export function l2Normalize(m: Float32Array, dim: number): Float32Array {
  for (let r = 0; r < m.length; r += dim) {
    let n = 0;
    for (let j = 0; j < dim; j++) n += m[r + j]! * m[r + j]!;
    if (n > 0) {
      const inv = 1 / Math.sqrt(n);
      for (let j = 0; j < dim; j++) m[r + j]! *= inv;
    }
  }
  return m;
}

/** Inner product of row `qi` of `queries` with row `di` of `docs`, rounded to float32. */
export function rowDot(
  queries: Float32Array,
  qi: number,
  docs: Float32Array,
  di: number,
  dim: number,
): number {
  let s = 0;
  const a = qi * dim;
  const b = di * dim;
  for (let j = 0; j < dim; j++) s += queries[a + j]! * docs[b + j]!;
  return Math.fround(s);
}
