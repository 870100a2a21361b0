/**
 * Exact top-k with the matrix products in onnxruntime (multi-threaded float32 sgemm): the
 * documents go through in blocks, each block's scores [queries x block] come from one Gemm,
 * and a bounded heap per query keeps the k best (score descending, ties by doc index
 * ascending), as in `exactTopK`. Scores are float32 sums in sgemm's order, so they can differ
 * from `exactTopK`'s float64-accumulated ones in the last bits.
 */
import * as ort from 'onnxruntime-node';
import { gemmOnnxModel } from '../internal/gemm-onnx-model.js';
import { BoundedHeap } from './bounded-heap.js';
import type { ExactTopKOptions, TopKResult } from './exact-top-k.js';

let sessionPromise: Promise<ort.InferenceSession> | null = null;

function gemmSession(): Promise<ort.InferenceSession> {
  sessionPromise ??= ort.InferenceSession.create(gemmOnnxModel());
  return sessionPromise;
}

export async function exactTopKOrt(
  queries: Float32Array,
  docs: Float32Array,
  dim: number,
  k: number,
  options: ExactTopKOptions = {},
): Promise<TopKResult> {
  if (dim <= 0 || queries.length % dim !== 0 || docs.length % dim !== 0)
    throw new Error(`matrix sizes ${queries.length} and ${docs.length} are not multiples of dim ${dim}`);
  const nq = queries.length / dim;
  const nd = docs.length / dim;
  const heaps = Array.from({ length: nq }, () => new BoundedHeap(Math.min(k, nd)));
  const session = await gemmSession();
  // Keep a score block near 64 MB.
  const block =
    options.docBlock ?? Math.max(1024, Math.min(nd, Math.floor((16 * 1024 * 1024) / Math.max(nq, 1))));
  const q = new ort.Tensor('float32', queries, [nq, dim]);
  for (let d0 = 0; d0 < nd; d0 += block) {
    const d1 = Math.min(nd, d0 + block);
    const nb = d1 - d0;
    const out = await session.run({
      queries: q,
      docs: new ort.Tensor('float32', docs.subarray(d0 * dim, d1 * dim), [nb, dim]),
    });
    const s = out.scores!.data as Float32Array;
    for (let qi = 0; qi < nq; qi++) {
      const heap = heaps[qi]!;
      let thr = heap.threshold;
      const off = qi * nb;
      for (let j = 0; j < nb; j++) {
        const v = s[off + j]!;
        if (v > thr) {
          heap.push(v, d0 + j);
          thr = heap.threshold;
        }
      }
    }
    options.onProgress?.(d1);
  }
  const indices = new Int32Array(nq * k).fill(-1);
  const scores = new Float32Array(nq * k).fill(Number.NaN);
  heaps.forEach((h, qi) => {
    h.sorted().forEach((e, r) => {
      indices[qi * k + r] = e.index;
      scores[qi * k + r] = e.score;
    });
  });
  return { k, indices, scores };
}
