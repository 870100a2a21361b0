import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { adamwUpdate } from '../optim/adamw.js';
import { fusedOps, fusedOpsStatus } from './fused-ops.js';
import { attentionMaskBias, linearAct, packedAttention } from './tf-layers.js';

/** Runs f with the fused kernels switched off (DV_FUSED_OPS=off): the tfjs compositions. */
function composed<T>(f: () => T): T {
  process.env.DV_FUSED_OPS = 'off';
  try {
    return f();
  } finally {
    delete process.env.DV_FUSED_OPS;
  }
}

// The fused kernels (native/*.cc) against the tfjs compositions of the same formulas,
// on values that reach both GELU tails, LayerNorm rows of constants (variance 0) and a softmax
// with masked (-1e9) positions. CI builds them at set-up and must load them.
const mustLoad = process.env.CI === 'true' || process.env.DV_REQUIRE_NATIVE_TF === '1';

function maxDiff(a: tf.Tensor, b: tf.Tensor): number {
  return tf.tidy(() => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]!);
}

describe('fused TensorFlow kernels', async () => {
  const backend = await initBackend();
  const status = fusedOpsStatus();
  it('load on the native backend (required in CI)', () => {
    if (mustLoad) expect(status.loaded, status.why).toBe(true);
    else if (!status.loaded) console.warn(`fused kernels not loaded here: ${status.why}`);
    if (backend.tfjsBackend !== 'tensorflow') expect(status.loaded).toBe(false);
  });

  it.skipIf(!status.loaded)(
    'say which instruction-set copy runs (DV_FUSED_ISA forces a narrower one)',
    () => {
      // The same tests run each copy: DV_FUSED_ISA=avx2 / base with this file (see README).
      expect(['avx512', 'avx2', 'base']).toContain(status.isa);
      const forced = process.env.DV_FUSED_ISA;
      if (forced === 'base') expect(status.isa).toBe('base');
      if (forced === 'avx2') expect(['avx2', 'base']).toContain(status.isa);
    },
  );

  it.skipIf(!status.loaded)('GELU and its gradient match the composition', () => {
    const ops = fusedOps()!;
    tf.tidy(() => {
      const x = tf.concat([
        tf.linspace(-12, 12, 4001),
        tf.randomNormal([3, 999], 0, 3, 'float32', 7).flatten(),
      ]);
      const gelu = (t: tf.Tensor) => tf.mul(t, tf.mul(tf.add(tf.erf(tf.mul(t, Math.SQRT1_2)), 1), 0.5));
      expect(maxDiff(ops.gelu(x), gelu(x))).toBeLessThan(2e-6);
      const dy = tf.randomNormal(x.shape, 0, 1, 'float32', 8);
      const ref = tf.grad(gelu)(x, dy);
      expect(maxDiff(ops.geluGrad(dy, x), ref)).toBeLessThan(2e-6);
      // Far tails: gelu(-12) = 0 (no NaN from the tail formula), gelu(12) = 12.
      const tails = ops.gelu(tf.tensor1d([-12, -50, 12, 50])).arraySync() as number[];
      expect(tails.map((v) => Math.abs(v) < 1e-20)).toEqual([true, true, false, false]);
      expect(tails.slice(2)).toEqual([12, 50]);
    });
  });

  it.skipIf(!status.loaded)('linear + bias + GELU and its gradients match the composition', () => {
    tf.tidy(() => {
      const x = tf.randomNormal([29, 13], 0, 1, 'float32', 16);
      const w = tf.randomNormal([19, 13], 0, 0.5, 'float32', 17);
      const b = tf.randomNormal([19], 0, 1, 'float32', 18);
      const dy = tf.randomNormal([29, 19], 0, 1, 'float32', 19);
      const f = (xi: tf.Tensor, wi: tf.Tensor, bi: tf.Tensor) => linearAct(xi, wi, bi, 'gelu');
      const y = f(x, w, b);
      const grads = tf.grads(f)([x, w, b], dy);
      const [yRef, ...refs] = composed(() => [f(x, w, b), ...tf.grads(f)([x, w, b], dy)]);
      expect(maxDiff(y, yRef!)).toBeLessThan(2e-6);
      for (const [i, g] of grads.entries()) expect(maxDiff(g, refs[i]!), `input ${i}`).toBeLessThan(1e-5);
    });
  });

  it.skipIf(!status.loaded)('LayerNorm, its statistics and its gradient match the composition', () => {
    const ops = fusedOps()!;
    tf.tidy(() => {
      const eps = 1e-12;
      const x = tf.concat([tf.randomNormal([37, 48], 2, 3, 'float32', 1), tf.fill([3, 48], 0.5)]);
      const gamma = tf.randomNormal([48], 1, 0.2, 'float32', 2);
      const beta = tf.randomNormal([48], 0, 0.2, 'float32', 3);
      const ln = (t: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => {
        const m = tf.moments(t, -1, true);
        return tf.add(tf.mul(tf.div(tf.sub(t, m.mean), tf.sqrt(tf.add(m.variance, eps))), g), b);
      };
      const [y, mean, rstd] = ops.layerNorm(x, gamma, beta, eps);
      expect(maxDiff(y, ln(x, gamma, beta))).toBeLessThan(1e-5);
      expect(mean.shape).toEqual([40]);
      expect(maxDiff(mean, tf.mean(x, -1))).toBeLessThan(1e-5);
      const rstdRef = tf.rsqrt(tf.add(tf.moments(x, -1).variance, eps));
      expect(maxDiff(tf.div(rstd, rstdRef), tf.onesLike(rstd))).toBeLessThan(1e-5);
      // Rows of constants: xhat = 0, so y = beta exactly and nothing is NaN.
      expect(maxDiff(tf.slice(y, [37, 0], [3, 48]), tf.tile(beta.reshape([1, 48]), [3, 1]))).toBe(0);
      const dy = tf.randomNormal(x.shape, 0, 1, 'float32', 4);
      const finite = tf.slice(x, [0, 0], [37, 48]);
      const [dxRef, dgRef, dbRef] = tf.grads((t: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => ln(t, g, b))(
        [finite, gamma, beta],
        tf.slice(dy, [0, 0], [37, 48]),
      );
      const [, m2, r2] = ops.layerNorm(finite, gamma, beta, eps);
      const [dx, dg, db] = ops.layerNormGrad(tf.slice(dy, [0, 0], [37, 48]), finite, gamma, m2, r2);
      const rel = (a: tf.Tensor, b: tf.Tensor) => maxDiff(a, b) / tf.max(tf.abs(b)).dataSync()[0]!;
      expect(rel(dx, dxRef!)).toBeLessThan(1e-5);
      expect(rel(dg, dgRef!)).toBeLessThan(1e-5);
      expect(rel(db, dbRef!)).toBeLessThan(1e-5);
    });
  });

  it.skipIf(!status.loaded)('softmax gradient matches autodiff, masked positions included', () => {
    const ops = fusedOps()!;
    tf.tidy(() => {
      const logits = tf.add(
        tf.randomNormal([2, 3, 5, 17], 0, 2, 'float32', 5),
        tf.mul(tf.cast(tf.less(tf.range(0, 17), 4), 'float32'), -1e9),
      );
      const dy = tf.randomNormal(logits.shape, 0, 1, 'float32', 6);
      const ref = tf.grad((t: tf.Tensor) => tf.softmax(t))(logits, dy);
      expect(maxDiff(ops.softmaxGrad(dy, tf.softmax(logits)), ref)).toBeLessThan(1e-6);
    });
  });

  it.skipIf(!status.loaded)(
    'packed attention and its gradient match the composition (odd sizes, padding, rope)',
    () => {
      // Odd sizes (remainder loops), and one whose products fill the AVX-512 / AVX2 blocks.
      for (const [b, t, heads, d] of [
        [3, 37, 3, 20],
        [2, 64, 2, 32],
      ] as const)
        tf.tidy(() => {
          const qkv = tf.randomNormal([b * t, 3 * heads * d], 0, 1, 'float32', 9);
          const mask = tf.tensor2d(
            [
              Array(t).fill(1),
              [...Array(t - 7).fill(1), ...Array(7).fill(0)],
              [1, 1, ...Array(t - 2).fill(0)],
            ].slice(0, b),
            undefined,
            'int32',
          );
          const bias = attentionMaskBias(mask);
          const dctx = tf.randomNormal([b * t, heads * d], 0, 1, 'float32', 10);
          const angles = tf.randomUniform([t, d], 0, 6, 'float32', 15);
          for (const rope of [undefined, { cos: tf.cos(angles), sin: tf.sin(angles) }]) {
            const f = (x: tf.Tensor) => packedAttention(x, bias, b, heads, rope);
            const y = f(qkv);
            const g = tf.grad(f)(qkv, dctx);
            const [yRef, gRef] = composed(() => [f(qkv), tf.grad(f)(qkv, dctx)]);
            expect(y.shape).toEqual([b * t, heads * d]);
            expect(maxDiff(y, yRef!), `rope ${!!rope}`).toBeLessThan(2e-6);
            expect(maxDiff(g, gRef!) / tf.max(tf.abs(gRef!)).dataSync()[0]!, `rope ${!!rope}`).toBeLessThan(
              1e-5,
            );
          }
        });
    },
  );

  it.skipIf(!status.loaded)('AdamW step matches the composition, with and without decay', () => {
    tf.tidy(() => {
      const p = tf.randomNormal([33, 17], 0, 1, 'float32', 11);
      const g = tf.randomNormal([33, 17], 0, 1, 'float32', 12);
      const slots = {
        m: tf.randomNormal([33, 17], 0, 0.1, 'float32', 13),
        v: tf.square(tf.randomNormal([33, 17], 0, 0.1, 'float32', 14)),
      };
      const hyper = { weightDecay: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
      for (const decay of [true, false]) {
        const fused = adamwUpdate(p, g, slots, 3, 1e-3, hyper, decay);
        const ref = composed(() => adamwUpdate(p, g, slots, 3, 1e-3, hyper, decay));
        expect(maxDiff(fused.param, ref.param)).toBeLessThan(1e-6);
        expect(maxDiff(fused.m, ref.m)).toBeLessThan(1e-7);
        expect(maxDiff(fused.v, ref.v)).toBeLessThan(1e-8);
      }
    });
  });

  it.skipIf(!status.loaded)('rejects inconsistent shapes with a TensorFlow error', () => {
    const ops = fusedOps()!;
    expect(() => ops.geluGrad(tf.zeros([3]), tf.zeros([4]))).toThrow(/DvGeluGrad: dy and x differ/);
  });
});
