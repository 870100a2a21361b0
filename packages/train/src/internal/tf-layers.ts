/**
 * The few layer functions the encoders are built from, written against torch's conventions so
 * that Hugging Face weights load unchanged: a Linear weight is [out, in] and applied as
 * x W^T + b; LayerNorm uses the biased variance; GELU is the exact erf form.
 */
import type { Tensor } from '@tensorflow/tfjs';
import { tf } from '../backend/tf.js';

/** x W^T + b over the last axis of x (any rank), W [out, in]. */
export function linear(x: Tensor, weight: Tensor, bias?: Tensor): Tensor {
  const shape = x.shape;
  const inDim = shape[shape.length - 1]!;
  const outDim = weight.shape[0]!;
  let y: Tensor = tf.matMul(x.reshape([-1, inDim]), weight as tf.Tensor2D, false, true);
  if (bias) y = tf.add(y, bias);
  return y.reshape([...shape.slice(0, -1), outDim]);
}

/**
 * (x - mean) / sqrt(var + eps) * gamma + beta over the last axis, with the analytic gradient
 * (dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma) instead of autodiff
 * through `moments` (fewer elementwise passes over [B, T, H] in the backward step).
 */
export function layerNorm(x: Tensor, gamma: Tensor, beta: Tensor, eps: number): Tensor {
  return layerNormOp(eps)(x, gamma, beta);
}

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];
type LayerNormOp = (x: Tensor, gamma: Tensor, beta: Tensor) => Tensor;
const layerNormOps = new Map<number, LayerNormOp>();

function layerNormOp(eps: number): LayerNormOp {
  let op = layerNormOps.get(eps);
  if (op) return op;
  op = tf.customGrad(((x: Tensor, gamma: Tensor, beta: Tensor, save: (t: Tensor[]) => void) => {
    const xc = tf.sub(x, tf.mean(x, -1, true));
    const rstd = tf.rsqrt(tf.add(tf.mean(tf.square(xc), -1, true), eps));
    const xhat = tf.mul(xc, rstd);
    save([xhat, rstd, gamma]);
    return {
      value: tf.add(tf.mul(xhat, gamma), beta),
      gradFunc: (dy: Tensor, saved: Tensor[]) => {
        const [xh, rs, g] = saved as [Tensor, Tensor, Tensor];
        const dxhat = tf.mul(dy, g);
        const dx = tf.mul(
          rs,
          tf.sub(tf.sub(dxhat, tf.mean(dxhat, -1, true)), tf.mul(xh, tf.mean(tf.mul(dxhat, xh), -1, true))),
        );
        const axes = dy.shape.slice(0, -1).map((_, i) => i);
        return [dx, tf.sum(tf.mul(dy, xh), axes), tf.sum(dy, axes)];
      },
    };
  }) as unknown as CustomGradientFunc) as unknown as LayerNormOp;
  layerNormOps.set(eps, op);
  return op;
}

/**
 * Exact GELU x * Phi(x), Phi(x) = 0.5 (1 + erf(x / sqrt 2)), with the analytic gradient
 * dy * (Phi(x) + x * phi(x)), phi the standard normal density.
 */
const geluErf = tf.customGrad(((x: Tensor, save: (t: Tensor[]) => void) => {
  const cdf = tf.mul(tf.add(tf.erf(tf.mul(x, Math.SQRT1_2)), 1), 0.5);
  save([x, cdf]);
  return {
    value: tf.mul(x, cdf),
    gradFunc: (dy: Tensor, saved: Tensor[]) => {
      const [xs, c] = saved as [Tensor, Tensor];
      const pdf = tf.mul(tf.exp(tf.mul(tf.square(xs), -0.5)), 1 / Math.sqrt(2 * Math.PI));
      return tf.mul(dy, tf.add(c, tf.mul(xs, pdf)));
    },
  };
}) as unknown as CustomGradientFunc) as unknown as (x: Tensor) => Tensor;

/** Activations by Hugging Face `hidden_act` name. */
export const activations = Object.freeze({
  // 0.5 x (1 + erf(x / sqrt 2)): torch.nn.functional.gelu, the `gelu` of BERT and gte.
  gelu: (x: Tensor) => geluErf(x),
  relu: (x: Tensor) => tf.relu(x),
  // tanh approximation (`gelu_new`, `gelu_pytorch_tanh`).
  gelu_new: geluTanh,
  gelu_pytorch_tanh: geluTanh,
} as const satisfies Record<string, (x: Tensor) => Tensor>);

function geluTanh(x: Tensor): Tensor {
  const inner = tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
}

/** [B, T, H] -> [B, heads, T, d]. */
export function splitHeads(x: Tensor, heads: number): Tensor {
  const [b, t, h] = x.shape as [number, number, number];
  return tf.transpose(x.reshape([b, t, heads, h / heads]), [0, 2, 1, 3]);
}

/** [B, heads, T, d] -> [B, T, H]. */
export function mergeHeads(x: Tensor): Tensor {
  const [b, n, t, d] = x.shape as [number, number, number, number];
  return tf.transpose(x, [0, 2, 1, 3]).reshape([b, t, n * d]);
}

/**
 * softmax(Q K^T / sqrt(d) + maskBias) V on [B, heads, T, d]; maskBias [B, 1, 1, T] is
 * (1 - mask) * float32 min, as transformers' `get_extended_attention_mask`.
 */
export function attention(q: Tensor, k: Tensor, v: Tensor, maskBias: Tensor): Tensor {
  const d = q.shape[q.shape.length - 1]!;
  // Scaling Q ([B, heads, T, d]) instead of the scores ([B, heads, T, T]) halves that pass for
  // T = 2d; bit-identical when 1/sqrt(d) is a power of two (d = 4, 16, 64, 256).
  const scores = tf.add(
    tf.matMul(tf.mul(q, 1 / Math.sqrt(d)) as tf.Tensor4D, k as tf.Tensor4D, false, true),
    maskBias,
  );
  return tf.matMul(tf.softmax(scores), v as tf.Tensor4D);
}

export const float32Min = -3.4028234663852886e38;

/** [B, T] 0/1 mask -> additive bias [B, 1, 1, T]. */
export function attentionMaskBias(mask: Tensor): Tensor {
  const [b, t] = mask.shape as [number, number];
  return tf.mul(tf.sub(1, tf.cast(mask, 'float32')), float32Min).reshape([b, 1, 1, t]);
}

/**
 * Embedding lookup table[ids] -> [...ids.shape, dim]. tfjs-wasm has no gradient for gather
 * (its UnsortedSegmentSum kernel is missing), so there the lookup is a one-hot matmul, whose
 * gradient it has; other backends gather.
 */
export function embeddingLookup(table: Tensor, ids: Tensor): Tensor {
  if (tf.getBackend() !== 'wasm') return tf.gather(table, ids);
  const [rows, dim] = table.shape as [number, number];
  if (rows === 1) return tf.mul(tf.ones([...ids.shape, 1]), table); // every id is 0
  const oneHot = tf.oneHot(tf.cast(ids.flatten(), 'int32') as tf.Tensor1D, rows);
  return tf.matMul(oneHot, table as tf.Tensor2D).reshape([...ids.shape, dim]);
}
