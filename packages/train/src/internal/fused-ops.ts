/**
 * The fused TensorFlow kernels of native/*.cc (exact GELU and its gradient, LayerNorm
 * forward with its row statistics and its gradient, alone or after the post-LN residual sum
 * x + bias + residual, the softmax gradient: one pass each where
 * TF eager runs 4-11 elementwise ops; multi-head attention and its gradient on the packed QKV
 * layout, parallel over sequences and heads where TF's BatchMatMul runs them one by one; an
 * AdamW step in one pass instead of ~10 ops per parameter), loaded into the native backend's TensorFlow and exposed
 * as tfjs kernels. The set-up script compiles the addon into native/build/ next to this
 * package's sources; where it is absent, fails to load, the backend is not `tensorflow`, or
 * `DV_FUSED_OPS=off`, `fusedOps()` returns undefined and tf-layers.ts uses its tfjs
 * compositions (same formulas; the golden tests check both paths).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tensor } from '@tensorflow/tfjs-core';
import { currentBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';

const backendName = 'tensorflow';

/** Where the set-up script puts the compiled addon (from src/internal or dist/internal). */
export const fusedOpsPath = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'native',
  'build',
  'dv_tf_ops.node',
);

/** Rotary-embedding tables [T, d] applied to Q and K (gte). */
export interface Rope {
  cos: Tensor;
  sin: Tensor;
}

export interface FusedOps {
  gelu(x: Tensor): Tensor;
  geluGrad(dy: Tensor, x: Tensor): Tensor;
  /** gelu(x + bias), bias over the last axis. */
  biasGelu(x: Tensor, bias: Tensor): Tensor;
  /** [dx, dbias] of biasGelu. */
  biasGeluGrad(dy: Tensor, x: Tensor, bias: Tensor): [Tensor, Tensor];
  /** y, and per-row mean and 1/sqrt(var + eps) (rows = all axes but the last). */
  layerNorm(x: Tensor, gamma: Tensor, beta: Tensor, epsilon: number): [Tensor, Tensor, Tensor];
  /** dx, dgamma, dbeta. */
  layerNormGrad(dy: Tensor, x: Tensor, gamma: Tensor, mean: Tensor, rstd: Tensor): [Tensor, Tensor, Tensor];
  /**
   * layerNorm(x + bias + residual): y, mean, rstd. `bias` [H], or empty ([0]) for none.
   */
  residualLayerNorm(
    x: Tensor,
    bias: Tensor,
    residual: Tensor,
    gamma: Tensor,
    beta: Tensor,
    epsilon: number,
  ): [Tensor, Tensor, Tensor];
  /** dz (the gradient of x and of residual), dbias (empty without bias), dgamma, dbeta. */
  residualLayerNormGrad(
    dy: Tensor,
    x: Tensor,
    bias: Tensor,
    residual: Tensor,
    gamma: Tensor,
    mean: Tensor,
    rstd: Tensor,
  ): [Tensor, Tensor, Tensor, Tensor];
  softmaxGrad(dy: Tensor, y: Tensor): Tensor;
  /**
   * Multi-head attention on packed projections qkv [B*T, 3H] with an additive mask [B, T]:
   * ctx [B*T, H] (heads merged) and the probabilities [B, heads, T, T] for the gradient.
   */
  attention(qkv: Tensor, mask: Tensor, heads: number, scale: number, rope?: Rope): [Tensor, Tensor];
  /** d qkv [B*T, 3H] from d ctx. */
  attentionGrad(
    dctx: Tensor,
    qkv: Tensor,
    mask: Tensor,
    probs: Tensor,
    heads: number,
    scale: number,
    rope?: Rope,
  ): Tensor;
  /**
   * One AdamW step: new [p, m, v]; hyper = [decay, b1, 1 - b1, b2, 1 - b2, 1/sqrt(1 - b2^t),
   * eps, lr/(1 - b1^t)] with decay = 1 - lr * weight_decay (1 when not decayed).
   */
  adamw(p: Tensor, g: Tensor, m: Tensor, v: Tensor, hyper: Tensor): [Tensor, Tensor, Tensor];
}

