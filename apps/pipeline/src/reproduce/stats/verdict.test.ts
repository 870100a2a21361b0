import { describe, expect, it } from 'vitest';
import { claimVerdict, combineVerdicts, type EvidenceInterval } from './verdict.js';

const iv = (lo: number, hi: number, label = 'topics'): EvidenceInterval => ({
  mean: (lo + hi) / 2,
  lo,
  hi,
  label,
});
const both = (a: [number, number], b: [number, number]) => [
  iv(a[0], a[1], 'topics'),
  iv(b[0], b[1], 'seeds'),
];

describe('claimVerdict', () => {
  it('reproduced when every interval is on the claimed side of 0', () => {
    expect(claimVerdict({ direction: 'up', intervals: both([0.1, 2], [0.5, 9]), seeds: 3 }).verdict).toBe(
      'reproduced',
    );
    expect(claimVerdict({ direction: 'down', intervals: both([-2, -0.1], [-5, -1]), seeds: 3 }).verdict).toBe(
      'reproduced',
    );
  });
  it('not reproduced when every interval is on the other side', () => {
    expect(claimVerdict({ direction: 'up', intervals: both([-2, -0.1], [-3, -1]), seeds: 3 }).verdict).toBe(
      'not reproduced',
    );
    expect(claimVerdict({ direction: 'down', intervals: [iv(0.1, 2)], seeds: 5 }).verdict).toBe(
      'not reproduced',
    );
  });
  it('inconclusive when an interval holds 0, the intervals disagree, or one is undefined', () => {
    // topic-level says yes, seed-level spans 0: training variance is not ruled out
    expect(claimVerdict({ direction: 'down', intervals: both([-7, -2], [-14, 5]), seeds: 3 })).toEqual({
      verdict: 'inconclusive',
      reason: '95% CI over seeds contains 0 (topics [-7.00, -2.00], seeds [-14.00, 5.00])',
    });
    expect(claimVerdict({ direction: 'up', intervals: both([1, 2], [-3, -1]), seeds: 3 }).reason).toMatch(
      /disagree/,
    );
    expect(claimVerdict({ direction: 'up', intervals: [iv(0, 1)], seeds: 3 }).verdict).toBe('inconclusive');
    expect(
      claimVerdict({
        direction: 'up',
        intervals: [{ mean: 1, lo: Number.NaN, hi: Number.NaN, label: 'seeds' }],
        seeds: 3,
      }).reason,
    ).toBe('interval over seeds undefined');
  });
  it('inconclusive when not measured or with too few seeds', () => {
    expect(claimVerdict({ direction: 'up', intervals: [], seeds: 3 }).reason).toMatch(/not measured/);
    expect(claimVerdict({ direction: 'up', intervals: [iv(1, 2)], seeds: 1 })).toMatchObject({
      verdict: 'inconclusive',
      reason: expect.stringContaining('at least 3'),
    });
    expect(claimVerdict({ direction: 'up', intervals: [iv(1, 2)], seeds: 1 }, 1).verdict).toBe('reproduced');
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
