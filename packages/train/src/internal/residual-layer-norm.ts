/**
 * The post-LN transformer's residual sum and LayerNorm in one op (transformers' BertSelfOutput /
 * BertOutput: `LayerNorm(dense(h) + input)`, the bias of `dense` folded in):
 *
 *     z = x + bias + residual,   y = layerNorm(z; gamma, beta, eps)        (bias optional)
 *
 * with the analytic gradient of layer-norm.ts for z (dz), which is also the gradient of x and of
 * residual, and dbias = sum over rows of dz. On the native backend with the fused kernels
 * (DvResidualLayerNorm / DvResidualLayerNormGrad, native/kernels/residual_layer_norm.inc) each
 * direction is one op and one pass over memory, where the composition dispatches BiasAdd, Add
 * and LayerNorm forward and LayerNormGrad and BiasAddGrad backward; elsewhere it is
 * layerNorm((x + bias) + residual) in tfjs ops (the golden test in residual-layer-norm.test.ts compares the two, values and
 * gradients).
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';
import { fusedOps } from './fused-ops.js';
import { layerNorm } from './layer-norm.js';

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];
type WithBias = (x: Tensor, bias: Tensor, residual: Tensor, gamma: Tensor, beta: Tensor) => Tensor;
type NoBias = (x: Tensor, residual: Tensor, gamma: Tensor, beta: Tensor) => Tensor;

/** layerNorm(x + bias + residual) over the last axis; x and residual of one shape, bias [H] or undefined. */
export function residualLayerNorm(
  x: Tensor,
  bias: Tensor | undefined,
  residual: Tensor,
  gamma: Tensor,
  beta: Tensor,
  eps: number,
): Tensor {
  if (!fusedOps(x, residual, gamma, beta, ...(bias ? [bias] : [])) || x.rank < 2)
    return layerNorm(tf.add(bias ? tf.add(x, bias) : x, residual), gamma, beta, eps);
  return bias ? withBias(eps)(x, bias, residual, gamma, beta) : noBias(eps)(x, residual, gamma, beta);
}

const withBiasByEps = new Map<number, WithBias>();
const noBiasByEps = new Map<number, NoBias>();

function withBias(eps: number): WithBias {
  let op = withBiasByEps.get(eps);
  if (op) return op;
  op = tf.customGrad(((
    x: Tensor,
    b: Tensor,
    r: Tensor,
    gamma: Tensor,
    beta: Tensor,
    save: (t: Tensor[]) => void,
  ) => {
    const [y, mean, rstd] = fusedOps()!.residualLayerNorm(x, b, r, gamma, beta, eps);
    save([x, b, r, gamma, mean, rstd]);
    return {
      value: y,
      gradFunc: (dy: Tensor, saved: Tensor[]) => {
        const [xs, bs, rs, g, m, s] = saved as [Tensor, Tensor, Tensor, Tensor, Tensor, Tensor];
        const [dz, db, dgamma, dbeta] = fusedOps()!.residualLayerNormGrad(dy, xs, bs, rs, g, m, s);
        // The engine accumulates and disposes gradients per input: x and residual get their own handle.
        return [dz, db, tf.clone(dz), dgamma, dbeta];
      },
    };
  }) as unknown as CustomGradientFunc) as unknown as WithBias;
  withBiasByEps.set(eps, op);
  return op;
}

function noBias(eps: number): NoBias {
  let op = noBiasByEps.get(eps);
  if (op) return op;
  op = tf.customGrad(((x: Tensor, r: Tensor, gamma: Tensor, beta: Tensor, save: (t: Tensor[]) => void) => {
    const none = tf.zeros([0]);
    const [y, mean, rstd] = fusedOps()!.residualLayerNorm(x, none, r, gamma, beta, eps);
    save([x, r, gamma, mean, rstd]);
    return {
      value: y,
      gradFunc: (dy: Tensor, saved: Tensor[]) => {
        const [xs, rs, g, m, s] = saved as [Tensor, Tensor, Tensor, Tensor, Tensor];
        const [dz, , dgamma, dbeta] = fusedOps()!.residualLayerNormGrad(dy, xs, tf.zeros([0]), rs, g, m, s);
        return [dz, tf.clone(dz), dgamma, dbeta];
      },
    };
  }) as unknown as CustomGradientFunc) as unknown as NoBias;
  noBiasByEps.set(eps, op);
  return op;
}
