/**
 * Sentence pooling over an encoder's last hidden state [B, T, H], as sentence-transformers'
 * Pooling module: `cls` takes token 0; `mean` averages the tokens the attention mask keeps,
 * sum(h * m) / max(sum(m), 1e-9). `l2Normalize` is torch F.normalize: x / max(||x||_2, 1e-12).
 */
import type { Pooling } from '@dv/core';
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';

export function poolCls(hidden: Tensor): Tensor {
  const [b, , h] = hidden.shape as [number, number, number];
  return tf.slice(hidden, [0, 0, 0], [b, 1, h]).reshape([b, h]);
}

export function poolMean(hidden: Tensor, attentionMask: Tensor): Tensor {
  const m = tf.expandDims(tf.cast(attentionMask, 'float32'), -1);
  return tf.div(tf.sum(tf.mul(hidden, m), 1), tf.maximum(tf.sum(m, 1), 1e-9));
}

export function l2Normalize(x: Tensor): Tensor {
  return tf.div(x, tf.maximum(tf.norm(x, 'euclidean', -1, true), 1e-12));
}

/** Registry of pooling modes, keyed by @dv/core's `Pooling`. */
export const poolings = Object.freeze({
  cls: (hidden: Tensor) => poolCls(hidden),
  mean: (hidden: Tensor, mask: Tensor) => poolMean(hidden, mask),
} as const satisfies Record<Pooling, (hidden: Tensor, mask: Tensor) => Tensor>);

export function pool(hidden: Tensor, attentionMask: Tensor, pooling: Pooling, normalize: boolean): Tensor {
  const pooled = poolings[pooling](hidden, attentionMask);
  return normalize ? l2Normalize(pooled) : pooled;
}
