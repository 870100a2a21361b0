import { describe, expect, it } from 'vitest';
import type { MixName } from '../stages/mixes-stage.js';
import { compare } from './aggregate.js';
import type { ModelResults } from './collect-results.js';

const M = { benchmark: 'followir', measure: 'p-MRR' };

/** One trained model with one set's p-MRR (a fraction) and two topics around it. */
function model(mix: MixName, seed: number, value: number): ModelResults {
  const id = `mini-bert/${mix}/seed-${seed}`;
  return {
    model: {
      id,
      kind: 'trained',
      backbone: 'mini-bert',
      mix,
      seed,
      stage: `train/${id}`,
      exportDir: 'export',
    },
    records: [
      {
        model: id,
        benchmark: 'followir',
        split: null,
        set: 'mini-followir',
        task: 'mini-followir',
        measures: { 'p-MRR': value },
        perTopic: { 'p-MRR': { t1: value - 0.01, t2: value + 0.01 } },
        source: `stages/eval/${id}/followir/mini-followir.json`,
      },
    ],
    sources: [],
  };
}

// t_{0.975} quantiles from a printed t table (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2)
const T975 = { 2: 4.302653, 3: 3.182446 };

describe('compare: the interval over seeds', () => {
  // Each seed's backbone moves both arms (0.40 / 0.60 / 0.50); the arms differ by 2, 3 and 1 points.
  const b = [0.4, 0.6, 0.5];
  const diffs = [0.02, 0.03, 0.01];
  const results = [
    ...b.map((v, i) => model('ins-orig', [13, 42, 1234][i]!, v)),
    ...b.map((v, i) => model('ins-dv', [13, 42, 1234][i]!, v + diffs[i]!)),
  ];

  it('pairs the arms by seed when both ran the same seeds: t over the per-seed differences (n - 1 df)', () => {
    const c = compare(results, 'mini-bert', 'ins-dv', 'ins-orig', M)!;
    expect(c.seedPairing).toBe('paired');
    expect(c.overSeeds.mean).toBeCloseTo(2, 10);
    expect(c.overSeeds.sd).toBeCloseTo(1, 10);
    const half = T975[2] / Math.sqrt(3);
    expect(c.overSeeds.lo).toBeCloseTo(2 - half, 5);
    expect(c.overSeeds.hi).toBeCloseTo(2 + half, 5);
    // unpaired, the backbones' spread (sd 10 points) swamps the 2-point difference
    expect(c.overSeedsUnpaired.mean).toBeCloseTo(2, 10);
    expect(c.overSeedsUnpaired.lo).toBeLessThan(-15);
    expect(c.overSeedsUnpaired.hi).toBeGreaterThan(19);
    // seeds needed, paired: smallest n with t_{n-1} * 1 / sqrt(n) < 2: n = 3 gives 2.48, n = 4 1.59
    expect(T975[2] / Math.sqrt(3)).toBeGreaterThan(2);
    expect(T975[3] / Math.sqrt(4)).toBeLessThan(2);
    expect(c.seedSd).toBeCloseTo(1, 10);
    expect(c.seedsNeeded).toBe(4);
  });

  it('falls back to Welch when the arms ran different seeds', () => {
    const other = [
      ...b.map((v, i) => model('ins-orig', [13, 42, 1234][i]!, v)),
      ...b.map((v, i) => model('ins-dv', [7, 99, 2024][i]!, v + diffs[i]!)),
    ];
    const c = compare(other, 'mini-bert', 'ins-dv', 'ins-orig', M)!;
    expect(c.seedPairing).toBe('welch');
    expect(c.overSeeds).toEqual(c.overSeedsUnpaired);
    expect(c.overSeeds.lo).toBeLessThan(-15);
  });
});
