/**
 * The few layer functions the encoders are built from, written against torch's conventions so
 * that Hugging Face weights load unchanged: a Linear weight is [out, in] and applied as
 * x W^T + b; LayerNorm uses the biased variance; GELU is the exact erf form.
 */
import type { Tensor } from '@tensorflow/tfjs';
import { tf } from '../backend/tf.js';
import { fusedOps, type Rope } from './fused-ops.js';
import { geluErf } from './gelu.js';
import { biasAdd, biasAddGrad, matMul2d } from './native-ops.js';

export { layerNorm } from './layer-norm.js';

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
