/**
 * AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization", arXiv 1711.05101), with
 * PyTorch's `torch.optim.AdamW` update order, as a pure function of tensors:
 *
 *     p <- p - lr * wd * p                         (decoupled decay, skipped where decay = false)
 *     m <- b1 m + (1 - b1) g ;  v <- b2 v + (1 - b2) g^2
 *     p <- p - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)      (t = 1, 2, ...)
 *
 * `adamwUpdate` returns new tensors and leaves its inputs alone; `applyAdamW` runs it over a
 * set of named variables and assigns the results (the training loop's one mutation).
 * `clipByGlobalNorm` scales gradients so their joint L2 norm is at most `maxNorm`
 * (torch.nn.utils.clip_grad_norm_). Decay is skipped for biases and LayerNorm parameters by
 * default (`decaysByDefault`), as BERT and the Hugging Face Trainer do.
 */
import type { OptimizerConfig } from '@dv/core';
import type { Tensor, Variable } from '@tensorflow/tfjs';
import { tf } from '../backend/tf.js';

export type AdamWHyper = Pick<OptimizerConfig, 'weightDecay' | 'beta1' | 'beta2' | 'epsilon'>;

export interface AdamWSlots {
  m: Tensor;
  v: Tensor;
}

/** One step for one parameter; `t` is the 1-based step number after this update. */
export function adamwUpdate(
  param: Tensor,
  grad: Tensor,
  slots: AdamWSlots,
  t: number,
  lr: number,
  hyper: AdamWHyper,
  decay = true,
): { param: Tensor } & AdamWSlots {
  return tf.tidy(() => {
    const { beta1: b1, beta2: b2, epsilon, weightDecay } = hyper;
    const decayed = decay && weightDecay > 0 ? tf.mul(param, 1 - lr * weightDecay) : param;
    const m = tf.add(tf.mul(slots.m, b1), tf.mul(grad, 1 - b1));
    const v = tf.add(tf.mul(slots.v, b2), tf.mul(tf.square(grad), 1 - b2));
    const mHat = tf.div(m, 1 - b1 ** t);
    const vHat = tf.div(v, 1 - b2 ** t);
    const next = tf.sub(decayed, tf.mul(tf.div(mHat, tf.add(tf.sqrt(vHat), epsilon)), lr));
    return { param: next, m, v };
  });
}

/** Biases and LayerNorm weights (HF names) are not decayed. */
export function decaysByDefault(name: string): boolean {
  return !(name.endsWith('.bias') || /LayerNorm|_ln\./.test(name));
}

/** Optimiser state: the step count and the moment slots per parameter name. */
export interface AdamWState {
  step: number;
  slots: Map<string, AdamWSlots>;
}

export function createAdamWState(): AdamWState {
  return { step: 0, slots: new Map() };
}

/**
 * Applies one AdamW step to `variables` (name -> variable) with gradients by the same names;
 * parameters without a gradient are left alone. Mutates the variables and `state`.
 */
export function applyAdamW(
  variables: ReadonlyMap<string, Variable>,
  grads: ReadonlyMap<string, Tensor>,
  state: AdamWState,
  lr: number,
  hyper: AdamWHyper,
  decays: (name: string) => boolean = decaysByDefault,
): void {
  state.step += 1;
  for (const [name, g] of grads) {
    const p = variables.get(name);
    if (!p) throw new Error(`gradient for unknown parameter ${name}`);
    const old = state.slots.get(name) ?? { m: tf.zerosLike(p), v: tf.zerosLike(p) };
    const r = adamwUpdate(p, g, old, state.step, lr, hyper, decays(name));
    p.assign(r.param);
    r.param.dispose();
    old.m.dispose();
    old.v.dispose();
    state.slots.set(name, { m: r.m, v: r.v });
  }
}

/** Scales gradients so that their global L2 norm is at most maxNorm; returns the norm before. */
export function clipByGlobalNorm(
  grads: ReadonlyMap<string, Tensor>,
  maxNorm: number,
): { grads: Map<string, Tensor>; norm: number } {
  const norm = tf.tidy(() =>
    Math.sqrt(tf.addN([...grads.values()].map((g) => tf.sum(tf.square(g)))).dataSync()[0]!),
  );
  const factor = Math.min(1, maxNorm / (norm + 1e-6));
  const out = new Map<string, Tensor>();
  for (const [k, g] of grads) out.set(k, factor < 1 ? tf.mul(g, factor) : g.clone());
  return { grads: out, norm };
}
