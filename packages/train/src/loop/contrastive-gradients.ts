/**
 * Loss and gradients of one contrastive batch, two ways with the same result:
 *
 * - plain: one tape over both encoder passes and InfoNCE (`infoNceLoss`);
 * - gradient cache (Gao, Zhang, Han & Callan 2021, "Scaling Deep Contrastive Learning Batch
 *   Size under Memory Limited Setup", arXiv 2101.06983): (1) embed queries and documents in
 *   chunks of `chunk` rows without a tape; (2) the loss and its gradient with respect to the
 *   embeddings, dL/de; (3) per chunk, re-embed with a tape and back-propagate the surrogate
 *   sum(e * stop_gradient(dL/de)), whose parameter gradient is that chunk's share of dL/dtheta;
 *   the shares are summed. Only one chunk's activations are alive at a time.
 *
 * Dropout masks come from one seed per encoder pass (query side, document side), drawn from
 * `rng`, and the cache replays the same seeds in (1) and (3); with dropout off the two modes
 * are the same function (tested to 1e-5).
 */
import { createRng, type Pooling, type Rng } from '@dv/core';
import type { ForwardInputs } from '../architectures/encoder-architecture.js';
import { type Tensor, tf } from '../backend/tf.js';
import type { TransformerEncoder } from '../encoders/transformer-encoder.js';
import { infoNceLoss } from '../losses/info-nce.js';

export interface ContrastiveInputs {
  queries: ForwardInputs;
  docs: ForwardInputs;
  /** [queries, docs] relations +1 / -1 / 0. */
  relations: Tensor;
}

export interface ContrastiveOptions {
  pooling: Pooling;
  normalize: boolean;
  temperature: number;
  /** Dropout on (masks drawn from `rng`). */
  training: boolean;
  /** Gradient-cache chunk in rows; undefined = plain. */
  gradCacheChunk?: number | undefined;
}

export interface ContrastiveGradients {
  loss: number;
  /** Parameter name -> gradient (caller disposes). */
  grads: Map<string, Tensor>;
}

function sliceRows(inputs: ForwardInputs, start: number, size: number): ForwardInputs {
  const s = (t: Tensor) => tf.slice(t, [start, 0], [size, -1]);
  return {
    inputIds: s(inputs.inputIds),
    attentionMask: s(inputs.attentionMask),
    ...(inputs.tokenTypeIds ? { tokenTypeIds: s(inputs.tokenTypeIds) } : {}),
  } as ForwardInputs;
}

export function contrastiveGradients(
  encoder: TransformerEncoder,
  batch: ContrastiveInputs,
  options: ContrastiveOptions,
  rng: Rng,
): ContrastiveGradients {
  const names = encoder.trainableNames();
  const vars = encoder.trainableVariables();
  const seeds = { q: rng.nextUint32(), d: rng.nextUint32() };
  const embedOpts = (seed: number) => (options.training ? { training: { rng: createRng(seed | 0) } } : {});
  const embed = (inputs: ForwardInputs, rngFor: ReturnType<typeof embedOpts>) =>
    encoder.embed(inputs, options.pooling, options.normalize, rngFor);
  const byName = (grads: Record<string, Tensor>) =>
    new Map(names.map((n, i) => [n, grads[vars[i]!.name]!] as [string, Tensor]));

  if (!options.gradCacheChunk) {
    const { value, grads } = tf.variableGrads(() => {
      const q = embed(batch.queries, embedOpts(seeds.q));
      const d = embed(batch.docs, embedOpts(seeds.d));
      return infoNceLoss(q, d, batch.relations, options);
    }, vars);
    const loss = value.dataSync()[0]!;
    value.dispose();
    return { loss, grads: byName(grads) };
  }

  const chunk = options.gradCacheChunk;
  // One dropout stream per side, consumed chunk by chunk in the same order in (1) and (3).
  const chunks = (inputs: ForwardInputs) => {
    const n = inputs.inputIds.shape[0]!;
    const out: Array<{ start: number; size: number }> = [];
    for (let s = 0; s < n; s += chunk) out.push({ start: s, size: Math.min(chunk, n - s) });
    return out;
  };
  const sides = [
    { inputs: batch.queries, seed: seeds.q },
    { inputs: batch.docs, seed: seeds.d },
  ];
  // (1) embeddings without a tape.
  const reps = sides.map((side) => {
    const o = embedOpts(side.seed);
    return tf.tidy(() =>
      tf.concat(
        chunks(side.inputs).map((c) => embed(sliceRows(side.inputs, c.start, c.size), o)),
        0,
      ),
    );
  });
  // (2) the loss and dL/d(embeddings).
  const { value, grads: repGrads } = tf.valueAndGrads((q: Tensor, d: Tensor) =>
    infoNceLoss(q, d, batch.relations, options),
  )(reps);
  const loss = value.dataSync()[0]!;
  value.dispose();
  tf.dispose(reps);
  // (3) chunk by chunk, the surrogate's parameter gradients, summed.
  const total = new Map<string, Tensor>();
  sides.forEach((side, k) => {
    const o = embedOpts(side.seed);
    for (const c of chunks(side.inputs)) {
      const g = tf.tidy(() => tf.slice(repGrads[k]!, [c.start, 0], [c.size, -1]));
      const { value: v, grads } = tf.variableGrads(() => {
        const e = embed(sliceRows(side.inputs, c.start, c.size), o);
        return tf.sum(tf.mul(e, g));
      }, vars);
      v.dispose();
      g.dispose();
      for (const [n, t] of byName(grads)) {
        const prev = total.get(n);
        if (prev) {
          total.set(n, tf.add(prev, t));
          prev.dispose();
          t.dispose();
        } else total.set(n, t);
      }
    }
  });
  tf.dispose(repGrads);
  return { loss, grads: total };
}
