/**
 * The few layer functions the encoders are built from, written against torch's conventions so
 * that Hugging Face weights load unchanged: a Linear weight is [out, in] and applied as
 * x W^T + b; LayerNorm uses the biased variance; GELU is the exact erf form.
 */
import type { Tensor } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';
import { fusedOps } from './fused-ops.js';
import { geluErf } from './gelu.js';
import { layerNorm } from './layer-norm.js';
import { biasAdd, biasAddGrad, matMul2d } from './native-ops.js';
import { residualLayerNorm } from './residual-layer-norm.js';

export {
  applyRope,
  attention,
  attentionMaskBias,
  float32Min,
  mergeHeads,
  packedAttention,
  splitHeads,
} from './attention.js';
export { layerNorm } from './layer-norm.js';
export { residualLayerNorm } from './residual-layer-norm.js';

/** The identity a forward pass gets when dropout is off (denseResidualLayerNorm then folds the bias). */
export const noDropout = (x: Tensor): Tensor => x;

/**
 * The post-LN sub-layer output: layerNorm(dropout(x W^T + b) + residual), transformers'
 * BertSelfOutput / BertOutput. Without dropout (`noDropout`) the bias, the residual sum and
 * the LayerNorm are one fused op each way (residual-layer-norm.ts); with dropout the bias stays
 * in linear(), before the dropout mask, and the residual sum is fused into the LayerNorm.
 * Without the fused kernels: exactly layerNorm(dropout(linear(x, W, b)) + residual).
 */
export function denseResidualLayerNorm(
  x: Tensor,
  weight: Tensor,
  bias: Tensor,
  residual: Tensor,
  gamma: Tensor,
  beta: Tensor,
  eps: number,
  dropout: (x: Tensor) => Tensor = noDropout,
): Tensor {
  if (!fusedOps(x, weight, bias, residual, gamma, beta))
    return layerNorm(tf.add(dropout(linear(x, weight, bias)), residual), gamma, beta, eps);
  if (dropout === noDropout) return residualLayerNorm(linear(x, weight), bias, residual, gamma, beta, eps);
  return residualLayerNorm(dropout(linear(x, weight, bias)), undefined, residual, gamma, beta, eps);
}

/**
 * x W^T + b over the last axis of x (any rank), W [out, in], with the analytic gradient
 * dx = dy W, dW = dy^T x, db = sum of dy over the rows: three GEMMs and one reduction, on 2-D
 * operands (native MatMul / BiasAdd / BiasAddGrad kernels where available, native-ops.ts).
 */
export function linear(x: Tensor, weight: Tensor, bias?: Tensor): Tensor {
  const shape = x.shape;
  const inDim = shape[shape.length - 1]!;
  const outDim = weight.shape[0]!;
  const x2 = x.rank === 2 ? x : x.reshape([-1, inDim]);
  const y = bias ? linearBiasOp(x2, weight, bias) : linearOp(x2, weight);
  return x.rank === 2 ? y : y.reshape([...shape.slice(0, -1), outDim]);
}

type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];

/**
 * dW = dy^T x [out, in]. TF's CPU GEMM reduces over the 4096-odd rows faster when the transposed
 * operand is the narrower one (measured: 21 vs 28 ms for out 1024, in 256), so for out > in it
 * computes (x^T dy)^T instead; the small [in, out] transpose is cheap.
 */
function weightGrad(dy: Tensor, x: Tensor): Tensor {
  if (dy.shape[1]! > x.shape[1]!) return tf.transpose(matMul2d(x, dy, true, false));
  return matMul2d(dy, x, true, false);
}

const linearOp = tf.customGrad(((x: Tensor, w: Tensor, save: (t: Tensor[]) => void) => {
  save([x, w]);
  return {
    value: matMul2d(x, w, false, true),
    gradFunc: (dy: Tensor, saved: Tensor[]) => {
      const [xs, ws] = saved as [Tensor, Tensor];
      return [matMul2d(dy, ws), weightGrad(dy, xs)];
    },
  };
}) as unknown as CustomGradientFunc) as unknown as (x: Tensor, w: Tensor) => Tensor;

const linearBiasOp = tf.customGrad(((x: Tensor, w: Tensor, b: Tensor, save: (t: Tensor[]) => void) => {
  save([x, w]);
  return {
    value: biasAdd(matMul2d(x, w, false, true), b),
    gradFunc: (dy: Tensor, saved: Tensor[]) => {
      const [xs, ws] = saved as [Tensor, Tensor];
      return [matMul2d(dy, ws), weightGrad(dy, xs), biasAddGrad(dy)];
    },
  };
}) as unknown as CustomGradientFunc) as unknown as (x: Tensor, w: Tensor, b: Tensor) => Tensor;

/**
 * act(x W^T + b) for a Hugging Face `hidden_act` name. For exact GELU with the fused kernels the
 * bias and the activation are one pass each way (DvBiasGelu / DvBiasGeluGrad: the bias
 * gradient is summed in the same pass); otherwise linear() then the activation.
 */
export function linearAct(x: Tensor, weight: Tensor, bias: Tensor, act: keyof typeof activations): Tensor {
  if (act === 'gelu' && x.rank === 2 && fusedOps(x, weight, bias)) return linearGeluOp(x, weight, bias);
  return activations[act](linear(x, weight, bias));
}

const linearGeluOp = tf.customGrad(((x: Tensor, w: Tensor, b: Tensor, save: (t: Tensor[]) => void) => {
  const pre = matMul2d(x, w, false, true);
  save([x, w, pre, b]);
  return {
    value: fusedOps()!.biasGelu(pre, b),
    gradFunc: (dy: Tensor, saved: Tensor[]) => {
      const [xs, ws, p, bs] = saved as [Tensor, Tensor, Tensor, Tensor];
      const [g, db] = fusedOps()!.biasGeluGrad(dy, p, bs);
      return [matMul2d(g, ws), weightGrad(g, xs), db];
    },
  };
}) as unknown as CustomGradientFunc) as unknown as (x: Tensor, w: Tensor, b: Tensor) => Tensor;

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
