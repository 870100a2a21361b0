import { describe, expect, it } from 'vitest';
import type { MixName } from '../stages/mixes-stage.js';
import type { Comparison, MeasureRef } from './aggregate.js';
import { evaluateFindings, FINDINGS } from './findings.js';
import { REPORT_REGISTRY } from './report-registry.js';

const iv = (lo: number, hi: number, n = 200) => ({ mean: (lo + hi) / 2, lo, hi, n, sd: 1, level: 0.95 });

/** Comparisons from a table of (backbone, a, b, measure) -> interval over topics [, over seeds]. */
function lookup(
  table: Record<string, [number, number] | [number, number, number, number]>,
  seeds = 3,
  referenceMean = 50,
) {
  return (backbone: string, a: MixName, b: MixName, m: MeasureRef): Comparison | null => {
    const t = table[`${backbone}:${a}-${b}:${m.measure}`];
    if (!t) return null;
    const overSeeds = t.length === 4 ? iv(t[2], t[3], seeds) : iv(t[0], t[1], seeds);
    return {
      backbone,
      a,
      b,
      benchmark: m.benchmark,
      measure: m.measure,
      perTopic: iv(t[0], t[1]),
      overSeeds,
      seedPairing: 'paired',
      overSeedsUnpaired: overSeeds,
      seeds,
      referenceMean,
      seedSd: 1,
      seedsNeeded: 3,
    };
  };
}

describe('evaluateFindings', () => {
  it('covers the five findings of PAPER.md and our topic-matched control', () => {
    expect(FINDINGS.map((f) => f.id)).toEqual([
      'dv-raises-p-mrr',
      'ins-dv-costs-score',
      'all-dv-both-improve',
      'general-data-dilutes',
      'second-backbone',
      'dv-beyond-topics',
    ]);
  });

  it('names each claim by a registered benchmark and a measure it reports', () => {
    for (const c of FINDINGS.flatMap((f) => f.claims)) {
      const b = REPORT_REGISTRY.benchmarks[c.benchmark];
      expect(b, c.benchmark).toBeDefined();
      expect(b!.reported.map((m) => m.measure)).toContain(c.measure);
    }
  });

  it('computes each verdict from the intervals', () => {
    const r = evaluateFindings(
      ['bert', 'gte'],
      lookup({
        'bert:ins-dv-ins-orig:p-MRR': [0.5, 3], // up: yes
        'bert:all-dv-all-orig:p-MRR': [0.2, 4], // up: yes
        'bert:ins-dv-ins-orig:score': [-3, -1, -9, 4], // down over topics, but the seeds span 0
        'bert:all-dv-all-orig:score': [-3, -1], // up claimed, interval below 0
        'bert:all-orig-ins-orig:p-MRR': [-5, -2], // down: yes
        'bert:all-dv-ins-dv:p-MRR': [-4, -0.1], // down: yes
        'gte:ins-dv-ins-orig:p-MRR': [1, 2],
        'gte:all-dv-all-orig:p-MRR': [-0.5, 2],
        'bert:ins-dv-ins-orig-tm:p-MRR': [0.3, 1.5],
        'bert:all-dv-all-orig-tm:p-MRR': [0.1, 2],
      }),
    );
    const v = Object.fromEntries(r.map((f) => [f.finding.id, f.verdict]));
    expect(v).toEqual({
      'dv-raises-p-mrr': 'reproduced',
      'ins-dv-costs-score': 'inconclusive',
      'all-dv-both-improve': 'not reproduced',
      'general-data-dilutes': 'reproduced',
      'second-backbone': 'inconclusive',
      'dv-beyond-topics': 'reproduced',
    });
    expect(r[1]!.claims[0]!.reason).toMatch(/CI over seeds contains 0/);
    expect(r[0]!.claims[0]!.claim.paper.value).toBe(2.36);
  });

  it('"costs a little Score" needs the size too: a cost past twice the paper relative cost is not reproduced', () => {
    const small = evaluateFindings(['bert'], lookup({ 'bert:ins-dv-ins-orig:score': [-5, -1] }, 3, 50));
    expect(small[1]!.claims[0]!.sign.verdict).toBe('reproduced');
    expect(small[1]!.claims[0]!.magnitude?.result).toBe('within');
    expect(small[1]!.verdict).toBe('reproduced');
    // -13 points on 57 (the committed mini run): the sign holds, the size is ~3x the paper's
    const big = evaluateFindings(['bert'], lookup({ 'bert:ins-dv-ins-orig:score': [-16, -10] }, 3, 57));
    expect(big[1]!.claims[0]!.sign.verdict).toBe('reproduced');
    expect(big[1]!.claims[0]!.magnitude?.result).toBe('beyond');
    expect(big[1]!.verdict).toBe('not reproduced');
    expect(big[1]!.claims[0]!.reason).toMatch(/the sign holds .* past .*a little/);
    // straddling the band edge (-15%): inconclusive
    const edge = evaluateFindings(['bert'], lookup({ 'bert:ins-dv-ins-orig:score': [-10, -5] }, 3, 50));
    expect(edge[1]!.verdict).toBe('inconclusive');
  });

  it('says what is missing: a second backbone, or enough seeds', () => {
    const one = evaluateFindings(['bert'], lookup({ 'bert:ins-dv-ins-orig:p-MRR': [1, 2] }, 1));
    expect(one[4]!.verdict).toBe('inconclusive');
    expect(one[4]!.claims[0]!.reason).toMatch(/--backbones all/);
    expect(one[0]!.claims[0]!.reason).toMatch(/1 seed\(s\); a verdict needs at least 3/);
    expect(one[0]!.claims[1]!.reason).toMatch(/not measured/);
  });
});
