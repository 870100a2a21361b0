import { describe, expect, it } from 'vitest';
import { incompleteBeta, meanCi, pairedDiffCi, tCdf, tQuantile, welchDiffCi } from './t-interval.js';

describe('Student t', () => {
  // Two-sided 95% critical values from standard t tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
  it.each([
    [1, 12.706],
    [2, 4.303],
    [4, 2.776],
    [10, 2.228],
    [29, 2.045],
    [100, 1.984],
  ])('t(0.975, df=%i) = %f', (df, t) => {
    expect(tQuantile(0.975, df)).toBeCloseTo(t, 3);
    expect(tCdf(t, df)).toBeCloseTo(0.975, 3);
  });
  it('is symmetric and tends to the normal', () => {
    expect(tQuantile(0.025, 7)).toBeCloseTo(-tQuantile(0.975, 7), 10);
    expect(tQuantile(0.975, 1e6)).toBeCloseTo(1.959964, 4);
    expect(tQuantile(0.5, 3)).toBe(0);
  });
  it('incomplete beta matches closed forms', () => {
    // I_x(1, 1) = x; I_x(2, 1) = x^2; I_x(0.5, 0.5) = 2/pi * asin(sqrt(x))
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(incompleteBeta(0.3, 2, 1)).toBeCloseTo(0.09, 12);
    expect(incompleteBeta(0.3, 0.5, 0.5)).toBeCloseTo((2 / Math.PI) * Math.asin(Math.sqrt(0.3)), 10);
  });
});

describe('intervals', () => {
  it('meanCi: hand-computed 3-sample interval', () => {
    // x = 1, 2, 3: mean 2, sd 1, half-width 4.302653 / sqrt(3) = 2.484138
    const i = meanCi([1, 2, 3]);
    expect(i.mean).toBe(2);
    expect(i.sd).toBeCloseTo(1, 12);
    expect(i.lo).toBeCloseTo(2 - 2.484138, 5);
    expect(i.hi).toBeCloseTo(2 + 2.484138, 5);
  });
  it('is undefined (NaN), not invented, for fewer than two values', () => {
    const i = meanCi([5]);
    expect(i.mean).toBe(5);
    expect(Number.isNaN(i.lo) && Number.isNaN(i.hi)).toBe(true);
    expect(Number.isNaN(meanCi([]).mean)).toBe(true);
  });
  it('pairedDiffCi uses only topics both sides have', () => {
    const i = pairedDiffCi({ a: 3, b: 5, c: 4, z: 100 }, { a: 1, b: 2, c: 2, y: -100 });
    // diffs 2, 3, 2
    expect(i.n).toBe(3);
    expect(i.mean).toBeCloseTo(7 / 3, 12);
  });
  it('welchDiffCi: hand-computed example', () => {
    // a = 1,2,3 (var 1), b = 2,4,6 (var 4): d = -2, se = sqrt(1/3 + 4/3) = 1.290994,
    // df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2) = 2.941176, t(0.975, 2.941) = 3.2150
    const i = welchDiffCi([1, 2, 3], [2, 4, 6]);
    expect(i.mean).toBe(-2);
    expect((i.hi - i.lo) / 2).toBeCloseTo(3.215 * 1.290994, 2);
  });
});
