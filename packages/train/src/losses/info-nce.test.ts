import { describe, expect, it } from 'vitest';
import { initBackend } from '../backend/init-backend.js';
import { tf } from '../backend/tf.js';
import { infoNceLoss } from './info-nce.js';

// Reference computed cell by cell in float64, straight from the formula in info-nce.ts.
function reference(q: number[][], d: number[][], r: number[][], tau: number): number {
  let total = 0;
  let count = 0;
  q.forEach((qi, i) => {
    const s = d.map((dj) => qi.reduce((a, x, k) => a + x * dj[k]!, 0) / tau);
    r[i]!.forEach((rel, j) => {
      if (rel !== 1) return;
      const negs = s.filter((_, k) => r[i]![k] === -1).map(Math.exp);
      total += -Math.log(Math.exp(s[j]!) / (Math.exp(s[j]!) + negs.reduce((a, b) => a + b, 0)));
      count += 1;
    });
  });
  return count ? total / count : 0;
}

describe('infoNceLoss', async () => {
  await initBackend();
  const q = [
    [0.6, 0.8],
    [1, 0],
    [0, 1],
  ];
  const d = [
    [0.8, 0.6],
    [0.6, -0.8],
    [0, 1],
    [-1, 0],
  ];
  const loss = (r: number[][], tau: number) =>
    infoNceLoss(tf.tensor2d(q), tf.tensor2d(d), tf.tensor2d(r), { temperature: tau }).dataSync()[0]!;

  it('matches the formula on a hand-made batch with positives, negatives and ignored cells', () => {
    const r = [
      [1, -1, 0, -1],
      [-1, 1, 1, -1], // two positives: each contrasted with the negatives only
      [0, 0, 1, 0], // no negatives: log(1) = 0
    ];
    expect(loss(r, 0.5)).toBeCloseTo(reference(q, d, r, 0.5), 5);
    // By hand: row 0 log(1 + e^-2.48 + e^-3.12) = 0.12036; row 1 log(1 + e^0.4 + e^-3.2) = 0.92925
    // and log(1 + e^1.6 + e^-2) = 1.80638; row 2 0; mean over 4 positives = 0.71400.
    expect(loss(r, 0.5)).toBeCloseTo(0.714, 4);
    // A sharper temperature punishes the same mistakes more.
    expect(loss(r, 0.1)).toBeGreaterThan(loss(r, 0.5));
  });

  it('with one positive per row and all other cells negative it is softmax cross-entropy', () => {
    const r = [
      [1, -1, -1, -1],
      [-1, 1, -1, -1],
      [-1, -1, 1, -1],
    ];
    const tau = 0.2;
    let ce = 0;
    q.forEach((qi, i) => {
      const s = d.map((dj) => (qi[0]! * dj[0]! + qi[1]! * dj[1]!) / tau);
      const lse = Math.log(s.reduce((a, x) => a + Math.exp(x), 0));
      ce += lse - s[i]!;
    });
    expect(loss(r, tau)).toBeCloseTo(ce / 3, 4);
  });

  it('ignored cells do not matter; no positives gives 0 and a finite gradient at tau 0.02', () => {
    const base = [
      [1, -1, 0, 0],
      [0, 1, 0, -1],
      [0, 0, 0, 0],
    ];
    const moved = [d[0]!, d[1]!, [0.3, 0.1], d[3]!];
    const a = infoNceLoss(tf.tensor2d(q), tf.tensor2d(d), tf.tensor2d(base), { temperature: 0.02 });
    const b = infoNceLoss(tf.tensor2d(q), tf.tensor2d(moved), tf.tensor2d(base), { temperature: 0.02 });
    expect(a.dataSync()[0]).toBeCloseTo(b.dataSync()[0]!, 6);
    const zero = tf.zeros([3, 4]);
    expect(infoNceLoss(tf.tensor2d(q), tf.tensor2d(d), zero, { temperature: 0.02 }).dataSync()[0]).toBe(0);
    const g = tf.grad((x: tf.Tensor) =>
      infoNceLoss(x, tf.tensor2d(d), tf.tensor2d(base), { temperature: 0.02 }),
    )(tf.tensor2d(q));
    expect(g.dataSync().every(Number.isFinite)).toBe(true);
    expect(Math.max(...g.dataSync().map(Math.abs))).toBeGreaterThan(0);
  });
});
