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

  it('1-D parameters updated together give exactly the per-parameter update', () => {
    // Three 1-D parameters (two without decay, one with a decaying name) and a matrix, two steps.
    const names = ['a.bias', 'b.LayerNorm.weight', 'c.scale', 'd.weight'];
    const shapes = [[3], [2], [4], [2, 2]];
    const init = (i: number, s: number[]) =>
      tf.tensor(
        Array.from({ length: s.reduce((x, y) => x * y) }, (_, j) => Math.sin(7 * i + j + 1)),
        s,
      );
    const vars = new Map(names.map((n, i) => [n, tf.variable(init(i, shapes[i]!))]));
    const refs = names.map((_, i) => init(i, shapes[i]!));
    const refSlots = refs.map((r) => ({ m: tf.zerosLike(r), v: tf.zerosLike(r) }));
    const state = createAdamWState();
    for (let t = 1; t <= 2; t++) {
      const grads = names.map((_, i) => tf.mul(init(i + 10 * t, shapes[i]!), 0.5));
      applyAdamW(vars, new Map(names.map((n, i) => [n, grads[i]!])), state, 0.05, hyper);
      for (const [i, n] of names.entries()) {
        const r = adamwUpdate(refs[i]!, grads[i]!, refSlots[i]!, t, 0.05, hyper, decaysByDefault(n));
        refs[i] = r.param;
        refSlots[i] = { m: r.m, v: r.v };
      }
    }
    for (const [i, n] of names.entries()) {
      expect(Array.from(vars.get(n)!.dataSync())).toEqual(Array.from(refs[i]!.dataSync()));
      expect(Array.from(state.slots.get(n)!.v.dataSync())).toEqual(Array.from(refSlots[i]!.v.dataSync()));
      expect(state.slots.get(n)!.m.shape).toEqual(shapes[i]);
    }
    // The decaying 1-D parameter moved differently from an undecayed copy of itself.
    const undecayed = adamwUpdate(
      init(2, [4]),
      tf.mul(init(12, [4]), 0.5),
      { m: tf.zeros([4]), v: tf.zeros([4]) },
      1,
      0.05,
      hyper,
      false,
    );
    const decayed = adamwUpdate(
      init(2, [4]),
      tf.mul(init(12, [4]), 0.5),
      { m: tf.zeros([4]), v: tf.zeros([4]) },
      1,
      0.05,
      hyper,
      true,
    );
    expect(decayed.param.dataSync()[0]).not.toBe(undecayed.param.dataSync()[0]);
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
