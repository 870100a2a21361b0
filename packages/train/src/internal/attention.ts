/**
 * Multi-head attention pieces over Hugging Face's layouts: head split/merge, the attention
 * itself (softmax(Q K^T / sqrt(d) + mask) V), rotary embeddings (gte), the additive mask bias,
 * and `packedAttention`, which runs all of it as one fused TensorFlow kernel each way where
 * available (fused-ops.ts) and as the tfjs composition elsewhere.
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';
import { fusedOps, type Rope } from './fused-ops.js';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];

/**
 * Rows [B*T, n*H] holding n projections side by side (heads contiguous within each, the layout
 * of a packed QKV weight) -> n tensors [B, heads, T, d]: one transpose for all n.
 */
export function splitHeads(x: Tensor, batch: number, heads: number, n = 1): Tensor[] {
  const [rows, width] = x.shape as [number, number];
  const t = rows / batch;
  const d = width / (n * heads);
  const y = tf.transpose(x.reshape([batch, t, n, heads, d]), [2, 0, 3, 1, 4]);
  return n === 1 ? [y.reshape([batch, heads, t, d])] : tf.unstack(y, 0);
}

/** [B, heads, T, d] -> rows [B*T, heads*d]. */
export function mergeHeads(x: Tensor): Tensor {
  const [b, n, t, d] = x.shape as [number, number, number, number];
  return tf.transpose(x, [0, 2, 1, 3]).reshape([b * t, n * d]);
}

/**
 * softmax(Q K^T / sqrt(d) + maskBias) V on [B, heads, T, d] (Q may have fewer positions than
 * K and V); maskBias [B, 1, 1, T] is (1 - mask) * float32 min, as transformers'
 * `get_extended_attention_mask`, or undefined when no position is masked (adding zeros).
 */
export function attention(q: Tensor, k: Tensor, v: Tensor, maskBias: Tensor | undefined): Tensor {
  const d = q.shape[q.shape.length - 1]!;
  // Scaling Q ([B, heads, T, d]) instead of the scores ([B, heads, T, T]) halves that pass for
  // T = 2d; bit-identical when 1/sqrt(d) is a power of two (d = 4, 16, 64, 256).
  const raw = tf.matMul(tf.mul(q, 1 / Math.sqrt(d)) as tf.Tensor4D, k as tf.Tensor4D, false, true);
  const scores = maskBias ? tf.add(raw, maskBias) : raw;
  return tf.matMul(softmaxLastAxis(scores), v as tf.Tensor4D);
}

/** softmax over the last axis; its gradient y * (dy - sum(dy * y)) in one fused pass where available. */
function softmaxLastAxis(x: Tensor): Tensor {
  return fusedOps(x) ? fusedSoftmax(x) : tf.softmax(x);
}

const fusedSoftmax = tf.customGrad(((x: Tensor, save: (t: Tensor[]) => void) => {
  const y = tf.softmax(x);
  save([y]);
  return { value: y, gradFunc: (dy: Tensor, [ys]: Tensor[]) => fusedOps()!.softmaxGrad(dy, ys!) };
}) as unknown as CustomGradientFunc) as unknown as (x: Tensor) => Tensor;

/**
 * Multi-head self-attention from packed projections: qkv [B*T, 3H] (Q | K | V, heads
 * contiguous in each) -> context rows [B*T, H], i.e. mergeHeads(attention(splitHeads(qkv))).
 * With `rope` (gte) Q and K are rotated first. On the native backend with the fused kernels it
 * is one op each way (no head transposes, sequences and heads in parallel); elsewhere the tfjs
 * composition.
 */
export function packedAttention(
  qkv: Tensor,
  maskBias: Tensor | undefined,
  batch: number,
  heads: number,
  rope?: Rope,
): Tensor {
  const d = qkv.shape[1]! / (3 * heads);
  const t = qkv.shape[0]! / batch;
  if (!fusedOps(qkv)) {
    const [q, k, v] = splitHeads(qkv, batch, heads, 3) as [Tensor, Tensor, Tensor];
    const rot = (x: Tensor) =>
      rope ? applyRope(x, rope.cos.reshape([1, 1, t, d]), rope.sin.reshape([1, 1, t, d])) : x;
    return mergeHeads(attention(rot(q), rot(k), v, maskBias));
  }
  const mask = maskBias ? maskBias.reshape([batch, t]) : tf.zeros([batch, t]);
  const tables = rope ?? { cos: tf.zeros([0]), sin: tf.zeros([0]) };
  return fusedAttentionOp(heads, 1 / Math.sqrt(d), !!rope)(qkv, mask, tables.cos, tables.sin);
}

type AttentionOp = (qkv: Tensor, mask: Tensor, cos: Tensor, sin: Tensor) => Tensor;
const fusedAttentionOps = new Map<string, AttentionOp>();

/** The fused attention with its gradient; mask and rope tables are inputs (saved), not differentiated. */
function fusedAttentionOp(heads: number, scale: number, withRope: boolean): AttentionOp {
  const key = `${heads}/${scale}/${withRope}`;
  let op = fusedAttentionOps.get(key);
  if (op) return op;
  op = tf.customGrad(((qkv: Tensor, mask: Tensor, cos: Tensor, sin: Tensor, save: (t: Tensor[]) => void) => {
    const rope = withRope ? { cos, sin } : undefined;
    const [ctx, probs] = fusedOps()!.attention(qkv, mask, heads, scale, rope);
    save([qkv, mask, probs, cos, sin]);
    return {
      value: ctx,
      gradFunc: (dctx: Tensor, saved: Tensor[]) => {
        const [x, m, p, c, sn] = saved as [Tensor, Tensor, Tensor, Tensor, Tensor];
        const r = withRope ? { cos: c, sin: sn } : undefined;
        const dqkv = fusedOps()!.attentionGrad(dctx, x, m, p, heads, scale, r);
        return [dqkv, tf.zerosLike(m), tf.zerosLike(c), tf.zerosLike(sn)];
      },
    };
  }) as unknown as CustomGradientFunc) as unknown as AttentionOp;
  fusedAttentionOps.set(key, op);
  return op;
}

/** x cos + rotate_half(x) sin on [B, heads, T, d] with tables broadcast from [1, 1, T, d]; rotate_half(x) = [-x2, x1]. */
export function applyRope(x: Tensor, cos: Tensor, sin: Tensor): Tensor {
  const d = x.shape[3]!;
  const [x1, x2] = tf.split(x, [d / 2, d / 2], 3);
  return tf.add(tf.mul(x, cos), tf.mul(tf.concat([tf.neg(x2!), x1!], 3), sin));
}

export const float32Min = -3.4028234663852886e38;

/** [B, T] 0/1 mask -> additive bias [B, 1, 1, T]; undefined when the mask keeps every position. */
export function attentionMaskBias(mask: Tensor): Tensor | undefined {
  const [b, t] = mask.shape as [number, number];
  if (tf.tidy(() => tf.min(mask).dataSync()[0]) === 1) return undefined;
  return tf.mul(tf.sub(1, tf.cast(mask, 'float32')), float32Min).reshape([b, 1, 1, t]);
}