interface NodeKernelBackend {
  binding: { TF_ATTR_FLOAT: number; TF_ATTR_INT: number; TF_ATTR_BOOL: number };
  executeSingleOutput(name: string, attrs: unknown[], inputs: tf.TensorInfo[]): tf.TensorInfo;
  executeMultipleOutputs(name: string, attrs: unknown[], inputs: tf.TensorInfo[], n: number): tf.TensorInfo[];
}

type KernelArgs = { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap };

let state: { ok: true; isa: string } | { ok: false; why: string } | undefined;

/**
 * Loads the addon and registers the tfjs kernels once; returns why not when it cannot. `isa`:
 * which copy of the kernels the addon chose for this CPU ("avx512", "avx2" or "base";
 * DV_FUSED_ISA forces a narrower one).
 */
export function fusedOpsStatus(): { loaded: boolean; why: string; isa?: string } {
  if (process.env.DV_FUSED_OPS === 'off') return { loaded: false, why: 'DV_FUSED_OPS=off' };
  if (tf.getBackend() !== backendName) return { loaded: false, why: `backend is ${tf.getBackend()}` };
  // The kernels are CPU kernels linked against the CPU TensorFlow build; the CUDA build keeps
  // its own (GPU) kernels.
  if (currentBackend()?.choice === 'tensorflow-gpu')
    return { loaded: false, why: 'CPU-only kernels, backend is tensorflow-gpu' };
  state ??= load();
  return state.ok ? { loaded: true, why: fusedOpsPath, isa: state.isa } : { loaded: false, why: state.why };
}

function load(): { ok: true; isa: string } | { ok: false; why: string } {
  if (!existsSync(fusedOpsPath)) return { ok: false, why: `not built (${fusedOpsPath} is absent)` };
  let isa = 'unknown';
  try {
    isa = String((createRequire(import.meta.url)(fusedOpsPath) as { isa?: string }).isa ?? 'unknown');
  } catch (err) {
    return { ok: false, why: `cannot load ${fusedOpsPath}: ${(err as Error).message.split('\n')[0]}` };
  }
  const reg = (
    kernelName: string,
    run: (be: NodeKernelBackend, args: KernelArgs) => tf.TensorInfo | tf.TensorInfo[],
  ) =>
    tf.registerKernel({
      kernelName,
      backendName,
      kernelFunc: ((args: KernelArgs) => run(args.backend as NodeKernelBackend, args)) as tf.KernelFunc,
    });
  const ins = (args: KernelArgs, names: string[]) => names.map((n) => args.inputs[n]!);
  reg('DvGelu', (be, a) => be.executeSingleOutput('DvGelu', [], ins(a, ['x'])));
  reg('DvGeluGrad', (be, a) => be.executeSingleOutput('DvGeluGrad', [], ins(a, ['dy', 'x'])));
  reg('DvBiasGelu', (be, a) => be.executeSingleOutput('DvBiasGelu', [], ins(a, ['x', 'bias'])));
  reg('DvBiasGeluGrad', (be, a) =>
    be.executeMultipleOutputs('DvBiasGeluGrad', [], ins(a, ['dy', 'x', 'bias']), 2),
  );
  reg('DvLayerNorm', (be, a) =>
    be.executeMultipleOutputs(
      'DvLayerNorm',
      [{ name: 'epsilon', type: be.binding.TF_ATTR_FLOAT, value: a.attrs!.epsilon }],
      ins(a, ['x', 'gamma', 'beta']),
      3,
    ),
  );
  reg('DvLayerNormGrad', (be, a) =>
    be.executeMultipleOutputs('DvLayerNormGrad', [], ins(a, ['dy', 'x', 'gamma', 'mean', 'rstd']), 3),
  );
  reg('DvResidualLayerNorm', (be, a) =>
    be.executeMultipleOutputs(
      'DvResidualLayerNorm',
      [{ name: 'epsilon', type: be.binding.TF_ATTR_FLOAT, value: a.attrs!.epsilon }],
      ins(a, ['x', 'bias', 'residual', 'gamma', 'beta']),
      3,
    ),
  );
  reg('DvResidualLayerNormGrad', (be, a) =>
    be.executeMultipleOutputs(
      'DvResidualLayerNormGrad',
      [],
      ins(a, ['dy', 'x', 'bias', 'residual', 'gamma', 'mean', 'rstd']),
      4,
    ),
  );
  reg('DvSoftmaxGrad', (be, a) => be.executeSingleOutput('DvSoftmaxGrad', [], ins(a, ['dy', 'y'])));
  const attentionAttrs = (be: NodeKernelBackend, a: KernelArgs) => [
    { name: 'heads', type: be.binding.TF_ATTR_INT, value: a.attrs!.heads },
    { name: 'scale', type: be.binding.TF_ATTR_FLOAT, value: a.attrs!.scale },
    { name: 'rope', type: be.binding.TF_ATTR_BOOL, value: a.attrs!.rope },
  ];
  reg('DvAttention', (be, a) =>
    be.executeMultipleOutputs('DvAttention', attentionAttrs(be, a), ins(a, ['qkv', 'mask', 'cos', 'sin']), 2),
  );
  reg('DvAdamW', (be, a) =>
    be.executeMultipleOutputs('DvAdamW', [], ins(a, ['p', 'g', 'm', 'v', 'hyper']), 3),
  );
  reg('DvAttentionGrad', (be, a) =>
    be.executeSingleOutput(
      'DvAttentionGrad',
      attentionAttrs(be, a),
      ins(a, ['dctx', 'qkv', 'mask', 'probs', 'cos', 'sin']),
    ),
  );
  return { ok: true, isa };
}

