/**
 * AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization", arXiv 1711.05101), with
 * PyTorch's `torch.optim.AdamW` update order, as a pure function of tensors:
 *
 *     p <- p - lr * wd * p                         (decoupled decay, skipped where decay = false)
 *     m <- b1 m + (1 - b1) g ;  v <- b2 v + (1 - b2) g^2
 *     p <- p - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)      (t = 1, 2, ...)
 *
 * On the native backend with the fused kernels (internal/fused-ops.ts) the step is one pass
 * over the parameter, with the same arithmetic. `adamwUpdate` returns new tensors and leaves
 * its inputs alone; `applyAdamW` runs it over a set of named variables and assigns the results
 * (the training loop's one mutation).
 * `clipByGlobalNorm` scales gradients so their joint L2 norm is at most `maxNorm`
 * (torch.nn.utils.clip_grad_norm_). Decay is skipped for biases and LayerNorm parameters by
 * default (`decaysByDefault`), as BERT and the Hugging Face Trainer do.
 */
import type { OptimizerConfig } from '@dv/core';
import type { Tensor, Variable } from '@tensorflow/tfjs-core';
import { tf } from '../backend/tf.js';
import { fusedOps } from '../internal/fused-ops.js';

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
  const { beta1: b1, beta2: b2, epsilon, weightDecay } = hyper;
  const fused = fusedOps(param, grad, slots.m, slots.v);
  if (fused) {
    const decayFactor = decay && weightDecay > 0 ? 1 - lr * weightDecay : 1;
    const [p, m, v] = tf.tidy(() =>
      fused.adamw(
        param,
        grad,
        slots.m,
        slots.v,
        tf.tensor1d([
          decayFactor,
          b1,
          1 - b1,
          b2,
          1 - b2,
          1 / Math.sqrt(1 - b2 ** t),
          epsilon,
          lr / (1 - b1 ** t),
        ]),
      ),
    );
    return { param: p, m, v };
  }
  return tf.tidy(() => {
    // torch's single-tensor AdamW: denom = sqrt(v) / sqrt(1 - b2^t) + eps,
    // p <- p - (lr / (1 - b1^t)) m / denom; bias corrections folded into scalars (fewer
    // passes over the parameter than dividing m and v by them).
    const decayed = decay && weightDecay > 0 ? tf.mul(param, 1 - lr * weightDecay) : param;
    const m = tf.add(tf.mul(slots.m, b1), tf.mul(grad, 1 - b1));
    const v = tf.add(tf.mul(slots.v, b2), tf.mul(tf.square(grad), 1 - b2));
    const denom = tf.add(tf.mul(tf.sqrt(v), 1 / Math.sqrt(1 - b2 ** t)), epsilon);
    const next = tf.sub(decayed, tf.mul(tf.div(m, denom), lr / (1 - b1 ** t)));
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
  // The many small 1-D parameters (biases, LayerNorm) are updated together, as one
  // concatenated vector per decay setting: the same arithmetic in ~20 ops instead of ~14 per
  // parameter, whose fixed per-op cost dominates at these sizes. Slots stay per name.
  const groups = new Map<boolean, string[]>();
  for (const [name, g] of grads) {
    const p = variables.get(name);
    if (!p) throw new Error(`gradient for unknown parameter ${name}`);
    if (p.rank === 1 && g.rank === 1) {
      const decay = decays(name);
      groups.set(decay, [...(groups.get(decay) ?? []), name]);
      continue;
    }
    updateOne(name, p, g);
  }
  for (const [decay, names] of groups) {
    if (names.length === 1) {
      updateOne(names[0]!, variables.get(names[0]!)!, grads.get(names[0]!)!);
      continue;
    }
    const sizes = names.map((n) => variables.get(n)!.size);
    const olds = names.map((n) => state.slots.get(n));
    const r = tf.tidy(() => {
      const cat = (ts: Tensor[]) => tf.concat(ts, 0);
      const zeros = (i: number) => tf.zeros([sizes[i]!]);
      const out = adamwUpdate(
        cat(names.map((n) => variables.get(n)!)),
        cat(names.map((n) => grads.get(n)!)),
        { m: cat(olds.map((o, i) => o?.m ?? zeros(i))), v: cat(olds.map((o, i) => o?.v ?? zeros(i))) },
        state.step,
        lr,
        hyper,
        decay,
      );
      return { param: tf.split(out.param, sizes), m: tf.split(out.m, sizes), v: tf.split(out.v, sizes) };
    });
    names.forEach((n, i) => {
      variables.get(n)!.assign(r.param[i]!);
      r.param[i]!.dispose();
      const old = olds[i];
      if (old) tf.dispose([old.m, old.v]);
      state.slots.set(n, { m: r.m[i]!, v: r.v[i]! });
    });
  }

  function updateOne(name: string, p: Variable, g: Tensor): void {
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
