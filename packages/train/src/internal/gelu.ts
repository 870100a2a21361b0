/**
 * Exact GELU (torch.nn.functional.gelu, the `gelu` of BERT and gte):
 *
 *     gelu(x) = x * Phi(x),  Phi(x) = 0.5 (1 + erf(x / sqrt 2))
 *     gelu'(x) = Phi(x) + x * phi(x),  phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
 *
 * One fused pass each way on the native backend with the fused kernels (fused-ops.ts);
 * elsewhere composed of tfjs ops (5 forward, 7 backward).
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';
import { fusedOps } from './fused-ops.js';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];

export function geluErf(x: Tensor): Tensor {
  return fusedOps(x) ? fused(x) : composed(x);
}

const fused = tf.customGrad(((x: Tensor, save: (t: Tensor[]) => void) => {
  save([x]);
  return {
    value: fusedOps()!.gelu(x),
    gradFunc: (dy: Tensor, [xs]: Tensor[]) => fusedOps()!.geluGrad(dy, xs!),
  };
}) as unknown as CustomGradientFunc) as unknown as (x: Tensor) => Tensor;

const composed = tf.customGrad(((x: Tensor, save: (t: Tensor[]) => void) => {
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