const run = <T extends Tensor | Tensor[]>(
  name: string,
  inputs: tf.NamedTensorMap,
  attrs?: tf.NamedAttrMap,
): T => tf.engine().runKernel<T>(name, inputs, attrs);

/** The rope inputs, or empty placeholders the kernel ignores. */
function ropeInputs(rope: Rope | undefined): { cos: Tensor; sin: Tensor } {
  return rope ?? { cos: tf.zeros([0]), sin: tf.zeros([0]) };
}

const ops: FusedOps = {
  gelu: (x) => run('DvGelu', { x }),
  geluGrad: (dy, x) => run('DvGeluGrad', { dy, x }),
  biasGelu: (x, bias) => run('DvBiasGelu', { x, bias }),
  biasGeluGrad: (dy, x, bias) => run('DvBiasGeluGrad', { dy, x, bias }) as [Tensor, Tensor],
  layerNorm: (x, gamma, beta, epsilon) =>
    run('DvLayerNorm', { x, gamma, beta }, { epsilon }) as [Tensor, Tensor, Tensor],
  layerNormGrad: (dy, x, gamma, mean, rstd) =>
    run('DvLayerNormGrad', { dy, x, gamma, mean, rstd }) as [Tensor, Tensor, Tensor],
  residualLayerNorm: (x, bias, residual, gamma, beta, epsilon) =>
    run('DvResidualLayerNorm', { x, bias, residual, gamma, beta }, { epsilon }) as [Tensor, Tensor, Tensor],
  residualLayerNormGrad: (dy, x, bias, residual, gamma, mean, rstd) =>
    run('DvResidualLayerNormGrad', { dy, x, bias, residual, gamma, mean, rstd }) as [
      Tensor,
      Tensor,
      Tensor,
      Tensor,
    ],
  softmaxGrad: (dy, y) => run('DvSoftmaxGrad', { dy, y }),
  attention: (qkv, mask, heads, scale, rope) =>
    run('DvAttention', { qkv, mask, ...ropeInputs(rope) }, { heads, scale, rope: !!rope }) as [
      Tensor,
      Tensor,
    ],
  attentionGrad: (dctx, qkv, mask, probs, heads, scale, rope) =>
    run('DvAttentionGrad', { dctx, qkv, mask, probs, ...ropeInputs(rope) }, { heads, scale, rope: !!rope }),
  adamw: (p, g, m, v, hyper) => run('DvAdamW', { p, g, m, v, hyper }) as [Tensor, Tensor, Tensor],
};

/** The fused kernels when they apply (native backend, addon loaded), else undefined. */
export function fusedOps(...operands: Tensor[]): FusedOps | undefined {
  if (operands.some((t) => t.dtype !== 'float32')) return undefined;
  return fusedOpsStatus().loaded ? ops : undefined;
}
