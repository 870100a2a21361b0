/** Magnitude checks and seeds needed (issue 26), with values checked by hand against t tables. */
import { describe, expect, it } from 'vitest';
import { magnitudeCheck } from './magnitude.js';
import { pooledSd, seedsNeeded } from './seeds-needed.js';

const iv = (lo: number, hi: number, label: string) => ({ mean: (lo + hi) / 2, lo, hi, label });
// the paper's Ins-DV - Ins-orig Score: 19.73 vs 21.33, -7.5% relative
const A_LITTLE = { paperRelative: ((19.73 - 21.33) / 21.33) * 100, factor: 2, wording: 'a little' };

describe('magnitudeCheck', () => {
  it('a cost within twice the paper relative size is "a little"', () => {
    // -3 points on a reference of 50 = -6%
    const c = magnitudeCheck([iv(-5, -1, 'topics'), iv(-6, -0.5, 'seeds')], 50, A_LITTLE);
    expect(c.result).toBe('within');
    expect(c.band[0]).toBeCloseTo(-15.0, 1);
    expect(c.band[1]).toBe(0);
    expect(c.relative[0]!.lo).toBeCloseTo(-10, 6);
  });
  it('the committed mini cost (-13.2 Score on ~57) is beyond "a little"', () => {
    const c = magnitudeCheck([iv(-16.5, -10, 'topics'), iv(-20, -9.5, 'seeds')], 57.3, A_LITTLE);
    expect(c.result).toBe('beyond');
    expect(c.reason).toMatch(/3\.\dx the paper's size/);
  });
  it('straddling a band edge, or an undefined interval, is undecided', () => {
    expect(magnitudeCheck([iv(-10, -2, 'topics')], 50, A_LITTLE).result).toBe('undecided');
    expect(magnitudeCheck([iv(Number.NaN, Number.NaN, 'seeds')], 50, A_LITTLE).result).toBe('undecided');
    expect(magnitudeCheck([iv(-1, -0.5, 'seeds')], 0, A_LITTLE).result).toBe('undecided');
  });
  it('an up claim has the band on the positive side', () => {
    const gain = { paperRelative: 45, factor: 2, wording: 'about +45%' };
    expect(magnitudeCheck([iv(1, 2, 'seeds')], 5, gain).result).toBe('within'); // +20..40%
    expect(magnitudeCheck([iv(6, 8, 'seeds')], 5, gain).result).toBe('beyond'); // +120..160%
  });
});

describe('seedsNeeded', () => {
  it('matches the t table: sd 1, difference 1 needs 9 seeds per arm', () => {
    // n = 9: t(0.975, 16) = 2.1199 * sqrt(2/9) = 0.9993 < 1; n = 8: t(0.975, 14) = 2.1448 * 0.5 = 1.0724
    expect(seedsNeeded(1, 1)).toBe(9);
    expect(seedsNeeded(-1, 1)).toBe(9);
    // sd 2, difference 4: n = 3: t(0.975, 4) = 2.7764 * 2 * sqrt(2/3) = 4.534 > 4; n = 4: 2.4469 * 2 * 0.7071 = 3.460
    expect(seedsNeeded(4, 2)).toBe(4);
  });
  it('null when the difference is ~0 or needs more than the cap', () => {
    expect(seedsNeeded(0, 1)).toBeNull();
    expect(seedsNeeded(0.01, 5, { max: 50 })).toBeNull();
    expect(seedsNeeded(Number.NaN, 1)).toBeNull();
  });
  it('pooled sd of two samples', () => {
    // a: var 1 (1,2,3), b: var 4 (2,4,6): pooled (2*1 + 2*4) / 4 = 2.5
    expect(pooledSd([1, 2, 3], [2, 4, 6])).toBeCloseTo(Math.sqrt(2.5), 12);
    expect(pooledSd([1], [2, 3])).toBeNaN();
  });
});
