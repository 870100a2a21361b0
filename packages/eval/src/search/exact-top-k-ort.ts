/**
 * Exact top-k with the work in onnxruntime: the documents go through in blocks; for each
 * block one Gemm gives the scores [queries x block] (multi-threaded float32 sgemm) and TopK
 * keeps each query's k best of the block (lower index first on ties); a bounded heap per
 * query merges the blocks (score descending, ties by doc index ascending), as in
 * `exactTopK`. Scores are float32 sums in sgemm's order, so they can differ from
 * `exactTopK`'s float64-accumulated ones in the last bits.
 * Tuning (measured in one process, alternating, 100k x 256 docs, 1,000 queries, k 100, on the
 * 2-core machine kind): blocks of 16M scores (16,384 docs at 1,000 queries) cost the least CPU;
 * 8,192 took 1.3x, 4,096 1.7x and 2,048 2.6x the CPU time (more TopK and merge passes), 32,768
 * the same. The session is `cpuSessionOptions` (no spinning pool threads).
 */

import { BoundedHeap } from '@dv/core';
import type * as Ort from 'onnxruntime-node';
import { gemmTopKOnnxModel } from '../internal/gemm-onnx-model.js';
import { cpuSessionOptions, loadOnnxRuntime } from '../internal/onnxruntime.js';
import type { ExactTopKOptions, TopKResult } from './exact-top-k.js';

let sessionPromise: Promise<Ort.InferenceSession> | null = null;

async function gemmSession(): Promise<Ort.InferenceSession> {
  const ort = await loadOnnxRuntime();
  sessionPromise ??= ort.InferenceSession.create(gemmTopKOnnxModel(), cpuSessionOptions());
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
  const ort = await loadOnnxRuntime();
  const session = await gemmSession();
  // Keep a score block near 64 MB.
  const block =
    options.docBlock ?? Math.max(1024, Math.min(nd, Math.floor((16 * 1024 * 1024) / Math.max(nq, 1))));
  const q = new ort.Tensor('float32', queries, [nq, dim]);
  for (let d0 = 0; d0 < nd; d0 += block) {
    const d1 = Math.min(nd, d0 + block);
    const nb = d1 - d0;
    const t = Math.min(k, nb);
    const out = await session.run({
      queries: q,
      docs: new ort.Tensor('float32', docs.subarray(d0 * dim, d1 * dim), [nb, dim]),
      top: new ort.Tensor('int64', BigInt64Array.from([BigInt(t)]), [1]),
    });
    const v = out.values!.data as Float32Array;
    const ix = out.indices!.data as BigInt64Array;
    for (let qi = 0; qi < nq; qi++) {
      const heap = heaps[qi]!;
      for (let j = 0; j < t; j++) {
        const s = v[qi * t + j]!;
        if (s < heap.threshold) break; // sorted: nothing further in this block can enter
        heap.push(s, d0 + Number(ix[qi * t + j]!));
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
