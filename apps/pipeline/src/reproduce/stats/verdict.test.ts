import { describe, expect, it } from 'vitest';
import { claimVerdict, combineVerdicts } from './verdict.js';

const iv = (lo: number, hi: number) => ({ mean: (lo + hi) / 2, lo, hi });

describe('claimVerdict', () => {
  it('reproduced when the interval is on the claimed side of 0', () => {
    expect(claimVerdict({ direction: 'up', interval: iv(0.1, 2), seeds: 3 }).verdict).toBe('reproduced');
    expect(claimVerdict({ direction: 'down', interval: iv(-2, -0.1), seeds: 3 }).verdict).toBe('reproduced');
  });
  it('not reproduced when the interval is on the other side', () => {
    expect(claimVerdict({ direction: 'up', interval: iv(-2, -0.1), seeds: 3 }).verdict).toBe(
      'not reproduced',
    );
    expect(claimVerdict({ direction: 'down', interval: iv(0.1, 2), seeds: 5 }).verdict).toBe(
      'not reproduced',
    );
  });
  it('inconclusive when the interval holds 0, is undefined, unmeasured, or seeds are too few', () => {
    expect(claimVerdict({ direction: 'up', interval: iv(-1, 1), seeds: 3 })).toMatchObject({
      verdict: 'inconclusive',
      reason: expect.stringContaining('contains 0'),
    });
    expect(claimVerdict({ direction: 'up', interval: iv(0, 1), seeds: 3 }).verdict).toBe('inconclusive');
    expect(
      claimVerdict({ direction: 'up', interval: { mean: 1, lo: Number.NaN, hi: Number.NaN }, seeds: 3 })
        .verdict,
    ).toBe('inconclusive');
    expect(claimVerdict({ direction: 'up', interval: null, seeds: 3 }).reason).toMatch(/not measured/);
    expect(claimVerdict({ direction: 'up', interval: iv(1, 2), seeds: 1 })).toMatchObject({
      verdict: 'inconclusive',
      reason: expect.stringContaining('at least 3'),
    });
    expect(claimVerdict({ direction: 'up', interval: iv(1, 2), seeds: 1 }, 1).verdict).toBe('reproduced');
  });
});

describe('combineVerdicts', () => {
  it('all reproduced -> reproduced; any not -> not; otherwise inconclusive', () => {
    expect(combineVerdicts(['reproduced', 'reproduced'])).toBe('reproduced');
    expect(combineVerdicts(['reproduced', 'not reproduced', 'inconclusive'])).toBe('not reproduced');
    expect(combineVerdicts(['reproduced', 'inconclusive'])).toBe('inconclusive');
    expect(combineVerdicts([])).toBe('inconclusive');
  });
});
