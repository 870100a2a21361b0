import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { createMiniEncoder } from '../encoders/mini-backbones.js';
import { fusedOpsStatus } from './fused-ops.js';
import { denseResidualLayerNorm, residualLayerNorm } from './tf-layers.js';

/** Runs f with the fused kernels switched off (DV_FUSED_OPS=off): the unfused tfjs composition. */
function composed<T>(f: () => T): T {
  process.env.DV_FUSED_OPS = 'off';
  try {
    return f();
  } finally {
    delete process.env.DV_FUSED_OPS;
  }
}

function maxDiff(a: tf.Tensor, b: tf.Tensor): number {
  return tf.tidy(() => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]!);
}

// The fused residual + bias + LayerNorm kernel (native/kernels/residual_layer_norm.inc) against
// the unfused tfjs composition layerNorm(biasAdd(x, b) + residual): values and every gradient.
describe('residual + bias + LayerNorm', async () => {
  await initBackend();
  const status = fusedOpsStatus();
  // Rows of 13 (a lane tail), 128 (config A) and 40 with constant rows (variance 0: rstd = 1/sqrt(eps)).
  const cases = [
    { rows: 37, h: 13, constantRows: false },
    { rows: 64, h: 128, constantRows: false },
    { rows: 9, h: 40, constantRows: true },
  ];

  for (const { rows, h, constantRows } of cases)
    for (const withBias of [true, false])
      it(`matches the composition, values and gradients ([${rows}, ${h}], ${withBias ? 'bias' : 'no bias'}${constantRows ? ', constant rows' : ''})`, () => {
        tf.tidy(() => {
          let x: tf.Tensor = tf.randomNormal([rows, h], 0.5, 2, 'float32', 1);
          let r: tf.Tensor = tf.randomNormal([rows, h], -0.3, 1, 'float32', 2);
          let b = tf.randomNormal([h], 0, 1, 'float32', 4);
          if (constantRows) {
            // Dyadic constants: every sum is exact, so z - mean is exactly 0 on both paths and y = beta.
            x = tf.mul(tf.ones([rows, h]), tf.tensor2d([-2, -0.5, 0, 0.25, 1, 1.5, 3, 4, -1], [rows, 1]));
            r = tf.zerosLike(x);
            b = tf.zeros([h]);
          }
          const gamma = tf.randomNormal([h], 1, 0.2, 'float32', 5);
          const beta = tf.randomNormal([h], 0, 0.2, 'float32', 6);
          const dy = tf.randomNormal([rows, h], 0, 1, 'float32', 7);
          const eps = constantRows ? 1e-5 : 1e-12;
          // Inputs x, [bias,] residual, gamma, beta.
          const f = (...a: tf.Tensor[]) =>
            withBias
              ? residualLayerNorm(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!, eps)
              : residualLayerNorm(a[0]!, undefined, a[1]!, a[2]!, a[3]!, eps);
          const args = withBias ? [x, b, r, gamma, beta] : [x, r, gamma, beta];
          const run = () => {
            const { value, grads } = tf.valueAndGrads(f)(args, dy);
            return [value, ...grads];
          };
          const mine = run();
          const ref = composed(run);
          expect(maxDiff(mine[0]!, ref[0]!), 'y').toBeLessThan(2e-5);
          const names = withBias
            ? ['dx', 'dbias', 'dresidual', 'dgamma', 'dbeta']
            : ['dx', 'dresidual', 'dgamma', 'dbeta'];
          for (let i = 1; i < mine.length; i++) {
            const scale = tf.max(tf.abs(ref[i]!)).dataSync()[0]! + 1;
            expect(maxDiff(mine[i]!, ref[i]!) / scale, names[i - 1]).toBeLessThan(2e-5);
          }
          if (constantRows) expect(maxDiff(mine[0]!, tf.mul(tf.ones([rows, h]), beta))).toBe(0);
          // x and residual enter as a sum: one gradient.
          expect(maxDiff(mine[1]!, mine[withBias ? 3 : 2]!)).toBe(0);
        });
      });

  it('with dropout, the bias stays before the mask (dense + dropout + residual + LayerNorm = the composition)', () => {
    tf.tidy(() => {
      const x = tf.randomNormal([24, 16], 0, 1, 'float32', 11);
      const w = tf.randomNormal([8, 16], 0, 0.3, 'float32', 12);
      const b = tf.randomNormal([8], 0, 1, 'float32', 13);
      const r = tf.randomNormal([24, 8], 0, 1, 'float32', 14);
      const gamma = tf.randomNormal([8], 1, 0.2, 'float32', 15);
      const beta = tf.randomNormal([8], 0, 0.2, 'float32', 16);
      const dy = tf.randomNormal([24, 8], 0, 1, 'float32', 17);
      const dropout = (t: tf.Tensor) => tf.dropout(t, 0.25, undefined, 42);
      const f = (xi: tf.Tensor, wi: tf.Tensor, bi: tf.Tensor, ri: tf.Tensor) =>
        denseResidualLayerNorm(xi, wi, bi, ri, gamma, beta, 1e-12, dropout);
      // The unfused reference written out: layerNorm(dropout(x W^T + b) + r).
      const reference = (xi: tf.Tensor, wi: tf.Tensor, bi: tf.Tensor, ri: tf.Tensor) => {
        const z = tf.add(dropout(tf.add(tf.matMul(xi, wi, false, true), bi)), ri);
        const m = tf.moments(z, -1, true);
        return tf.add(tf.mul(tf.div(tf.sub(z, m.mean), tf.sqrt(tf.add(m.variance, 1e-12))), gamma), beta);
      };
      const args = [x, w, b, r];
      const mine = tf.valueAndGrads((...a: tf.Tensor[]) => f(a[0]!, a[1]!, a[2]!, a[3]!))(args, dy);
      const ref = tf.valueAndGrads((...a: tf.Tensor[]) => reference(a[0]!, a[1]!, a[2]!, a[3]!))(args, dy);
      expect(maxDiff(mine.value, ref.value)).toBeLessThan(2e-5);
      for (const [i, g] of mine.grads.entries())
        expect(maxDiff(g, ref.grads[i]!), `input ${i}`).toBeLessThan(1e-4);
    });
  });

  it.skipIf(!status.loaded)(
    'runs in the encoder: one fused op per post-LN sub-layer, same output as unfused',
    async () => {
      const encoder = createMiniEncoder('mini-bert', {
        vocabSize: 50,
        seed: 3,
        overrides: { num_hidden_layers: 2, hidden_size: 32, num_attention_heads: 2, intermediate_size: 64 },
      });
      try {
        const inputs = {
          inputIds: tf.tensor2d(
            [
              [2, 7, 9, 11, 3],
              [2, 5, 8, 3, 0],
            ],
            undefined,
            'int32',
          ),
          attentionMask: tf.tensor2d(
            [
              [1, 1, 1, 1, 1],
              [1, 1, 1, 1, 0],
            ],
            undefined,
            'int32',
          ),
        };
        const vars = encoder.trainableVariables();
        // A random projection of the output (a sum of squares of LayerNorm rows is constant).
        const probe = tf.randomNormal([2, 5, 32], 0, 1, 'float32', 9);
        const loss = () => tf.sum(tf.mul(encoder.forward(inputs), probe)) as tf.Scalar;
        const profile = await tf.profile(() => tf.variableGrads(loss, vars).value);
        const count = (k: string) => profile.kernels.filter((n) => n.name === k).length;
        expect(profile.kernelNames).toContain('DvResidualLayerNorm');
        expect(profile.kernelNames).toContain('DvResidualLayerNormGrad');
        expect(count('DvResidualLayerNorm')).toBe(2 * 2); // 2 layers x (attention output, FFN output)
        const fused = tf.tidy(() => tf.variableGrads(loss, vars));
        const ref = composed(() => tf.tidy(() => tf.variableGrads(loss, vars)));
        const [lf, lr] = [fused.value.dataSync()[0]!, ref.value.dataSync()[0]!];
        expect(Math.abs(lf - lr)).toBeLessThan(1e-4 * (1 + Math.abs(lr)));
        for (const v of vars) {
          const g = fused.grads[v.name]!;
          const scale = tf.max(tf.abs(ref.grads[v.name]!)).dataSync()[0]! + 1e-3;
          expect(maxDiff(g, ref.grads[v.name]!) / scale).toBeLessThan(1e-3);
        }
        tf.dispose([fused.value, ref.value, ...Object.values(fused.grads), ...Object.values(ref.grads)]);
      } finally {
        encoder.dispose();
      }
    },
  );
});
