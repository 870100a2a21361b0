import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { adamwUpdate, applyAdamW, clipByGlobalNorm, createAdamWState, decaysByDefault } from './adamw.js';

const hyper = { weightDecay: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };

describe('AdamW', async () => {
  await initBackend();

  it('three steps match torch.optim.AdamW (2.13) with a no-decay group for the bias', () => {
    // Reference: torch.optim.AdamW([{w, wd 0.01}, {b, wd 0}], lr=0.1, betas=(0.9, 0.999), eps=1e-8)
    // fed these gradients; the final values were printed by torch in float32.
    const vars = new Map<string, tf.Variable>([
      [
        'dense.weight',
        tf.variable(
          tf.tensor2d([
            [0.5, -1.0],
            [2.0, 0.1],
          ]),
        ),
      ],
      ['dense.bias', tf.variable(tf.tensor1d([0.3, -0.2]))],
    ]);
    const gw = [
      [
        [0.1, -0.2],
        [0.3, 0.0],
      ],
      [
        [0.05, 0.1],
        [-0.3, 0.2],
      ],
      [
        [1.0, -0.5],
        [0.0, 0.01],
      ],
    ];
    const gb = [
      [0.2, -0.1],
      [0.0, 0.3],
      [-0.4, 0.05],
    ];
    const state = createAdamWState();
    for (let i = 0; i < 3; i++)
      applyAdamW(
        vars,
        new Map<string, tf.Tensor>([
          ['dense.weight', tf.tensor2d(gw[i]!)],
          ['dense.bias', tf.tensor1d(gb[i]!)],
        ]),
        state,
        0.1,
        hyper,
      );
    expect(state.step).toBe(3);
    const torchW = [0.23409084975719452, -0.8038729429244995, 1.9035323858261108, -0.03528079390525818];
    const torchB = [0.16699765622615814, -0.19713269174098969];
    for (const [i, x] of vars.get('dense.weight')!.dataSync().entries()) expect(x).toBeCloseTo(torchW[i]!, 6);
    for (const [i, x] of vars.get('dense.bias')!.dataSync().entries()) expect(x).toBeCloseTo(torchB[i]!, 6);
  });

  it('adamwUpdate is pure: inputs untouched, first step moves each weight by about lr', () => {
    const p = tf.tensor1d([1, -1]);
    const slots = { m: tf.zeros([2]), v: tf.zeros([2]) };
    const r = adamwUpdate(p, tf.tensor1d([0.5, -2]), slots, 1, 0.01, { ...hyper, weightDecay: 0 });
    expect(Array.from(p.dataSync())).toEqual([1, -1]);
    expect(Array.from(slots.m.dataSync())).toEqual([0, 0]);
    expect(r.param.dataSync()[0]).toBeCloseTo(0.99, 6);
    expect(r.param.dataSync()[1]).toBeCloseTo(-0.99, 6);
  });

  it('decay skips biases and LayerNorm; clipping bounds the global norm', () => {
    expect(decaysByDefault('encoder.layer.0.attention.self.query.weight')).toBe(true);
    expect(decaysByDefault('encoder.layer.0.output.LayerNorm.weight')).toBe(false);
    expect(decaysByDefault('encoder.layer.0.attn_ln.weight')).toBe(false);
    expect(decaysByDefault('pooler.dense.bias')).toBe(false);
    const g = new Map([
      ['a', tf.tensor1d([3, 0])],
      ['b', tf.tensor1d([0, 4])],
    ]);
    const c = clipByGlobalNorm(g, 1);
    expect(c.norm).toBeCloseTo(5, 6);
    expect(c.grads.get('a')!.dataSync()[0]).toBeCloseTo(0.6, 5);
    expect(c.grads.get('b')!.dataSync()[1]).toBeCloseTo(0.8, 5);
    expect(clipByGlobalNorm(g, 10).grads.get('b')!.dataSync()[1]).toBe(4);
  });
});
