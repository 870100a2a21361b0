/**
 * LayerNorm over the last axis, torch.nn.LayerNorm's arithmetic (biased variance):
 *
 *     y = (x - mean) * rstd * gamma + beta,   rstd = 1 / sqrt(var + eps)
 *
 * with the analytic gradient (g = dy * gamma, xhat = (x - mean) * rstd):
 *
 *     dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  dgamma = sum(dy * xhat),  dbeta = sum(dy)
 *
 * instead of autodiff through `moments`. On the native backend with the fused kernels
 * (fused-ops.ts) each direction is one pass; elsewhere it is composed of tfjs ops.
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';
import { fusedOps } from './fused-ops.js';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];
type LayerNormOp = (x: Tensor, gamma: Tensor, beta: Tensor) => Tensor;

export function layerNorm(x: Tensor, gamma: Tensor, beta: Tensor, eps: number): Tensor {
  return (fusedOps(x, gamma, beta) ? fusedOp(eps) : composedOp(eps))(x, gamma, beta);
}

const fusedOpsByEps = new Map<number, LayerNormOp>();
const composedOpsByEps = new Map<number, LayerNormOp>();

function fusedOp(eps: number): LayerNormOp {
  let op = fusedOpsByEps.get(eps);
  if (op) return op;
  op = tf.customGrad(((x: Tensor, gamma: Tensor, beta: Tensor, save: (t: Tensor[]) => void) => {
    const [y, mean, rstd] = fusedOps()!.layerNorm(x, gamma, beta, eps);
    save([x, gamma, mean, rstd]);
    return {
      value: y,
      gradFunc: (dy: Tensor, saved: Tensor[]) => {
        const [xs, g, m, r] = saved as [Tensor, Tensor, Tensor, Tensor];
        return fusedOps()!.layerNormGrad(dy, xs, g, m, r);
      },
    };
  }) as unknown as CustomGradientFunc) as unknown as LayerNormOp;
  fusedOpsByEps.set(eps, op);
  return op;
}

function composedOp(eps: number): LayerNormOp {
  let op = composedOpsByEps.get(eps);
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
  composedOpsByEps.set(eps, op);
  return op;
}
