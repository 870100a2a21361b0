import { describe, expect, it } from 'vitest';
import type { MixName } from '../stages/mixes-stage.js';
import {
  acrossVerdict,
  RunFindings,
  renderAcrossRuns,
  verdictCounts,
  verdictsAcrossRuns,
} from './across-runs.js';
import type { Comparison, MeasureRef } from './aggregate.js';
import { evaluateFindings, findingsJson } from './findings.js';

const iv = (lo: number, hi: number, n = 200) => ({ mean: (lo + hi) / 2, lo, hi, n, sd: 1, level: 0.95 });

/**
 * One run's results.json findings, made the way the report stage makes them: evaluateFindings
 * over comparisons, findingsJson, then a JSON round trip (NaN becomes null there, as on disk).
 * `table`: `a-b:measure` -> the interval over topics and seeds alike (x100, as the report's).
 */
function run(table: Record<string, [number, number]>): RunFindings {
  const comparisonOf = (backbone: string, a: MixName, b: MixName, m: MeasureRef): Comparison | null => {
    const t = table[`${a}-${b}:${m.measure}`];
    if (!t) return null;
    return {
      backbone,
      a,
      b,
      benchmark: m.benchmark,
      measure: m.measure,
      perTopic: iv(t[0], t[1]),
      overSeeds: iv(t[0], t[1], 3),
      seedPairing: 'paired',
      overSeedsUnpaired: iv(t[0], t[1], 3),
      seeds: 3,
      referenceMean: 50,
      seedSd: Number.NaN,
      seedsNeeded: null,
    };
  };
  const findings = findingsJson(evaluateFindings(['mini-bert'], comparisonOf));
  return RunFindings.parse(JSON.parse(JSON.stringify({ profile: 'mini', variant: 'full', findings })));
}

describe('verdicts across runs', () => {
  it('the rule: the same verdict in every run, else differs', () => {
    expect(acrossVerdict(['reproduced', 'reproduced', 'reproduced'])).toBe('reproduced in all');
    expect(acrossVerdict(['inconclusive', 'inconclusive'])).toBe('inconclusive in all');
    expect(acrossVerdict(['not reproduced', 'not reproduced'])).toBe('not reproduced in all');
    expect(acrossVerdict(['reproduced', 'inconclusive', 'reproduced'])).toBe('differs');
    expect(verdictCounts(['inconclusive', 'reproduced', 'reproduced'])).toBe('2 reproduced, 1 inconclusive');
  });

  it('reads the report-stage results of three runs and finds what holds in all', () => {
    const p = 'p-MRR';
    const s = 'score';
    const base = {
      [`ins-dv-ins-orig:${p}`]: [1, 4],
      [`all-dv-all-orig:${p}`]: [-2, 3],
      [`ins-dv-ins-orig:${s}`]: [-6, -1],
    } as Record<string, [number, number]>;
    const runs = [
      run(base),
      run({ ...base, [`ins-dv-ins-orig:${p}`]: [-1, 3] }),
      run({ ...base, [`ins-dv-ins-orig:${s}`]: [1, 2] }),
    ];
    const across = verdictsAcrossRuns(runs);
    expect(across.map((f) => f.id)).toEqual(runs[0]!.findings.map((f) => f.id));
    const dv = across.find((f) => f.id === 'dv-raises-p-mrr')!;
    expect(dv.runs).toEqual(['inconclusive', 'inconclusive', 'inconclusive']);
    expect(dv.across).toBe('inconclusive in all');
    const head = dv.claims[0]!;
    expect(head.label).toBe('ins-dv − ins-orig p-MRR > 0');
    expect(head.runs.map((r) => r.verdict)).toEqual(['reproduced', 'inconclusive', 'reproduced']);
    for (const [i, want] of [2.5, 1, 2.5].entries()) expect(head.runs[i]!.mean).toBeCloseTo(want, 10);
    expect(head.across).toBe('differs');
    expect(head.sameSign).toBe(true);
    const cost = across.find((f) => f.id === 'ins-dv-costs-score')!;
    // the third run's Score difference is positive: the claim "< 0" is not reproduced there
    expect(cost.claims[0]!.runs.map((r) => r.verdict).at(-1)).toBe('not reproduced');
    expect(cost.claims[0]!.sameSign).toBe(false);
    // a claim no run measured: no mean, so no "same sign"
    const second = across.find((f) => f.id === 'second-backbone')!;
    expect(second.claims[0]!.runs.every((r) => r.mean === null)).toBe(true);
    expect(second.claims[0]!.sameSign).toBe(false);

    const md = renderAcrossRuns(['full', 'world-7', 'fresh'], across);
    expect(md.split('\n')[0]).toBe(
      '| finding / claim | full | world-7 | fresh | across runs | claimed sign in every run |',
    );
    expect(md).toContain(
      '| ins-dv − ins-orig p-MRR > 0 | reproduced (+2.50) | inconclusive (+1.00) | reproduced (+2.50) | differs (2 reproduced, 1 inconclusive) | yes |',
    );
    expect(md).toMatch(/0 of 6 findings reproduced in all 3 runs; 1 not reproduced in at least one/);
  });

  it('refuses runs whose findings do not match, naming the run', () => {
    const a = run({});
    const b = { ...a, findings: a.findings.slice(1) };
    expect(() => verdictsAcrossRuns([a, b])).toThrow(/run 2 has no finding 'dv-raises-p-mrr'/);
    expect(() => verdictsAcrossRuns([a])).toThrow(/at least two runs/);
  });
});
